import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { declineOf } from '#domain/declines';
import { ProcessorUnavailableError, type SaleRequest, type SaleResult } from '#processor/processor';
import { nextCutoff, SandboxProcessor, SANDBOX_CARDS } from '#processor/sandbox';
import { fixedAccounts } from '#processor/stripe/accounts';

const ddbMock = mockClient(DynamoDBDocumentClient);
const db = DynamoDBDocumentClient.from(
  new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } }),
);
const HOURLY_AT_30 = { periodSeconds: 3600, offsetSeconds: 1800 };
const sandbox = new SandboxProcessor(db, 't', HOURLY_AT_30);

beforeEach(() => {
  ddbMock.reset();
  ddbMock.onAnyCommand().callsFake((input: unknown) => {
    throw new Error(`unmocked DynamoDB command: ${JSON.stringify(input)}`);
  });
  ddbMock.on(PutCommand).resolves({});
});

const awsError = (name: string): Error => Object.assign(new Error(name), { name });

const tokenOf = async (number: string) =>
  (
    await sandbox.tokenize({
      merchantId: '32350000001',
      payorId: 'payor-1',
      kind: 'card',
      number,
      expiryMonth: 12,
      expiryYear: 2030,
    })
  ).token;

let keys = 0;
const saleOf = async (number: string, amountCents = 1999, allowPartial = false): Promise<SaleResult> => {
  const request: SaleRequest = {
    idempotencyKey: `k${++keys}`,
    keyFirstUsedAt: new Date().toISOString(),
    merchantId: '32350000001',
    token: await tokenOf(number),
    amountCents,
    allowPartial,
  };
  return sandbox.sale(request);
};

describe('nextCutoff', () => {
  it.each([
    ['2026-05-10T14:37:12.345Z', '2026-05-10T15:30:00.000Z'],
    ['2026-05-10T14:10:00.000Z', '2026-05-10T14:30:00.000Z'],
    ['2026-05-10T14:29:59.999Z', '2026-05-10T14:30:00.000Z'],
    ['2026-05-10T14:30:00.000Z', '2026-05-10T15:30:00.000Z'],
    ['2026-05-10T14:30:00.001Z', '2026-05-10T15:30:00.000Z'],
    ['2026-05-10T23:45:00.000Z', '2026-05-11T00:30:00.000Z'],
    ['2026-12-31T23:30:00.000Z', '2027-01-01T00:30:00.000Z'],
  ])('every hour at :30: after %p comes %p', (processedAt, cutoff) => {
    expect(nextCutoff(processedAt, HOURLY_AT_30)).toBe(cutoff);
  });

  it.each([
    ['2026-05-10T14:37:12.345Z', '2026-05-10T14:40:00.000Z'],
    ['2026-05-10T14:40:00.000Z', '2026-05-10T14:45:00.000Z'],
    ['2026-05-10T14:44:59.999Z', '2026-05-10T14:45:00.000Z'],
    ['2026-05-10T23:58:00.000Z', '2026-05-11T00:00:00.000Z'],
  ])('every 300 s from the epoch: after %p comes %p', (processedAt, cutoff) => {
    expect(nextCutoff(processedAt, { periodSeconds: 300, offsetSeconds: 0 })).toBe(cutoff);
  });

  it('is what settlementTime answers', () => {
    expect(sandbox.settlementTime('2026-05-10T14:37:12.345Z')).toBe('2026-05-10T15:30:00.000Z');
    const local = new SandboxProcessor(db, 't', { periodSeconds: 300, offsetSeconds: 0 });
    expect(local.settlementTime('2026-05-10T14:37:12.345Z')).toBe('2026-05-10T14:40:00.000Z');
  });
});

