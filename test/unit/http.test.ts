import '#support/handlers/env';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { apiScope } from '#contract/stage';
import { errorResponse, MAX_BODY_BYTES } from '#shared/http';
import { logger } from '#shared/logger';
import { ProcessorUnavailableError } from '#processor/processor';
import { BadRequestError, ConflictError, GroupNotFoundError, ServiceUnavailableError } from '#shared/errors';
import { handler as createGroup } from '#lambdas/groups/create-group';
import { handler as getGroup } from '#lambdas/groups/get-group';
import { handler as getPayment } from '#lambdas/payments/get-payment';
import { handler as updateGroup } from '#lambdas/groups/update-group';
import {
  awsError,
  CLIENT_ID,
  ddbMock,
  expectError,
  FUTURE_DATE,
  grantKey,
  registryKey,
  group,
  GROUP_ID,
  groupPath,
  invoke,
  MID,
  OTHER_MID,
  payment,
  paymentPath,
  resetDb,
  sentCommands,
  SHORT_MID,
  storedGroup,
  storedPayment,
} from '#support/handlers/invoke';

beforeEach(() => {
  resetDb();
});

const createBody = { servicePayId: MID, scheduleDate: FUTURE_DATE, scheduleHour: 9, locationId: 1 };

describe('authentication and authorization', () => {
  it('401 without an authorizer, before any DynamoDB call', async () => {
    const response = await invoke(getGroup, { pathParameters: groupPath(), claims: null });
    expect(expectError(response, 401)).toBe('Unauthorized');
    expect(ddbMock.calls()).toHaveLength(0);
  });

  it('401 with claims but no client_id', async () => {
    const response = await invoke(getGroup, {
      pathParameters: groupPath(),
      claims: { scope: apiScope('dev') },
    });
    expectError(response, 401);
    expect(ddbMock.calls()).toHaveLength(0);
  });

  it('403 without the API scope', async () => {
    const response = await invoke(getGroup, {
      pathParameters: groupPath(),
      claims: { client_id: CLIENT_ID },
    });
    expect(expectError(response, 403)).toContain(apiScope('dev'));
    expect(ddbMock.calls()).toHaveLength(0);
  });

  it.each([
    ['another scope', 'https://api.dev.scheduled-payments.example/other'],
    ['the production scope on dev', apiScope('prod')],
    ['a scope that only starts like it', `${apiScope('dev')}x`],
  ])('403 with %s', async (_what, scope) => {
    const response = await invoke(getGroup, {
      pathParameters: groupPath(),
      claims: { client_id: CLIENT_ID, scope },
    });
    expectError(response, 403);
    expect(ddbMock.calls()).toHaveLength(0);
  });

  it('accepts the scope among others (space-separated)', async () => {
    storedGroup(group());
    const response = await invoke(getGroup, {
      pathParameters: groupPath(),
      claims: { client_id: CLIENT_ID, scope: `openid ${apiScope('dev')} other` },
    });
    expect(response.status).toBe(200);
  });

  it('403 when the client has no grant for the MID', async () => {
    const response = await invoke(getGroup, { pathParameters: groupPath({ MID: OTHER_MID }) });
    expect(expectError(response, 403)).toBe(
      `client ${CLIENT_ID} is not authorized for merchant ${OTHER_MID}`,
    );
    // Only the registry and the grant were looked up: nothing about the group is read for an
    // unauthorized client.
    expect(ddbMock.commandCalls(GetCommand).map((c) => c.args[0].input)).toEqual([
      { TableName: 't', Key: registryKey(OTHER_MID) },
      { TableName: 't', Key: grantKey(OTHER_MID) },
    ]);
  });

  it('403 for another client, even for a merchant granted to c1', async () => {
    const response = await invoke(getGroup, {
      pathParameters: groupPath(),
      claims: { client_id: 'c2', scope: apiScope('dev') },
    });
    expectError(response, 403);
    expect(ddbMock.commandCalls(GetCommand).map((c) => c.args[0].input.Key)).toEqual([
      registryKey(MID),
      grantKey(MID, 'c2'),
    ]);
  });

  it('authorizes before validating the body: an unauthorized client learns nothing from a 400', async () => {
    const response = await invoke(createGroup, {
      method: 'POST',
      pathParameters: { MID: OTHER_MID },
      rawBody: '{not json',
    });
    expectError(response, 403);
  });

  it('resolves an 8-digit MID through the registry to the 11-digit merchant, whose grant decides', async () => {
    storedGroup(group());
    const response = await invoke(getGroup, { pathParameters: groupPath({ MID: SHORT_MID }) });
    expect(response.status).toBe(200);
    expect(response.body.servicePayId).toBe(MID);
    expect(
      ddbMock
        .commandCalls(GetCommand)
        .slice(0, 2)
        .map((c) => c.args[0].input.Key),
    ).toEqual([registryKey(SHORT_MID), grantKey(MID)]);
  });

  it('looks the grant up on every request when AUTHZ_CACHE_SECONDS is 0 (a revoked grant takes effect)', async () => {
    storedGroup(group());
    expect((await invoke(getGroup, { pathParameters: groupPath() })).status).toBe(200);
    ddbMock.on(GetCommand, { TableName: 't', Key: grantKey(MID) }).resolves({});
    expectError(await invoke(getGroup, { pathParameters: groupPath() }), 403);
  });
});

