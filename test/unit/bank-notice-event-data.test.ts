/**
 * An event's object is what a GET of it answers at that moment: a bank notice of a sale of the
 * transactions API announces `transaction.returned` / `transaction.cleared` with the sale's refunds
 * as they then stand (a completed refund before a late return, `afterRefund: true`; a refund held
 * until the debit clears), which GET .../transactions/{id} lists in refundHistory.
 */
import { transactionView, type Refund, type Transaction } from '#domain/transactions';
import { transaction } from '#support/fixtures/index';

const TXN = 'txn_review_1';
const sale: Transaction = transaction({
  transactionId: TXN,
  accountType: 'CHECKING',
  maskedAccountNumber: '********6789',
  cleared: true,
  clearedAt: '2026-05-12T10:30:00.000Z',
  noticeSeq: 2,
  eventSeq: 2,
  refundedCents: 500,
  refundCount: 1,
});
const completed: Refund = {
  refundId: 'r1',
  transactionId: TXN,
  amountCents: 500,
  status: 'Completed',
  date: '2026-05-12T11:00:00.000Z',
};
const heldSale: Transaction = {
  ...sale,
  cleared: false,
  clearedAt: undefined,
  noticeSeq: undefined,
  eventSeq: 1,
};
const held: Refund = { ...completed, status: 'Pending', heldUntilCleared: true };

let stored: { transaction: Transaction; refunds: Refund[] } = { transaction: sale, refunds: [completed] };
const written: { saleEvent?: { type: string; data: unknown } }[] = [];

jest.mock('#core/processor', () => ({ paymentProcessor: () => ({ voidIsRefund: false }) }));
jest.mock('#store/transactions', () => ({
  transactionStore: () => ({ find: async () => stored }),
}));
jest.mock('#store/payments', () => ({ paymentStore: () => ({ getPayment: async () => undefined }) }));
jest.mock('#store/bank-notices', () => ({
  bankNoticeStore: () => ({
    write: async (change: (typeof written)[number]) => {
      written.push(change);
      return 'ok';
    },
  }),
}));

const NOW = new Date('2026-05-14T10:00:00.000Z');
const charge = { idempotencyKey: `sale:${TXN}`, processorTransactionId: 'py_1' };

let applyBankNotice: typeof import('#core/bank-notices').applyBankNotice;
beforeAll(async () => {
  ({ applyBankNotice } = await import('#core/bank-notices'));
});
beforeEach(() => {
  written.length = 0;
});

test('defect: transaction.returned after a completed refund (afterRefund) showed no refund in refundHistory, unlike a GET of the sale', async () => {
  stored = { transaction: sale, refunds: [completed] };
  const result = await applyBankNotice(
    {
      noticeId: 'n1',
      merchantId: sale.merchantId,
      objectId: 'py_1',
      sequence: 3,
      occurredAt: '2026-05-14T09:00:00.000Z',
      kind: 'returned',
      charge,
      code: 'R10',
      returnedAt: '2026-05-14T09:00:00.000Z',
    } as never,
    NOW,
  );
  expect(result).toMatchObject({ outcome: 'applied' });
  const event = written[0]!.saleEvent!;
  expect(event.type).toBe('transaction.returned');
  const data = event.data as ReturnType<typeof transactionView>;
  expect(data.return).toMatchObject({ afterRefund: true });
  // What GET .../transactions/{id} answers right after the write: the sale with its refunds.
  expect(data.refundHistory).toEqual(
    transactionView(
      { ...sale, status: 'Returned', return: data.return as never, noticeSeq: 3 },
      [completed],
      NOW,
    ).refundHistory,
  );
});

test('defect: transaction.cleared of a debit with a refund held until it clears showed no refund in refundHistory, unlike a GET of the sale', async () => {
  stored = { transaction: heldSale, refunds: [held] };
  await applyBankNotice(
    {
      noticeId: 'n2',
      merchantId: sale.merchantId,
      objectId: 'py_1',
      sequence: 2,
      occurredAt: '2026-05-12T10:30:00.000Z',
      kind: 'cleared',
      charge,
      clearedAt: '2026-05-12T10:30:00.000Z',
    } as never,
    NOW,
  );
  const event = written[0]!.saleEvent!;
  expect(event.type).toBe('transaction.cleared');
  const data = event.data as ReturnType<typeof transactionView>;
  expect(data.refundCount).toBe(1);
  expect(data.refundHistory).toHaveLength(1);
});