describe('tokenize', () => {
  it.each(Object.entries(SANDBOX_CARDS))(
    'encodes the profile of %p, never the number',
    async (number, profile) => {
      const token = await tokenOf(number);
      expect(token).toMatch(new RegExp(`^sbx\\.${profile}\\.[0-9a-f]{24}$`));
      expect(token).not.toContain(number);
      // The rest is random, not from the number: another tokenization of it gives another one.
      // (Random hex may hold the last four digits by chance, so those are looked for in the
      // profile part only; a test that looked in the whole token failed now and then.)
      const again = await tokenOf(number);
      expect(again.split('.')[2]).not.toBe(token.split('.')[2]);
      expect(token.split('.').slice(0, 2).join('.')).not.toContain(number.slice(-4));
    },
  );

  it.each(['4111111111111111', '5555555555554444', '378282246310005', '6011111111111117'])(
    'an ordinary card %p gets the "ok" profile',
    async (number) => {
      const token = await tokenOf(number);
      expect(token).toMatch(/^sbx\.ok\.[0-9a-f]{24}$/);
      expect(token).not.toContain(number);
    },
  );

  it('a bank account gets the "bank" profile, without the account or routing number', async () => {
    const { token } = await sandbox.tokenize({
      merchantId: '32350000001',
      payorId: 'payor-1',
      kind: 'bank',
      routingNumber: '021000021',
      accountNumber: '000123456789',
      accountType: 'CHECKING',
    });
    expect(token).toMatch(/^sbx\.bank\.[0-9a-f]{24}$/);
    expect(token).not.toContain('000123456789');
    expect(token).not.toContain('021000021');
  });

  it('gives a new token each time, even for the same number', async () => {
    expect(await tokenOf('4111111111111111')).not.toBe(await tokenOf('4111111111111111'));
  });

  it('touches no table', async () => {
    await tokenOf('4111111111111111');
    expect(ddbMock.calls()).toHaveLength(0);
  });
});

