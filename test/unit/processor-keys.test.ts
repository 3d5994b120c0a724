/**
 * The processor keys as the processor keeps them: it replays a call by its key, and the
 * reconciliation matches its activity to the service's records by it, so these strings never
 * change (a changed template would charge a replayed payment again, and leave every earlier call
 * unmatched). Golden values: each is written out, not rebuilt from the code under test. The keys
 * the service sends are also read back from the sandbox's ledger by the integration tier
 * (transactions-core, authorize-batch, void-or-refund-margin, money-safety-core).
 */
import { saleIdOfKey } from '#core/reconcile-compare';
import { attemptProcessorKey, attemptTransactionId, transactionIdOf } from '#shared/ids';

const PAYMENT_ID = '01890a5d-ac96-774b-bcce-b302099a8081';
const TRANSACTION_ID = '01890a5d-ac96-774b-bcce-b302099a8082';

describe('the key of a scheduled payment’s charge', () => {
  it('is payment:<paymentId> for the first attempt', () => {
    expect(attemptProcessorKey(PAYMENT_ID, 1)).toBe('payment:01890a5d-ac96-774b-bcce-b302099a8081');
  });

  it('is payment:<paymentId>:<attempt> for each retry', () => {
    expect(attemptProcessorKey(PAYMENT_ID, 2)).toBe('payment:01890a5d-ac96-774b-bcce-b302099a8081:2');
    expect(attemptProcessorKey(PAYMENT_ID, 12)).toBe('payment:01890a5d-ac96-774b-bcce-b302099a8081:12');
  });
});

describe('the sale a key names', () => {
  it('sale:<transactionId> and void:<transactionId> name that sale', () => {
    expect(saleIdOfKey(`sale:${TRANSACTION_ID}`)).toBe(TRANSACTION_ID);
    expect(saleIdOfKey(`void:${TRANSACTION_ID}`)).toBe(TRANSACTION_ID);
  });

  it('payment:<paymentId>[:<attempt>] names the attempt’s derived sale', () => {
    // The derived ids are those of the records already written: golden too.
    expect(saleIdOfKey(`payment:${PAYMENT_ID}`)).toBe('c172498e-06cb-55f0-a257-4d0089ef37a7');
    expect(transactionIdOf(PAYMENT_ID)).toBe('c172498e-06cb-55f0-a257-4d0089ef37a7');
    expect(saleIdOfKey(`payment:${PAYMENT_ID}:3`)).toBe('561fe868-0ee8-547c-aaba-ff653478263e');
    expect(attemptTransactionId(PAYMENT_ID, 3)).toBe('561fe868-0ee8-547c-aaba-ff653478263e');
  });

  it('refund:<refundId> and keys the service does not make name no sale', () => {
    expect(saleIdOfKey('refund:r-1')).toBeUndefined();
    expect(saleIdOfKey('pi_3abc')).toBeUndefined();
    expect(saleIdOfKey('customer:1:2')).toBeUndefined();
  });
});
