/**
 * The processor keys as the processor keeps them: it replays a call by its key, and the
 * reconciliation matches its activity to the service's records by it, so these strings never
 * change (a changed template would charge a replayed payment again, and leave every earlier call
 * unmatched). Golden values: each is written out, not rebuilt from the code under test. The keys
 * the service sends are also read back from the sandbox's ledger by the integration tier
 * (transactions-core, authorize-batch, void-or-refund-margin, money-safety-core).
 */
import { parseProcessorKey, processorKeys, refundIdOfKey, saleIdOfKey } from '#domain/processor-keys';
import { attemptTransactionId, transactionIdOf } from '#shared/ids';

const PAYMENT_ID = '01890a5d-ac96-774b-bcce-b302099a8081';
const TRANSACTION_ID = '01890a5d-ac96-774b-bcce-b302099a8082';

describe('the keys the service sends', () => {
  it('a sale of the transactions API: sale:<transactionId>', () => {
    expect(processorKeys.sale(TRANSACTION_ID)).toBe('sale:01890a5d-ac96-774b-bcce-b302099a8082');
  });

  it('a scheduled payment’s first charge: payment:<paymentId>', () => {
    expect(processorKeys.payment(PAYMENT_ID)).toBe('payment:01890a5d-ac96-774b-bcce-b302099a8081');
    expect(processorKeys.payment(PAYMENT_ID, 1)).toBe('payment:01890a5d-ac96-774b-bcce-b302099a8081');
  });

  it('each retry of it: payment:<paymentId>:<attempt>', () => {
    expect(processorKeys.payment(PAYMENT_ID, 2)).toBe('payment:01890a5d-ac96-774b-bcce-b302099a8081:2');
    expect(processorKeys.payment(PAYMENT_ID, 12)).toBe('payment:01890a5d-ac96-774b-bcce-b302099a8081:12');
  });

  it('a void: void:<transactionId>; a refund: refund:<refundId>', () => {
    expect(processorKeys.void(TRANSACTION_ID)).toBe('void:01890a5d-ac96-774b-bcce-b302099a8082');
    expect(processorKeys.refund('01890a5d-ac96-774b-bcce-b302099a8083')).toBe(
      'refund:01890a5d-ac96-774b-bcce-b302099a8083',
    );
  });
});

describe('what a key names', () => {
  it('each kind, back from its key', () => {
    expect(parseProcessorKey(`sale:${TRANSACTION_ID}`)).toEqual({
      kind: 'sale',
      transactionId: TRANSACTION_ID,
    });
    expect(parseProcessorKey(`void:${TRANSACTION_ID}`)).toEqual({
      kind: 'void',
      transactionId: TRANSACTION_ID,
    });
    expect(parseProcessorKey('refund:r-1')).toEqual({ kind: 'refund', refundId: 'r-1' });
    expect(parseProcessorKey(`payment:${PAYMENT_ID}`)).toEqual({
      kind: 'payment',
      paymentId: PAYMENT_ID,
      attempt: 1,
    });
    expect(parseProcessorKey(`payment:${PAYMENT_ID}:3`)).toEqual({
      kind: 'payment',
      paymentId: PAYMENT_ID,
      attempt: 3,
    });
    expect(refundIdOfKey('refund:r-1')).toBe('r-1');
    expect(refundIdOfKey(`void:${TRANSACTION_ID}`)).toBeUndefined();
  });

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
    expect(parseProcessorKey('reverse:sale:x')).toBeUndefined();
  });
});
