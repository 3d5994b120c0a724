/**
 * Card numbers through the request schemas and the route builder (the in-memory DynamoDB mock):
 * refused in every free-text value and key, e-mail address, webhook URL and idempotency key,
 * never echoed in a refusal, never written to a log.
 */
import '#support/handlers/env-info-logs';
import { idempotency } from '#support/handlers/fake-idempotency';
import { createGroupSchema } from '#contract/schemas/groups';
import { addPaymentSchema } from '#contract/schemas/payments';
import { createPayorSchema, customerDataSchema, updateMethodSchema } from '#contract/schemas/payors';
import { createWebhookEndpointSchema } from '#contract/schemas/webhooks';
import { logger } from '#shared/logger';
import { validator } from '#support/validators-by-schema';
import { handler as getPayor } from '#lambdas/payors/get-payor';
import { handler as createGroup } from '#lambdas/groups/create-group';
import { handler as addPayment } from '#lambdas/payments/add-payment';
import {
  apiEvent,
  expectError,
  FUTURE_DATE,
  GROUP_ID,
  invoke,
  lambdaContext,
  MID,
  resetDb,
  type EventInput,
} from '#support/handlers/invoke';

const PAN = '4111111111111111';
const AMEX = 378282246310005;
const group = { servicePayId: MID, scheduleDate: FUTURE_DATE, scheduleHour: 9, locationId: 1 };
const pay = { profileId: 'payor1/method1', amount: 10 };

beforeEach(() => {
  resetDb();
  idempotency.records.clear();
});

/** The records the logger prints while `run` runs, as text. */
async function logged(run: () => Promise<unknown>): Promise<string> {
  const sink = (logger as unknown as { console: Console }).console;
  const lines: string[] = [];
  const spies = (['debug', 'info', 'warn', 'error'] as const).map((m) =>
    jest.spyOn(sink, m).mockImplementation((...args: unknown[]) => void lines.push(String(args[0]))),
  );
  try {
    await run();
  } finally {
    spies.forEach((s) => s.mockRestore());
  }
  return lines.join('\n');
}

/** Every refusal of `value` by `schema`, as the 400 would list them. */
function problems(schema: object, value: unknown): { field: string; message: string }[] {
  try {
    validator(schema)(value);
  } catch (error) {
    return (error as { problems: { field: string; message: string }[] }).problems;
  }
  return [];
}

describe('issue 32 item 1: card numbers slip past the free-text check', () => {
  test('defect: a card number followed by more text is accepted in free text', () => {
    expect(
      problems(addPaymentSchema, {
        paymentGroupId: GROUP_ID,
        ...pay,
        orderId: `${PAN.replace(/(\d{4})(?=\d)/g, '$1 ')} 12/30`,
      }),
    ).toEqual([
      { field: 'orderId', message: expect.stringMatching(/^orderId must not contain a card number/) },
    ]);
  });

  test('defect: a card number preceded by text is accepted in free text', () => {
    expect(problems(customerDataSchema, { note: `Qty 2 ${PAN}` })).toEqual([
      { field: 'note', message: expect.stringMatching(/^note must not contain a card number/) },
    ]);
  });

  test('defect: a card number with non-breaking spaces, en dashes or doubled spaces between its groups is accepted', () => {
    for (const sep of ['\u00a0', '\u2013', '  ']) {
      const written = PAN.replace(/(\d{4})(?=\d)/g, `$1${sep}`);
      expect(problems(customerDataSchema, { note: written })).toHaveLength(1);
    }
  });

  test('defect: a card number as an object key in customerData or customAttributes is accepted, and refused it was echoed', async () => {
    const key = `card ${PAN}`;
    for (const [schema, value, field] of [
      [customerDataSchema, { [key]: 'x' }, 'card [card number]'],
      [
        createPayorSchema,
        { paymentMethod: {}, customerData: { [key]: 'x' } },
        'customerData.card [card number]',
      ],
      [updateMethodSchema, { customerData: { [PAN]: 'x' } }, 'customerData.[card number]'],
      [
        addPaymentSchema,
        { paymentGroupId: GROUP_ID, ...pay, customAttributes: { [key]: 1 } },
        'customAttributes.card [card number]',
      ],
    ] as const) {
      const found = problems(schema, value);
      expect(found).toEqual([
        { field, message: `${field} is a key that holds a card number; keys must not contain one` },
      ]);
      expect(JSON.stringify(found)).not.toContain(PAN);
    }
    // Through a handler: 400, the key not echoed, nothing written (no DynamoDB write is mocked).
    const response = await invoke(addPayment, {
      method: 'POST',
      path: '/rest/merchants/x/payments',
      body: { paymentGroupId: GROUP_ID, ...pay, customAttributes: { [PAN]: 'memo' } },
    });
    expect(expectError(response, 400)).toBe(
      'customAttributes.[card number] is a key that holds a card number; keys must not contain one',
    );
    expect(response.raw).not.toContain(PAN);
  });

  test('a key holding a card number is redacted in the refusals of its value too', () => {
    const found = problems(customerDataSchema, { [PAN]: 'line\nbreak' });
    expect(found.map((p) => p.field)).toEqual(['[card number]', '[card number]']);
    expect(JSON.stringify(found)).not.toContain(PAN);
  });

  test('defect: a card number as a JSON number is accepted in customAttributes', () => {
    const found = problems(addPaymentSchema, {
      paymentGroupId: GROUP_ID,
      ...pay,
      customAttributes: { ref: AMEX },
    });
    expect(found).toEqual([
      { field: 'customAttributes.ref', message: expect.stringContaining('no card number') },
    ]);
    // Other numbers of the same size are kept.
    expect(
      problems(addPaymentSchema, {
        paymentGroupId: GROUP_ID,
        ...pay,
        customAttributes: { ref: 378282246310006 },
      }),
    ).toEqual([]);
  });

  test('defect: a card number as the local part of an e-mail address is accepted', () => {
    for (const email of [`${PAN}@example.com`, '4111.1111.1111.1111@example.com']) {
      expect(problems(createPayorSchema, { paymentMethod: {}, email })).toEqual([
        { field: 'email', message: expect.stringMatching(/^email must not contain a card number/) },
      ]);
    }
    expect(problems(createPayorSchema, { paymentMethod: {}, email: 'pat.smith+4111@example.com' })).toEqual(
      [],
    );
  });

  test("defect: a card number inside a webhook URL's path or query is accepted", () => {
    for (const url of [
      `https://hooks.example.com/cards/${PAN}`,
      'https://hooks.example.com/in?card=4111%201111%201111%201111',
      'https://hooks.example.com/in?card=4111+1111+1111+1111',
    ]) {
      expect(problems(createWebhookEndpointSchema, { url, enabledEvents: ['*'] })).toEqual([
        { field: 'url', message: expect.stringMatching(/^url must not contain a card number/) },
      ]);
    }
    expect(
      problems(createWebhookEndpointSchema, {
        url: 'https://hooks.example.com/in/12345?order=20240115',
        enabledEvents: ['*'],
      }),
    ).toEqual([]);
  });

  test('every card number in a body is listed, each field named', async () => {
    const response = await invoke(createGroup, {
      method: 'POST',
      body: {
        ...group,
        payments: [
          { ...pay, orderId: `Qty 2 ${PAN}` },
          { ...pay, customAttributes: { n: AMEX, [PAN]: true } },
        ],
      },
    });
    expect(response.status).toBe(400);
    expect((response.body.errors as { field: string }[]).map((e) => e.field).sort()).toEqual([
      'payments[0].orderId',
      'payments[1].customAttributes.[card number]',
      'payments[1].customAttributes.n',
    ]);
    expect(response.raw).not.toContain(PAN);
    expect(response.raw).not.toContain(String(AMEX));
  });
});

