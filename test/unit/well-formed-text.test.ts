/**
 * Text a request brings is well-formed Unicode sent as UTF-8 (lambdas/shared/well-formed.ts):
 * a lone surrogate (JSON's `\ud800` escape) or U+FFFD (what a UTF-8 decoder leaves of bytes that
 * are not UTF-8: the local gateway's, and API Gateway's text bodies) in any string of any body,
 * value or key, is a 400 naming the field, before anything is written.
 */
import '#support/handlers/env';
import { BatchWriteCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { MAX_PROBLEMS, ValidationError, type Problem } from '#shared/validation';
import { MAX_BODY_DEPTH, refuseMalformedText } from '#shared/well-formed';
import { handler as createGroup } from '#lambdas/groups/create-group';
import { ddbMock, expectError, FUTURE_DATE, invoke, MID, resetDb } from '#support/handlers/invoke';

/** The problems refuseMalformedText finds (none: it does not throw). */
function malformedTextIn(value: unknown, root: string): readonly Problem[] {
  try {
    refuseMalformedText(value, root);
    return [];
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return error.problems;
  }
}

beforeEach(() => resetDb());

const group = { servicePayId: MID, scheduleDate: FUTURE_DATE, scheduleHour: 9, locationId: 1 };
const pay = { profileId: 'payor1/method1', amount: 10 };
const LONE = /is not well-formed text \(a lone surrogate\)/;
const REPLACED = /is not well-formed text \(U\+FFFD: bytes not UTF-8\)/;

/** Nothing was written: the request was refused while parsed (after its merchant's grant was read). */
function nothingWritten(): void {
  expect(ddbMock.commandCalls(PutCommand)).toHaveLength(0);
  expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(0);
  expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(0);
  expect(ddbMock.commandCalls(BatchWriteCommand)).toHaveLength(0);
}

describe('lone surrogates and invalid UTF-8 in free text', () => {
  it('defect: a lone surrogate in free text is accepted (strict JSON parsers then cannot read the list)', async () => {
    const response = await invoke(createGroup, {
      method: 'POST',
      // JSON.stringify writes the lone half as the escape `\ud800`, as a client's JSON would carry it.
      body: { ...group, payments: [pay, { ...pay, orderId: 'INV-\ud800-1' }] },
    });
    const message = expectError(response, 400);
    expect(message).toMatch(LONE);
    expect(message.startsWith('payments[1].orderId ')).toBe(true);
    expect(response.body.errors).toEqual([{ field: 'payments[1].orderId', message }]);
    nothingWritten();
  });

  it('defect: invalid UTF-8 bytes in a body are accepted', async () => {
    // A body whose orderId holds the byte 0xFF, as API Gateway passes a binary body (base64).
    const bytes = Buffer.concat([
      Buffer.from(JSON.stringify({ ...group, payments: [{ ...pay, orderId: 'INV-' }] }).slice(0, -4)),
      Buffer.from([0xff]),
      Buffer.from('"}]}'),
    ]);
    const response = await invoke(createGroup, {
      method: 'POST',
      rawBody: bytes.toString('base64'),
      isBase64Encoded: true,
    });
    expect(expectError(response, 400)).toMatch(
      /^payments\[0\]\.orderId is not well-formed text \(U\+FFFD: bytes not UTF-8\)/,
    );
    nothingWritten();
  });

  it('refuses U+FFFD in a text body: what a decoder leaves of bytes that were not UTF-8', async () => {
    const response = await invoke(createGroup, {
      method: 'POST',
      rawBody: JSON.stringify({ ...group, payments: [{ ...pay, orderId: 'Caf\uFFFD' }] }),
    });
    expect(expectError(response, 400)).toMatch(REPLACED);
    nothingWritten();
  });

  it('names the object whose key is not well-formed, and every field at fault', async () => {
    const response = await invoke(createGroup, {
      method: 'POST',
      body: {
        ...group,
        payments: [
          { ...pay, customAttributes: { ['k\udc00']: 'v' } },
          { ...pay, orderId: '\ud83d', customAttributes: { ok: 'x\uFFFD' } },
        ],
      },
    });
    const message = expectError(response, 400);
    expect(message).toMatch(/^payments\[0\]\.customAttributes has a key that is not well-formed text/);
    expect((response.body.errors as { field: string }[]).map((e) => e.field).sort()).toEqual([
      'payments[0].customAttributes',
      'payments[1].customAttributes.ok',
      'payments[1].orderId',
    ]);
    nothingWritten();
  });

  it('keeps well-formed text: a surrogate pair, other scripts, an escaped pair', () => {
    const body = JSON.parse('{"a":"\\ud83d\\ude00","b":["Übung № 5 — ok","日本"],"c":{"é":"😀"}}');
    expect(malformedTextIn(body, 'body')).toEqual([]);
  });
});

describe('refuseMalformedText', () => {
  it('refuses a value nested deeper than MAX_BODY_DEPTH, at any depth JSON.parse takes, without running out of stack', () => {
    const depth = 200_000;
    const deep = JSON.parse(`${'['.repeat(depth)}"\\udfff"${']'.repeat(depth)}`) as unknown;
    const [problem, ...more] = malformedTextIn(deep, 'body');
    expect(more).toEqual([]);
    expect(problem?.field).toBe(`${'['}0]`.repeat(MAX_BODY_DEPTH));
    expect(problem?.message).toMatch(/is nested more than 64 levels deep$/);
    // Within the bound, what it holds is still read.
    const within = JSON.parse(
      `${'['.repeat(MAX_BODY_DEPTH)}"\\udfff"${']'.repeat(MAX_BODY_DEPTH)}`,
    ) as unknown;
    expect(malformedTextIn(within, 'body')[0]?.message).toMatch(/lone surrogate/);
  });

  it('lists at most MAX_PROBLEMS problems', () => {
    const many = Array.from({ length: MAX_PROBLEMS + 50 }, () => '\ud800');
    expect(malformedTextIn({ list: many }, 'body')).toHaveLength(MAX_PROBLEMS);
  });

  it('names the whole value when it is the string at fault', () => {
    expect(malformedTextIn('\ud800', 'body')).toEqual([
      { field: 'body', message: expect.stringMatching(/^body is not well-formed text/) },
    ]);
  });
});