describe('path parameters', () => {
  it.each([
    '1234567',
    '123456789',
    '1234567890',
    '123456789012',
    'abcdefgh',
    '3235000000a',
    '',
    ' 32350000001',
  ])('400 for MID %p before any DynamoDB call', async (mid) => {
    const response = await invoke(getGroup, { pathParameters: groupPath({ MID: mid }) });
    expect(expectError(response, 400)).toBe(`MID must be an 8 or 11 digit merchant ID (got "${mid}")`);
    expect(ddbMock.calls()).toHaveLength(0);
  });

  it.each([
    'not-a-uuid',
    '01890a5d-ac96-774b-bcce-b302099a805',
    '01890a5dac96774bbcceb302099a8057',
    `${GROUP_ID}0`,
  ])('400 for GroupID %p before any DynamoDB call', async (id) => {
    const response = await invoke(getGroup, { pathParameters: groupPath({ GroupID: id }) });
    expect(expectError(response, 400)).toBe(`GroupID must be a UUID (got "${id}")`);
    expect(ddbMock.calls()).toHaveLength(0);
  });

  it.each(['x', '01890a5d-ac96-774b-bcce-b302099a80zz'])(
    '400 for PaymentID %p before any DynamoDB call',
    async (id) => {
      const response = await invoke(getPayment, { pathParameters: paymentPath({ PaymentID: id }) });
      expect(expectError(response, 400)).toBe(`PaymentID must be a UUID (got "${id}")`);
      expect(ddbMock.calls()).toHaveLength(0);
    },
  );

  it('decodes percent-encoded values before checking them', async () => {
    const response = await invoke(getGroup, { pathParameters: groupPath({ MID: '3235%30000001' }) });
    expect(response.status).toBe(404);
    expect(
      ddbMock
        .commandCalls(GetCommand)
        .slice(0, 2)
        .map((c) => c.args[0].input.Key),
    ).toEqual([registryKey('32350000001'), grantKey('32350000001')]);
  });

  it.each([
    ['MID', '3235%E0%A4%A', groupPath({ MID: '3235%E0%A4%A' })],
    ['MID', '%', groupPath({ MID: '%' })],
    ['GroupID', '%zz', groupPath({ GroupID: '%zz' })],
    ['GroupID', `${GROUP_ID.slice(0, -1)}%C3`, groupPath({ GroupID: `${GROUP_ID.slice(0, -1)}%C3` })],
  ])(
    '400 for %s %p that is not validly percent-encoded, before any DynamoDB call',
    async (name, _raw, path) => {
      const response = await invoke(getGroup, { pathParameters: path });
      expect(expectError(response, 400)).toBe(`${name} is not validly percent-encoded`);
      expect(ddbMock.calls()).toHaveLength(0);
    },
  );

  it('400 for a PaymentID that is not validly percent-encoded', async () => {
    const response = await invoke(getPayment, { pathParameters: paymentPath({ PaymentID: '%E0%A4%A' }) });
    expect(expectError(response, 400)).toBe('PaymentID is not validly percent-encoded');
    expect(ddbMock.calls()).toHaveLength(0);
  });

  it('normalizes upper-case UUIDs to lower case for the lookup', async () => {
    storedGroup(group());
    const response = await invoke(getGroup, {
      pathParameters: groupPath({ GroupID: GROUP_ID.toUpperCase() }),
    });
    expect(response.status).toBe(200);
    expect(response.body.paymentGroupId).toBe(GROUP_ID);
  });

  it('normalizes upper-case payment ids too', async () => {
    // GET of a payment reads its group too (the expiring-card flag of a pending group).
    storedGroup(group());
    storedPayment(payment());
    const response = await invoke(getPayment, {
      pathParameters: paymentPath({
        GroupID: GROUP_ID.toUpperCase(),
        PaymentID: payment().paymentId.toUpperCase(),
      }),
    });
    expect(response.status).toBe(200);
    expect(response.body.paymentId).toBe(payment().paymentId);
  });
});