/** An invocation with an `Idempotency-Key` header. */
async function invokeKeyed(handler: unknown, input: EventInput, key: string) {
  const event = apiEvent(input);
  event.headers = { ...event.headers, 'Idempotency-Key': key };
  const result = await (handler as (e: unknown, c: unknown) => Promise<{ statusCode: number; body: string }>)(
    event,
    lambdaContext,
  );
  return {
    status: result.statusCode,
    raw: result.body,
    body: JSON.parse(result.body) as { message: string },
  };
}

describe('issue 32 item 2: card numbers reach responses, logs and keys through other doors', () => {
  test('defect: a card number in a path id is echoed in the 400 and logged', async () => {
    let response: Awaited<ReturnType<typeof invoke>> | undefined;
    const logs = await logged(async () => {
      response = await invoke(getPayor, {
        path: '/v1/rest/merchants/{MID}/payors/{PayorID}',
        pathParameters: { MID, PayorID: PAN },
      });
    });
    expect(expectError(response!, 400)).toBe('PayorID must be a UUID (got "[card number]")');
    expect(logs).toContain('request refused');
    expect(logs).not.toContain(PAN);
    expect(response!.raw).not.toContain(PAN);
  });

  test('defect: an Idempotency-Key that is a card number is accepted, echoed and stored as written', async () => {
    for (const key of [PAN, '4111-1111-1111-1111', `order:${PAN}`]) {
      const input: EventInput = {
        method: 'POST',
        path: '/rest/merchants/x/payments',
        body: { paymentGroupId: GROUP_ID, ...pay },
      };
      const logs = await logged(async () => {
        const response = await invokeKeyed(addPayment, input, key);
        expect(response.status).toBe(400);
        expect(response.body.message).toBe('Idempotency-Key must not contain a card number');
        expect(response.raw).not.toContain(PAN);
      });
      expect(logs).not.toContain(PAN);
      expect(logs).not.toContain('4111-1111');
    }
    expect(idempotency.records.size).toBe(0);
  });

  test('a body idempotencyKey that holds a card number is refused without echoing it', () => {
    const found = problems(createGroupSchema, { ...group, idempotencyKey: `k-${PAN}` });
    expect(found).toEqual([
      {
        field: 'idempotencyKey',
        message: expect.stringMatching(/^idempotencyKey must not contain a card number/),
      },
    ]);
  });

  test('the logger writes no card number, whatever a record holds (message, keys, errors, causes)', async () => {
    const logs = await logged(async () => {
      logger.info(`charged ${PAN}`, { note: `Qty 2 ${PAN}`, amex: AMEX, [PAN]: 'as a key' });
      logger.error('failed', {
        error: new Error(`card 4111 1111 1111 1111 declined`, { cause: new Error(`pan=${PAN}`) }),
      });
      logger.warn('url', { url: 'https://x.example.com/?c=4111%201111%201111%201111' });
    });
    expect(logs).not.toMatch(/4111.?1111.?1111.?1111|378282246310005/);
    expect(logs).toContain('[card number]');
    const records = logs.split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records[0]).toMatchObject({
      message: 'charged [card number]',
      note: 'Qty 2 [card number]',
      '[card number]': 'as a key',
    });
    expect(records[1]).toMatchObject({
      error: { message: 'card [card number] declined', cause: { message: 'pan=[card number]' } },
    });
  });
});