describe('sale outcomes (docs/integrating.md#sandbox-processor table)', () => {
  it.each(['4111111111111111', '5555555555554444', '378282246310005', '6011111111111117'])(
    '%p approves the full amount: 00',
    async (number) => {
      const result = await saleOf(number, 1999);
      expect(result).toMatchObject({
        approved: true,
        responseCode: '00',
        responseMessage: 'Approved',
        approvedCents: 1999,
      });
      expect(result.authCode).toMatch(/^[0-9A-F]{6}$/);
      expect(result.processorTransactionId).toMatch(/^sbx_[0-9a-f-]{36}$/);
      expect(Number.isNaN(Date.parse(result.processedAt))).toBe(false);
    },
  );

  it.each([
    ['4000000000000002', '05', 'Do not honor', '1'],
    ['4000000000009987', '41', 'Lost card', '1'],
    ['4000000000009979', '43', 'Stolen card', '1'],
    ['4000000000000069', '54', 'Expired card', '1'],
    ['4000000000000127', 'N7', 'Invalid security code', '1'],
    ['4000000000009995', '51', 'Insufficient funds', '2'],
    ['4000000000000119', '91', 'Issuer unavailable', '2'],
    ['4000000000006975', '61', 'Daily limit exceeded', '2'],
  ])('%p declines with %p (%s), category %p', async (number, code, message, category) => {
    const result = await saleOf(number);
    expect(result).toMatchObject({
      approved: false,
      responseCode: code,
      responseMessage: message,
      approvedCents: 0,
    });
    expect(result).not.toHaveProperty('authCode');
    expect(declineOf(result.responseCode).category).toBe(category);
  });

  it('a bank account (CHECKING) approves, its clearing planned at the 2nd cut-off after its settlement with its ledger entry', async () => {
    ddbMock.on(TransactWriteCommand).resolves({});
    const { token } = await sandbox.tokenize({
      merchantId: '32350000001',
      payorId: 'payor-1',
      kind: 'bank',
      routingNumber: '021000021',
      accountNumber: '000123456789',
      accountType: 'CHECKING',
    });
    const result = await sandbox.sale({
      keyFirstUsedAt: new Date().toISOString(),
      idempotencyKey: 'bank-1',
      merchantId: '32350000001',
      token,
      amountCents: 123456,
      allowPartial: false,
    });
    expect(result).toMatchObject({ approved: true, responseCode: '00', approvedCents: 123456 });
    const [write] = ddbMock.commandCalls(TransactWriteCommand);
    const items = write!.args[0].input.TransactItems!.map((t) => t.Put!.Item!);
    expect(items.map((i) => i.entity)).toEqual(['sandbox-ledger', 'sandbox-notice']);
    const settlesAt = Date.parse(nextCutoff(result.processedAt, HOURLY_AT_30));
    expect(items[1]).toMatchObject({
      kind: 'cleared',
      idempotencyKey: 'bank-1',
      processorTransactionId: result.processorTransactionId,
      dueAt: new Date(settlesAt + 2 * 3600_000).toISOString(),
    });
  });

  it.each([
    ['4000000000000259', 'fraudulent', 'lost'],
    ['4000000000002685', 'product_not_received', 'won'],
  ])(
    '%p approves, its dispute (%s) planned at the 1st cut-off after its settlement and closed %s at the 3rd, with its ledger entry',
    async (number, reason, closed) => {
      ddbMock.on(TransactWriteCommand).resolves({});
      const result = await saleOf(number, 3000);
      expect(result).toMatchObject({ approved: true, responseCode: '00', approvedCents: 3000 });
      const [write] = ddbMock.commandCalls(TransactWriteCommand);
      const items = write!.args[0].input.TransactItems!.map((t) => t.Put!.Item!);
      expect(items.map((i) => i.entity)).toEqual(['sandbox-ledger', 'sandbox-notice', 'sandbox-notice']);
      const settlesAt = Date.parse(nextCutoff(result.processedAt, HOURLY_AT_30));
      const disputeId = `sbxd_${result.processorTransactionId.slice(4)}`;
      expect(items[1]).toMatchObject({
        kind: 'dispute_opened',
        disputeId,
        status: 'needs_response',
        reason,
        amountCents: 3000,
        sequence: 1,
        dueAt: new Date(settlesAt + 3600_000).toISOString(),
      });
      expect(items[2]).toMatchObject({
        kind: 'dispute_closed',
        disputeId,
        status: closed,
        reason,
        sequence: 2,
        dueAt: new Date(settlesAt + 3 * 3600_000).toISOString(),
      });
    },
  );

  describe('4000000000000077: approves up to 50.00', () => {
    const PARTIAL = '4000000000000077';

    it.each([1, 4999, 5000])('%p cents: approved in full, 00', async (cents) => {
      for (const allowPartial of [false, true]) {
        const result = await saleOf(PARTIAL, cents, allowPartial);
        expect(result).toMatchObject({ approved: true, responseCode: '00', approvedCents: cents });
      }
    });

    it.each([5001, 10000, 99999999])(
      '%p cents with allowPartial: partially approved for 50.00, 10',
      async (cents) => {
        const result = await saleOf(PARTIAL, cents, true);
        expect(result).toMatchObject({
          approved: true,
          responseCode: '10',
          responseMessage: 'Partially approved',
          approvedCents: 5000,
        });
        expect(result.authCode).toMatch(/^[0-9A-F]{6}$/);
      },
    );

    it.each([5001, 10000])(
      '%p cents without allowPartial: declined for insufficient funds, 51',
      async (cents) => {
        const result = await saleOf(PARTIAL, cents, false);
        expect(result).toMatchObject({
          approved: false,
          responseCode: '51',
          responseMessage: 'Insufficient funds',
          approvedCents: 0,
        });
        expect(declineOf(result.responseCode).category).toBe('2');
      },
    );
  });
});

