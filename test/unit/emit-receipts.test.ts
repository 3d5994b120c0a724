import '#support/handlers/env';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Payment } from '#domain/groups';
import { reloadConfigForTests } from '#shared/config';
import { emptyTotals, type ReceiptRange } from '#domain/processing';
import type { Transaction } from '#domain/transactions';
import { paymentItem } from '#store/payments';
import type { ReceiptState } from '#core/receipts';
import { handler } from '#lambdas/process-group/emit-receipts';
import {
  awsError,
  ddbMock,
  payorLookups,
  EMAIL_PROJECTION,
  GROUP_ID,
  lambdaContext,
  MERCHANT_NAME,
  MID,
  payment,
  payorEmail,
  resetDb,
  sentCommands,
} from '#support/handlers/invoke';

type AnyItem = Record<string, any>;
type Handler = (state: ReceiptState, context: typeof lambdaContext) => Promise<ReceiptState>;
const emit = (state: ReceiptState) => (handler as unknown as Handler)(state, lambdaContext);

const state = (over: Partial<ReceiptState> = {}): ReceiptState => ({
  paymentGroupId: GROUP_ID,
  merchantId: MID,
  claimed: true,
  allowPartial: false,
  cursor: null,
  totals: emptyTotals(),
  batches: 1,
  receiptCursor: null,
  receiptsDone: false,
  ...over,
});

const id = (n: number) => `01890a5d-ac96-774b-bcce-${String(n).padStart(12, '0')}`;
const txnId = (n: number) => `7a1c0000-0000-5000-8000-${String(n).padStart(12, '0')}`;

/** A processed payment `n` whose sale is transaction `txnId(n)` with this authResponse status. */
const processed = (n: number, status: string, over: Partial<Payment> = {}): Payment =>
  payment({
    paymentId: id(n),
    sendEmailReceipt: true,
    // Only the fields the receipts step reads.
    authResponse: { status, transactionId: txnId(n) } as Payment['authResponse'],
    ...over,
  });

const transaction = (n: number, over: Partial<Transaction> = {}): Transaction => ({
  transactionId: txnId(n),
  merchantId: MID,
  type: 'sale',
  status: 'Approved',
  responseCode: '00',
  responseMessage: 'Approved',
  amountCents: 1999,
  approvedCents: 1999,
  isDuplicate: false,
  profileId: 'payor1/method1',
  payorId: 'payor1',
  savedPaymentMethodId: 'method1',
  accountType: 'VISA',
  maskedAccountNumber: '************1111',
  paymentId: id(n),
  processedAt: '2099-06-01T09:00:12.000Z',
  settlesAt: '2099-06-01T09:30:00.000Z',
  refundedCents: 0,
  refundCount: 0,
  ...over,
});

let pages: { payments: Payment[]; last?: string }[];
let transactions: Map<string, Transaction>;

beforeEach(() => {
  resetDb();
  pages = [];
  transactions = new Map();
  // The last page takes the group out of the due index (claims.receiptsQueued).
  ddbMock.on(UpdateCommand).resolves({});
  ddbMock.on(QueryCommand).callsFake((input: { ExpressionAttributeValues: Record<string, string> }) => {
    const pk = input.ExpressionAttributeValues[':pk']!;
    if (pk === `GROUP#${GROUP_ID}`) {
      const page = pages.shift() ?? { payments: [] };
      return {
        Items: page.payments.map(paymentItem),
        ...(page.last && { LastEvaluatedKey: { pk, sk: page.last } }),
      };
    }
    if (pk.startsWith('TXN#')) {
      const txn = transactions.get(pk.slice('TXN#'.length));
      return { Items: txn ? [{ pk, sk: 'TXN', entity: 'transaction', ...txn }] : [] };
    }
    throw new Error(`unexpected query ${pk}`);
  });
  ddbMock
    .on(GetCommand, { Key: { pk: `MID#${MID}`, sk: 'MERCHANT' } })
    .resolves({ Item: { pk: `MID#${MID}`, sk: 'MERCHANT', merchantId: MID, name: MERCHANT_NAME } });
  // The group as the last page's run end reads it: processed, in the due index, no retry scheduled.
  ddbMock.on(GetCommand, { Key: { pk: `GROUP#${GROUP_ID}`, sk: 'GROUP' } }).resolves({
    Item: {
      pk: `GROUP#${GROUP_ID}`,
      sk: 'GROUP',
      entity: 'group',
      paymentGroupId: GROUP_ID,
      merchantId: MID,
      status: 'processed',
      gsi2pk: 'DUE#0',
    },
  });
  ddbMock.on(PutCommand).resolves({});
  payorEmail('payor1', 'one@example.com');
  payorEmail('payor2', undefined);
});