describe('request body', () => {
  const post = (rawBody: string | null, extra: { isBase64Encoded?: boolean } = {}) =>
    invoke(createGroup, { method: 'POST', pathParameters: { MID }, rawBody, ...extra });

  it('400 for malformed JSON', async () => {
    expect(expectError(await post('{"servicePayId": '), 400)).toBe('body is not valid JSON');
    // The authorization's two reads (the registry, the grant), nothing after.
    expect(sentCommands()).toEqual(['GetCommand', 'GetCommand']);
  });

  it.each([null, '', '   \n'])('400 for an empty body %p', async (rawBody) => {
    expect(expectError(await post(rawBody), 400)).toBe('body is required (JSON object)');
  });

  it.each(['null', '[]', '"text"', '7'])('400 for a JSON body %s that is not an object', async (rawBody) => {
    expect(expectError(await post(rawBody), 400)).toBe('body must be object');
  });

  it('400 for a body larger than MAX_BODY_BYTES, without parsing it', async () => {
    const padding = 'x'.repeat(MAX_BODY_BYTES);
    const response = await post(JSON.stringify({ ...createBody, padding }));
    expect(expectError(response, 400)).toBe(`body is too large (limit ${MAX_BODY_BYTES} bytes)`);
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('measures the size in bytes, not characters', async () => {
    // Just under the limit in characters, over it in UTF-8 bytes.
    const padding = 'é'.repeat(Math.ceil(MAX_BODY_BYTES / 2) + 10);
    const response = await post(JSON.stringify({ ...createBody, padding }));
    expect(expectError(response, 400)).toContain('body is too large');
  });

  it('decodes a base64-encoded body', async () => {
    ddbMock.on(TransactWriteCommand).resolves({});
    const response = await post(Buffer.from(JSON.stringify(createBody)).toString('base64'), {
      isBase64Encoded: true,
    });
    expect(response.status).toBe(201);
    expect(response.body.scheduleDate).toBe(FUTURE_DATE);
  });

  it('defect: a repeated Idempotency-Key header was taken as its last value (API Gateway passes that one in headers, every one in multiValueHeaders): 400 naming the header, nothing written', async () => {
    const response = await invoke(createGroup, {
      method: 'POST',
      pathParameters: { MID },
      body: createBody,
      headers: { 'Idempotency-Key': 'second' },
      multiValueHeaders: { 'Idempotency-Key': ['first', 'second'] },
    });
    expect(expectError(response, 400)).toBe(
      'Idempotency-Key must be one value of 1-100 characters of letters, digits and _ . : -',
    );
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(0);
    expect(sentCommands().filter((c) => c !== 'GetCommand')).toEqual([]);
  });

  it('400 for "deleted" in a PUT group body, before any write', async () => {
    storedGroup(group());
    const response = await invoke(updateGroup, {
      method: 'PUT',
      pathParameters: groupPath(),
      body: { deleted: true },
    });
    expect(expectError(response, 400)).toBe('deleted cannot be set by PUT; use DELETE on the group');
    // The authorization's two reads (the registry, the grant), nothing after.
    expect(sentCommands()).toEqual(['GetCommand', 'GetCommand']);
  });

  it('400 for "deleted": false too', async () => {
    const response = await invoke(updateGroup, {
      method: 'PUT',
      pathParameters: groupPath(),
      body: { scheduleHour: 10, deleted: false },
    });
    expect(expectError(response, 400)).toContain('deleted cannot be set by PUT');
  });
});

describe('error mapping', () => {
  it('503 for a DynamoDB ThrottlingException', async () => {
    ddbMock
      .on(GetCommand, { Key: { pk: `GROUP#${GROUP_ID}` } })
      .rejects(awsError('ThrottlingException', 'Rate exceeded'));
    const response = await invoke(getGroup, { pathParameters: groupPath() });
    expect(expectError(response, 503)).toBe('Service temporarily unavailable; retry with backoff');
  });

  it.each(['ProvisionedThroughputExceededException', 'RequestLimitExceeded', 'InternalServerError'])(
    '503 for %s',
    async (name) => {
      ddbMock.on(GetCommand, { Key: { pk: `GROUP#${GROUP_ID}` } }).rejects(awsError(name));
      expectError(await invoke(getGroup, { pathParameters: groupPath() }), 503);
    },
  );

  it('503 when the grant lookup itself is throttled', async () => {
    ddbMock.on(GetCommand, { Key: grantKey(MID) }).rejects(awsError('ThrottlingException'));
    expectError(await invoke(getGroup, { pathParameters: groupPath() }), 503);
  });

  it('500 with a generic body and no internals for an unknown error; the error is logged', async () => {
    const error = new Error('secret internal detail at /var/task/index.js:1');
    ddbMock.on(GetCommand, { Key: { pk: `GROUP#${GROUP_ID}` } }).rejects(error);
    const logged = jest.spyOn(logger, 'error');
    try {
      const response = await invoke(getGroup, { pathParameters: groupPath() });
      expect(response.status).toBe(500);
      expect(response.body).toEqual({ message: 'Internal server error', responseCode: 500 });
      expect(response.raw).not.toContain('secret');
      expect(response.raw).not.toContain('stack');
      expect(logged).toHaveBeenCalledWith('unexpected error', expect.objectContaining({ error }));
    } finally {
      logged.mockRestore();
    }
  });

  it('500 for a non-Error throw value', async () => {
    ddbMock.on(GetCommand, { Key: { pk: `GROUP#${GROUP_ID}` } }).callsFake(() => {
      throw 'a string';
    });
    const response = await invoke(getGroup, { pathParameters: groupPath() });
    expect(response.body).toEqual({ message: 'Internal server error', responseCode: 500 });
  });

  it('maps typed errors to their status with the same body shape', () => {
    const cases: [Error, number][] = [
      [new BadRequestError('bad'), 400],
      [new GroupNotFoundError(GROUP_ID), 404],
      [new ConflictError('dup'), 409],
      [new ServiceUnavailableError('busy'), 503],
    ];
    for (const [error, status] of cases) {
      const result = errorResponse(error);
      expect(result.statusCode).toBe(status);
      expect(result.headers).toEqual({ 'content-type': 'application/json' });
      expect(JSON.parse(result.body)).toEqual({ message: error.message, responseCode: status });
    }
  });

  it('defect "a time-out answered 500": middy\'s early time-out and a processor without an answer are 503s', () => {
    const timeout = new Error('[AbortError]: The operation was aborted.', {
      cause: { package: '@middy/core' },
    });
    timeout.name = 'TimeoutError';
    const unanswered = new ProcessorUnavailableError('processor refund gave no answer within 3000 ms');
    for (const [error, message] of [
      [timeout, 'The request ran out of time before it finished; retry with backoff'],
      [unanswered, 'The payment processor gave no answer in time; retry with backoff'],
    ] as const) {
      const result = errorResponse(error);
      expect(result.statusCode).toBe(503);
      expect(JSON.parse(result.body)).toEqual({ message, responseCode: 503 });
    }
    // Another error of that name is still unexpected.
    const other = new Error('elsewhere');
    other.name = 'TimeoutError';
    expect(errorResponse(other).statusCode).toBe(500);
  });

  it('404 for a group that does not exist, with the id in the message', async () => {
    const response = await invoke(getGroup, { pathParameters: groupPath() });
    expect(expectError(response, 404)).toBe(`payment group ${GROUP_ID} not found`);
  });

  it("404 for another merchant's group (no existence leak)", async () => {
    storedGroup(group({ merchantId: OTHER_MID }));
    const response = await invoke(getGroup, { pathParameters: groupPath() });
    expect(expectError(response, 404)).toBe(`payment group ${GROUP_ID} not found`);
  });
});

describe('success responses', () => {
  it('are JSON with a content-type header', async () => {
    storedGroup(group());
    const response = await invoke(getGroup, { pathParameters: groupPath() });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.body).toMatchObject({ paymentGroupId: GROUP_ID, servicePayId: MID, totalAmount: 19.99 });
    for (const internal of [
      'pk',
      'sk',
      'entity',
      'gsi1pk',
      'gsi1sk',
      'gsi2pk',
      'gsi2sk',
      'merchantId',
      'totalCents',
    ]) {
      expect(response.body).not.toHaveProperty(internal);
    }
  });
});