describe('the sandbox ledger (idempotency of processor calls)', () => {
  it('records a sale once under its key, with the result and no card number', async () => {
    const token = await tokenOf('4000000000009995');
    const result = await sandbox.sale({
      keyFirstUsedAt: new Date().toISOString(),
      idempotencyKey: 'pay-1',
      merchantId: '32350000001',
      token,
      amountCents: 1999,
      allowPartial: false,
    });
    const puts = ddbMock.commandCalls(PutCommand).map((c) => c.args[0].input);
    expect(puts).toEqual([
      {
        TableName: 't',
        Item: {
          pk: 'SANDBOX#SALE#pay-1',
          sk: 'LEDGER',
          // The day index (listActivity): a shard of the day's partitions, sorted by time then kind and key.
          gsi1pk: expect.stringMatching(new RegExp(`^SANDBOX#DAY#${result.processedAt.slice(0, 10)}#[0-7]$`)),
          gsi1sk: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z#SALE#pay-1$/),
          entity: 'sandbox-ledger',
          kind: 'SALE',
          idempotencyKey: 'pay-1',
          merchantId: '32350000001',
          amountCents: 1999,
          at: expect.any(String),
          result,
          calls: 1,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    ]);
    expect(JSON.stringify(puts)).not.toContain('4000000000009995');
    expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(0);
    expect(ddbMock.commandCalls(GetCommand)).toHaveLength(0);
  });

  it('a repeated key returns the recorded result, charges nothing new and counts the call', async () => {
    const Key = { pk: 'SANDBOX#SALE#pay-2', sk: 'LEDGER' };
    const recorded: SaleResult = {
      approved: true,
      processorTransactionId: 'sbx_first',
      responseCode: '00',
      responseMessage: 'Approved',
      approvedCents: 1999,
      authCode: 'ABC123',
      processedAt: '2026-05-10T14:37:12.345Z',
    };
    ddbMock.on(PutCommand).rejects(awsError('ConditionalCheckFailedException'));
    ddbMock.on(UpdateCommand).resolves({});
    ddbMock
      .on(GetCommand)
      .resolves({ Item: { ...Key, entity: 'sandbox-ledger', result: recorded, calls: 2 } });

    // Even a different card and amount under the same key: the first answer stands.
    const result = await sandbox.sale({
      keyFirstUsedAt: new Date().toISOString(),
      idempotencyKey: 'pay-2',
      merchantId: '32350000001',
      token: await tokenOf('4000000000000002'),
      amountCents: 5000,
      allowPartial: false,
    });

    expect(result).toEqual(recorded);
    expect(ddbMock.commandCalls(PutCommand)).toHaveLength(1);
    const updates = ddbMock.commandCalls(UpdateCommand).map((c) => c.args[0].input);
    expect(updates).toEqual([
      { TableName: 't', Key, UpdateExpression: 'ADD calls :one', ExpressionAttributeValues: { ':one': 1 } },
    ]);
    const gets = ddbMock.commandCalls(GetCommand).map((c) => c.args[0].input);
    expect(gets).toEqual([{ TableName: 't', Key, ConsistentRead: true }]);
  });

  it('passes any other ledger failure on, without reading or counting', async () => {
    ddbMock.on(PutCommand).rejects(awsError('ThrottlingException'));
    await expect(saleOf('4111111111111111')).rejects.toThrow('ThrottlingException');
    expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(0);
    expect(ddbMock.commandCalls(GetCommand)).toHaveLength(0);
  });

  it.each([
    ['void', 'VOID', 'Voided'],
    ['refund', 'REFUND', 'Refund accepted'],
  ] as const)('%s: approved 00 and recorded under its own kind of key', async (method, kind, message) => {
    ddbMock.on(TransactWriteCommand).resolves({});
    const result = await sandbox[method]({
      idempotencyKey: 'rev-1',
      merchantId: '32350000001',
      processorTransactionId: 'sbx_sale',
      amountCents: 1999,
    });
    expect(result).toMatchObject({ approved: true, responseCode: '00', responseMessage: message });
    expect(result.processorTransactionId).toMatch(/^sbx_/);
    const [put] = [
      ...ddbMock.commandCalls(PutCommand).map((c) => c.args[0].input),
      ...ddbMock.commandCalls(TransactWriteCommand).map((c) => c.args[0].input.TransactItems![0]!.Put!),
    ];
    expect(put!.Item).toMatchObject({ pk: `SANDBOX#${kind}#rev-1`, sk: 'LEDGER', kind, result });
  });

  it.each([
    ['a conflict', 'TransactionConflict'],
    ['throttling', 'ThrottlingError'],
  ])(
    'defect: a void whose transaction was cancelled for %s was taken for a replay (a ledger entry with no result, and every later call under its key answered undefined); it now fails, for its caller to ask again',
    async (_, code) => {
      const cancelled = Object.assign(awsError('TransactionCanceledException'), {
        CancellationReasons: [{ Code: code }, { Code: 'None' }],
      });
      ddbMock.on(TransactWriteCommand).rejects(cancelled);
      ddbMock.on(UpdateCommand).resolves({});
      ddbMock.on(GetCommand).resolves({ Item: { calls: 1 } });
      const request = {
        idempotencyKey: 'rev-3',
        merchantId: '32350000001',
        processorTransactionId: 'sbx_sale',
      };
      await expect(sandbox.void({ ...request, amountCents: 1999 })).rejects.toThrow(
        'TransactionCanceledException',
      );
      expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(0);
    },
  );

  it('a void whose transaction was cancelled with no failed condition on its ledger entry passes the error on, and replays nothing', async () => {
    ddbMock.on(TransactWriteCommand).rejects(awsError('TransactionCanceledException'));
    ddbMock.on(UpdateCommand).resolves({});
    const request = {
      idempotencyKey: 'rev-5',
      merchantId: '32350000001',
      processorTransactionId: 'sbx_sale',
    };
    await expect(sandbox.void({ ...request, amountCents: 1999 })).rejects.toThrow(
      'TransactionCanceledException',
    );
    expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('a void whose ledger entry exists (its condition refused the transaction) replays it', async () => {
    const recorded = {
      approved: true,
      processorTransactionId: 'sbx_void',
      responseCode: '00',
      responseMessage: 'Voided',
      processedAt: '2026-05-10T14:37:12.345Z',
    };
    const refused = Object.assign(awsError('TransactionCanceledException'), {
      CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }],
    });
    ddbMock.on(TransactWriteCommand).rejects(refused);
    ddbMock.on(UpdateCommand).resolves({});
    ddbMock.on(GetCommand).resolves({ Item: { result: recorded, calls: 2 } });
    const request = {
      idempotencyKey: 'rev-4',
      merchantId: '32350000001',
      processorTransactionId: 'sbx_sale',
    };
    expect(await sandbox.void({ ...request, amountCents: 1999 })).toEqual(recorded);
    expect(ddbMock.commandCalls(UpdateCommand)).toHaveLength(1);
  });

  it('a void marks its charge voided in the same write as its ledger entry (its notices are never sent)', async () => {
    ddbMock.on(TransactWriteCommand).resolves({});
    const request = {
      idempotencyKey: 'rev-2',
      merchantId: '32350000001',
      processorTransactionId: 'sbx_sale',
    };
    await sandbox.void({ ...request, amountCents: 1999 });
    const [write] = ddbMock.commandCalls(TransactWriteCommand);
    expect(write!.args[0].input.TransactItems!.map((t) => t.Put!.Item!.pk)).toEqual([
      'SANDBOX#VOID#rev-2',
      'SANDBOX#VOIDED#sbx_sale',
    ]);
  });
});

describe('reverseUnanswered (timeout reversal)', () => {
  /** The ledger entry the reversal reads: none, unless a test says otherwise. */
  beforeEach(() => ddbMock.on(GetCommand).resolves({}));

  const approvedSale = (key: string) => ({
    pk: `SANDBOX#SALE#${key}`,
    sk: 'LEDGER',
    calls: 1,
    result: { approved: true, processorTransactionId: 'sbx_landed', responseCode: '00', approvedCents: 4000 },
  });

  it('writes a declined 96 result as the ledger entry of a key that has none, on condition that it still has none', async () => {
    await sandbox.reverseUnanswered({ idempotencyKey: 'lost-1' });
    const puts = ddbMock.commandCalls(PutCommand).map((c) => c.args[0].input);
    expect(puts).toHaveLength(1);
    const put = puts[0]!;
    expect(put.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(put.Item).toEqual({
      pk: 'SANDBOX#SALE#lost-1',
      sk: 'LEDGER',
      gsi1pk: expect.stringMatching(/^SANDBOX#DAY#\d{4}-\d\d-\d\d#[0-7]$/),
      gsi1sk: expect.stringMatching(/#SALE#lost-1$/),
      entity: 'sandbox-ledger',
      kind: 'SALE',
      idempotencyKey: 'lost-1',
      at: expect.any(String),
      result: {
        approved: false,
        processorTransactionId: expect.stringMatching(/^sbx_/),
        responseCode: '96',
        responseMessage: 'Reversed: the processor did not answer in time',
        approvedCents: 0,
        processedAt: expect.any(String),
      },
      calls: 0,
      reversed: true,
    });
    expect(declineOf('96').category).toBe('2');
  });

  it('replaces an approved sale that got there, while it is the entry it read, and marks the charge so that its planned notices are never sent', async () => {
    ddbMock.on(GetCommand).resolves({ Item: approvedSale('lost-4') });
    ddbMock.on(TransactWriteCommand).resolves({});
    await sandbox.reverseUnanswered({ idempotencyKey: 'lost-4', merchantId: '32350000001' });
    expect(ddbMock.commandCalls(PutCommand)).toHaveLength(0);
    const [write] = ddbMock.commandCalls(TransactWriteCommand);
    const [entry, mark] = write!.args[0].input.TransactItems!.map((item) => item.Put!);
    expect(entry).toMatchObject({
      Item: { pk: 'SANDBOX#SALE#lost-4', reversed: true, result: { approved: false, responseCode: '96' } },
      ConditionExpression: '#result.#charge = :read',
      ExpressionAttributeNames: { '#result': 'result', '#charge': 'processorTransactionId' },
      ExpressionAttributeValues: { ':read': 'sbx_landed' },
    });
    expect(mark!.Item).toEqual({
      pk: 'SANDBOX#VOIDED#sbx_landed',
      sk: 'LEDGER',
      entity: 'sandbox-voided',
      processorTransactionId: 'sbx_landed',
      voidedAt: (entry!.Item!.result as SaleResult).processedAt,
    });
  });

  it('reads the entry again when a sale landed between its read and its write', async () => {
    ddbMock
      .on(GetCommand)
      .resolvesOnce({})
      .resolves({ Item: approvedSale('lost-5') });
    ddbMock.on(PutCommand).rejects(awsError('ConditionalCheckFailedException'));
    ddbMock.on(TransactWriteCommand).resolves({});
    await sandbox.reverseUnanswered({ idempotencyKey: 'lost-5' });
    expect(ddbMock.commandCalls(GetCommand)).toHaveLength(2);
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });

  it('passes a ledger failure on', async () => {
    ddbMock.on(PutCommand).rejects(awsError('ThrottlingException'));
    await expect(sandbox.reverseUnanswered({ idempotencyKey: 'lost-3' })).rejects.toThrow(
      'ThrottlingException',
    );
  });

  it('reads again after a conflict, and after five reads whose writes were refused or met a conflict answers that the processor is unavailable (the sweeper reverses later)', async () => {
    ddbMock.on(GetCommand).resolves({ Item: approvedSale('lost-6') });
    const conflict = Object.assign(awsError('TransactionCanceledException'), {
      CancellationReasons: [{ Code: 'TransactionConflict' }, { Code: 'None' }],
    });
    ddbMock.on(TransactWriteCommand).rejectsOnce(conflict).resolves({});
    await sandbox.reverseUnanswered({ idempotencyKey: 'lost-6' });
    expect(ddbMock.commandCalls(GetCommand)).toHaveLength(2);

    ddbMock.resetHistory();
    const refused = Object.assign(awsError('TransactionCanceledException'), {
      CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }],
    });
    ddbMock.on(TransactWriteCommand).rejects(refused);
    const given = sandbox.reverseUnanswered({ idempotencyKey: 'lost-6' });
    await expect(given).rejects.toBeInstanceOf(ProcessorUnavailableError);
    await expect(given).rejects.toThrow('the sandbox could not record the timeout reversal');
    expect(ddbMock.commandCalls(GetCommand)).toHaveLength(5);
    expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(5);
  });

  it('a later sale with the key gets the reversed answer back, not a new charge', async () => {
    await sandbox.reverseUnanswered({ idempotencyKey: 'lost-2' });
    const reversed = ddbMock.commandCalls(PutCommand)[0]!.args[0].input.Item!;
    ddbMock.on(PutCommand).rejects(awsError('ConditionalCheckFailedException'));
    ddbMock.on(UpdateCommand).resolves({});
    ddbMock.on(GetCommand).resolves({ Item: { ...reversed, calls: 1 } });
    const result = await sandbox.sale({
      keyFirstUsedAt: new Date().toISOString(),
      idempotencyKey: 'lost-2',
      merchantId: '32350000001',
      token: await tokenOf('4111111111111111'),
      amountCents: 1999,
      allowPartial: false,
    });
    expect(result).toEqual(reversed.result);
    expect(result).toMatchObject({ approved: false, responseCode: '96', approvedCents: 0 });
  });
});

describe('the processor registry', () => {
  /** The registry and the sandbox module, loaded in their own module registry. */
  const load = (processor: string) => {
    const saved = { ...process.env };
    Object.assign(process.env, { TABLE_NAME: 't', PROCESSOR: processor, AWS_REGION: 'us-east-1' });
    try {
      let loaded: typeof import('#processor/index') | undefined;
      let sandboxModule: typeof import('#processor/sandbox') | undefined;
      jest.isolateModules(() => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        sandboxModule = require('#processor/sandbox');
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        loaded = require('#processor/index');
      });
      return Object.assign(loaded!, { sandboxModule: sandboxModule! });
    } finally {
      process.env = saved;
    }
  };

  it('builds the sandbox adapter for PROCESSOR=sandbox, wrapped in the processor timeout', () => {
    // Its own module registry: the class is another copy, the one loaded with the registry.
    const registry = load('sandbox');
    const { SandboxProcessor: Isolated } = registry.sandboxModule;
    const settlementTime = jest.spyOn(Isolated.prototype, 'settlementTime').mockReturnValue('settles');
    const adapter = registry.configuredProcessor({ merchantAccounts: () => fixedAccounts({}) });
    // The calls go to a sandbox adapter, through the wrapper that bounds them (processor/timeout.ts).
    expect(adapter.settlementTime('2030-01-01T00:00:00.000Z')).toBe('settles');
    expect(settlementTime).toHaveBeenCalledWith('2030-01-01T00:00:00.000Z');
    expect(adapter).not.toBeInstanceOf(Isolated);
    settlementTime.mockRestore();
  });

  it('fails at load on an unknown PROCESSOR, naming the available adapters', () => {
    expect(() => load('acme')).toThrow('PROCESSOR=acme is not an available adapter (sandbox, stripe)');
  });
});

describe('the ledger read', () => {
  it('reads the entry of a kind and key, consistently', async () => {
    ddbMock.reset();
    const Item = { pk: 'SANDBOX#REFUND#refund:r-1', sk: 'LEDGER', calls: 2 };
    ddbMock.on(GetCommand).resolves({ Item });
    expect(await sandbox.ledger('REFUND', 'refund:r-1')).toEqual(Item);
    expect(ddbMock.commandCalls(GetCommand)[0]!.args[0].input).toEqual({
      TableName: 't',
      Key: { pk: 'SANDBOX#REFUND#refund:r-1', sk: 'LEDGER' },
      ConsistentRead: true,
    });
  });
});