const puts = () => ddbMock.commandCalls(PutCommand).map((c) => c.args[0].input as AnyItem);
const txnReads = () =>
  ddbMock
    .commandCalls(QueryCommand)
    .map((c) => c.args[0].input.ExpressionAttributeValues![':pk'] as string)
    .filter((pk) => pk.startsWith('TXN#'));

describe('EmitReceipts', () => {
  it('queues a receipt only for approved, unvoided, flagged, live payments of payors with an e-mail', async () => {
    pages = [
      {
        payments: [
          processed(1, 'Approved', { orderId: 'INV-1' }),
          processed(2, 'Approved', { sendEmailReceipt: false }),
          processed(3, 'Declined'),
          processed(4, 'Approved', { deleted: true }),
          processed(5, 'Approved'),
          processed(6, 'Approved', { profileId: 'payor2/method2' }),
          processed(7, 'Failed'),
          processed(8, 'Approved', { amountCents: 7500 }),
          payment({ paymentId: id(9), sendEmailReceipt: true, authResponse: null }),
        ],
      },
    ];
    transactions.set(txnId(1), transaction(1, { orderId: 'INV-1' }));
    transactions.set(txnId(2), transaction(2));
    transactions.set(txnId(4), transaction(4));
    // Voided before settlement: no receipt.
    transactions.set(txnId(5), transaction(5, { status: 'Voided', voidedAt: '2099-06-01T09:10:00.000Z' }));
    transactions.set(txnId(6), transaction(6));
    transactions.set(
      txnId(8),
      transaction(8, {
        amountCents: 7500,
        approvedCents: 5000,
        responseCode: '10',
        accountType: 'MASTERCARD',
        maskedAccountNumber: '************4444',
      }),
    );

    const out = await emit(state({ receiptsQueued: 3 }));

    // The payors of the due payments only (1, 5, 6, 8), each once.
    expect(payorLookups()).toHaveLength(1);
    expect(payorLookups()[0]!.RequestItems.t).toEqual({
      Keys: [
        { pk: 'PAYOR#payor1', sk: 'PAYOR' },
        { pk: 'PAYOR#payor2', sk: 'PAYOR' },
      ],
      ProjectionExpression: EMAIL_PROJECTION,
      ConsistentRead: true,
    });
    // Payment 6's payor has no e-mail: its transaction is not even read.
    expect(txnReads()).toEqual([`TXN#${txnId(1)}`, `TXN#${txnId(5)}`, `TXN#${txnId(8)}`]);

    const written = puts();
    expect(written.map((p) => p.Item.outboxId)).toEqual([`receipt:${id(1)}`, `receipt:${id(8)}`]);
    for (const put of written) {
      expect(put.TableName).toBe('t');
      expect(put.ConditionExpression).toBe('attribute_not_exists(pk)');
    }
    expect(written[0]!.Item).toEqual({
      pk: `OUTBOX#receipt:${id(1)}`,
      sk: 'OUTBOX',
      entity: 'outbox',
      outboxId: `receipt:${id(1)}`,
      kind: 'receipt',
      recipient: 'one@example.com',
      status: 'pending',
      attempts: 0,
      createdAt: expect.any(String),
      paymentGroupId: GROUP_ID,
      data: {
        merchantName: MERCHANT_NAME,
        amountCents: 1999,
        approvedCents: 1999,
        maskedAccountNumber: '************1111',
        accountType: 'VISA',
        transactionId: txnId(1),
        date: '2099-06-01',
        paymentId: id(1),
        orderId: 'INV-1',
      },
    });
    // A partial approval: the receipt carries both amounts.
    expect(written[1]!.Item.data).toMatchObject({
      amountCents: 7500,
      approvedCents: 5000,
      accountType: 'MASTERCARD',
      maskedAccountNumber: '************4444',
    });
    expect(written[1]!.Item.data).not.toHaveProperty('orderId');

    expect(out).toEqual({ ...state(), receiptCursor: null, receiptsDone: true, receiptsQueued: 5 });
  });

  describe('with pages of one payment', () => {
    afterEach(() => {
      delete process.env.RECEIPTS_PAGE_SIZE;
      reloadConfigForTests();
    });

    it('pages with its own cursor and counts the receipts over the pages', async () => {
      // Pages of one payment (a page reads on past deleted payments, and past a DynamoDB page cut
      // short, until it holds RECEIPTS_PAGE_SIZE payments).
      process.env.RECEIPTS_PAGE_SIZE = '1';
      reloadConfigForTests();
      pages = [
        { payments: [processed(1, 'Approved')], last: `PAYMENT#${id(1)}` },
        { payments: [processed(2, 'Approved')] },
      ];
      transactions.set(txnId(1), transaction(1));
      transactions.set(txnId(2), transaction(2));

      const first = await emit(state({ cursor: null }));
      expect(first).toMatchObject({
        receiptCursor: `PAYMENT#${id(1)}`,
        receiptsDone: false,
        receiptsQueued: 1,
        cursor: null,
      });
      const second = await emit(first);
      expect(second).toMatchObject({ receiptCursor: null, receiptsDone: true, receiptsQueued: 2 });

      const queries = ddbMock
        .commandCalls(QueryCommand)
        .map((c) => c.args[0].input)
        .filter((q) => q.ExpressionAttributeValues![':pk'] === `GROUP#${GROUP_ID}`);
      expect(queries[0]).toMatchObject({
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExpressionAttributeValues: { ':p': 'PAYMENT#' },
        ConsistentRead: true,
      });
      expect(queries[0]).not.toHaveProperty('ExclusiveStartKey');
      expect(queries[1]).toMatchObject({
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExclusiveStartKey: { pk: `GROUP#${GROUP_ID}`, sk: `PAYMENT#${id(1)}` },
      });
      expect(puts().map((p) => p.Item.outboxId)).toEqual([`receipt:${id(1)}`, `receipt:${id(2)}`]);
    });
  });

  it('a receipt range (issue 25) pages between its bounds and leaves the due index to ReceiptsQueued', async () => {
    pages = [{ payments: [processed(3, 'Approved')] }];
    transactions.set(txnId(3), transaction(3));
    const range: ReceiptRange = {
      paymentGroupId: GROUP_ID,
      merchantId: MID,
      receiptRange: 2,
      receiptCursor: `PAYMENT#${id(2)}`,
      upTo: `PAYMENT#${id(3)}`,
      receiptsDone: false,
      receiptsQueued: 0,
    };
    const out = await (handler as unknown as (r: ReceiptRange, c: unknown) => Promise<ReceiptRange>)(
      range,
      lambdaContext,
    );
    expect(out).toEqual({ ...range, receiptCursor: null, receiptsDone: true, receiptsQueued: 1 });
    const [query] = ddbMock
      .commandCalls(QueryCommand)
      .map((c) => c.args[0].input)
      .filter((q) => q.ExpressionAttributeValues![':pk'] === `GROUP#${GROUP_ID}`);
    expect(query).toMatchObject({
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :p AND :upTo',
      ExpressionAttributeValues: { ':upTo': `PAYMENT#${id(3)}` },
      ExclusiveStartKey: { pk: `GROUP#${GROUP_ID}`, sk: `PAYMENT#${id(2)}` },
    });
    expect(puts().map((p) => p.Item.outboxId)).toEqual([`receipt:${id(3)}`]);
    // Other ranges may still be queuing: the group stays in the due index.
    expect(ddbMock.commandCalls(UpdateCommand)).toEqual([]);
  });

  it('a page with nothing due reads neither the merchant nor any payor', async () => {
    pages = [{ payments: [processed(1, 'Declined'), processed(2, 'Approved', { sendEmailReceipt: false })] }];
    const out = await emit(state());
    // The one page is the last: the group then leaves the due index (issue 13, defect 9), read
    // first for a retry round it may wait for.
    expect(sentCommands()).toEqual(['QueryCommand', 'GetCommand', 'UpdateCommand']);
    expect(out).toMatchObject({ receiptCursor: null, receiptsDone: true, receiptsQueued: 0 });
  });

  it('a retried page writes no second receipt: an existing item is not counted again', async () => {
    pages = [{ payments: [processed(1, 'Approved'), processed(2, 'Approved')] }];
    transactions.set(txnId(1), transaction(1));
    transactions.set(txnId(2), transaction(2));
    ddbMock
      .on(PutCommand, { Item: { outboxId: `receipt:${id(1)}` } })
      .rejects(awsError('ConditionalCheckFailedException'));
    const out = await emit(state({ receiptsQueued: 1 }));
    expect(puts()).toHaveLength(2);
    expect(out).toMatchObject({ receiptsDone: true, receiptsQueued: 2 });
  });

  it('a failing write fails the task (the state machine retries it)', async () => {
    pages = [{ payments: [processed(1, 'Approved')] }];
    transactions.set(txnId(1), transaction(1));
    ddbMock.on(PutCommand).rejects(awsError('ProvisionedThroughputExceededException'));
    await expect(emit(state())).rejects.toThrow('ProvisionedThroughputExceededException');
  });
});
