/**
 * Reconciliation against DynamoDB Local with the sandbox processor: a clean state reports nothing,
 * and each kind of difference, constructed on purpose, is reported with its ids (and healed when
 * the sweeper settles it).
 */
import { reconcile, type ReconcileDeps, type ReconcileReport } from '#core/reconcile';
import { refundSale, voidSale } from '#core/reversals';
import { runSale } from '#core/sale';
import type { Refund } from '#domain/transactions';
import { useProcessor } from '#processor/index';
import { SandboxProcessor } from '#processor/sandbox';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { newId } from '#shared/ids';
import { MerchantAdmin } from '#store/merchant-admin';
import { DynamoGroupStore } from '#store/groups';
import { DynamoPayorStore } from '#store/payors';
import { ReconciliationRecords } from '#store/reconciliation';
import { DynamoTransactionStore } from '#store/transactions';
import { createTestTable, type TestTable } from '#support/ddb';
import { group, makePayor, payment, transaction } from '#support/fixtures/index';

const MERCHANT = '32350000001';
const T0 = Date.now();
/** Sales made now settle about 12 hours from now (voids are allowed until then). */
const SCHEDULE = { periodSeconds: 86_400, offsetSeconds: (Math.floor(T0 / 1000) + 43_200) % 86_400 };
const SINCE = new Date(T0 - 3 * 3600_000).toISOString();
const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

let table: TestTable;
let sandbox: SandboxProcessor;
let store: DynamoTransactionStore;
let deps: ReconcileDeps;
let swept = 0;
let sweeper: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  reloadConfigForTests();
  sandbox = new SandboxProcessor(ddb(), table.tableName, SCHEDULE);
  useProcessor(sandbox);
  store = new DynamoTransactionStore(table.db, table.tableName);
  deps = {
    records: new ReconciliationRecords(table.db, table.tableName),
    processor: sandbox,
    sweep: async () => {
      swept += 1;
      await sweeper();
    },
  };
  await new MerchantAdmin(table.db, table.tableName).register({ merchantId: MERCHANT, name: 'Test' });
});
afterAll(async () => {
  useProcessor(undefined);
  await table.drop();
});

async function aProfile(): Promise<string> {
  const { payor, method } = makePayor(MERCHANT);
  await new DynamoPayorStore(table.db, table.tableName).create(payor, method);
  return `${payor.payorId}/${method.savedPaymentMethodId}`;
}

async function approvedSale(amountCents = 2500) {
  const transactionId = newId();
  const profileId = await aProfile();
  const request = {
    transactionId,
    processorKey: `sale:${transactionId}`,
    merchantId: MERCHANT,
    profileId,
    amountCents,
    allowPartial: false,
    missingMethod: 'reject' as const,
  };
  const txn = await runSale(request, new Date());
  expect(txn.status).toBe('Approved');
  return txn;
}

const run = (heal = false): Promise<ReconcileReport> =>
  reconcile({ since: SINCE, staleMinutes: 30, heal }, deps);

/** The differences of a report that concern an id. */
const about = (report: ReconcileReport, id: string) =>
  report.differences.filter((d) => [d.transactionId, d.refundId, d.paymentId, d.processorKey].includes(id));

/** A group already processed, scheduled this hour, with one answered and one unanswered payment. */
async function processedGroup() {
  const now = new Date();
  const g = group({
    paymentGroupId: newId(),
    merchantId: MERCHANT,
    scheduleDate: now.toISOString().slice(0, 10),
    scheduleHour: now.getUTCHours(),
    status: 'processed',
    paymentCount: 2,
  });
  // A stored method: a create's fence checks that every method its payments name exists.
  const profileId = await aProfile();
  const answered = payment({
    paymentId: newId(),
    paymentGroupId: g.paymentGroupId,
    profileId,
    authResponse: { status: 'Declined' } as never,
  });
  const unanswered = payment({
    paymentId: newId(),
    paymentGroupId: g.paymentGroupId,
    profileId,
    authResponse: null,
  });
  const deleted = payment({ paymentId: newId(), paymentGroupId: g.paymentGroupId, profileId, deleted: true });
  await new DynamoGroupStore(table.db, table.tableName).createGroup(g, [answered, unanswered, deleted]);
  return { g, answered, unanswered };
}

describe('reconciliation', () => {
  it('reports zero differences when the records and the processor agree', async () => {
    await approvedSale();
    const voided = await approvedSale(1200);
    await voidSale(MERCHANT, voided.transactionId, new Date());
    const report = await run(true);
    expect(report.differences).toEqual([]);
    expect(report.unhealed).toBe(0);
    expect(Object.values(report.counts).every((c) => c.healed + c.unhealed === 0)).toBe(true);
    // Nothing to heal: the sweeper is not even run.
    expect(swept).toBe(0);
  });

  it('a ledger sale with no record: charge-without-record', async () => {
    const key = `sale:${newId()}`;
    await sandbox.sale({
      keyFirstUsedAt: new Date().toISOString(),
      idempotencyKey: key,
      merchantId: MERCHANT,
      token: 'sbx.ok.1',
      amountCents: 700,
      allowPartial: false,
    });
    const [d, ...rest] = about(await run(), key);
    expect(rest).toEqual([]);
    expect(d).toMatchObject({
      kind: 'charge-without-record',
      merchantId: MERCHANT,
      processorCents: 700,
      healed: false,
    });
  });

  it('a record with no ledger sale: record-without-charge', async () => {
    const txn = transaction({ transactionId: newId(), merchantId: MERCHANT, processedAt: minutesAgo(5) });
    await store.recordSale(txn);
    expect(about(await run(), txn.transactionId)).toEqual([
      expect.objectContaining({ kind: 'record-without-charge', recordCents: txn.approvedCents }),
    ]);
  });

  it('a mismatched amount: amount-mismatch', async () => {
    const transactionId = newId();
    const charged = await sandbox.sale({
      keyFirstUsedAt: new Date().toISOString(),
      idempotencyKey: `sale:${transactionId}`,
      merchantId: MERCHANT,
      token: 'sbx.ok.2',
      amountCents: 1000,
      allowPartial: false,
    });
    await store.recordSale(
      transaction({
        transactionId,
        merchantId: MERCHANT,
        approvedCents: 1500,
        processedAt: charged.processedAt,
      }),
    );
    expect(about(await run(), transactionId)).toEqual([
      expect.objectContaining({ kind: 'amount-mismatch', recordCents: 1500, processorCents: 1000 }),
    ]);
  });

  it('a void the record misses, and a Voided record the processor never voided: reversal-missing', async () => {
    const txn = await approvedSale(1300);
    await sandbox.void({
      idempotencyKey: `void:${txn.transactionId}`,
      merchantId: MERCHANT,
      processorTransactionId: txn.processorTransactionId!,
      amountCents: 1300,
    });
    const other = await approvedSale(1400);
    await store.reserveVoid(other.transactionId, new Date().toISOString());
    await store.markVoided(other, new Date().toISOString());
    const report = await run();
    expect(about(report, txn.transactionId)).toEqual([
      expect.objectContaining({ kind: 'reversal-missing', processorKey: `void:${txn.transactionId}` }),
    ]);
    expect(about(report, other.transactionId)).toEqual([
      expect.objectContaining({ kind: 'reversal-missing', detail: expect.stringContaining('no void') }),
    ]);
  });

  it('a refund Pending for an hour: stale-pending, healed when the sweeper finishes it', async () => {
    const txn = await approvedSale(2000);
    const refund: Refund = {
      refundId: newId(),
      transactionId: txn.transactionId,
      amountCents: 500,
      status: 'Pending',
      date: minutesAgo(60),
    };
    expect(await store.reserveRefund(txn, refund)).toBe(true);
    expect(about(await run(), refund.refundId)).toEqual([
      expect.objectContaining({
        kind: 'stale-pending',
        merchantId: MERCHANT,
        recordCents: 500,
        healed: false,
      }),
    ]);

    // The sweeper re-drives it with its key: the refund completes, the difference is healed.
    sweeper = async () => {
      await refundSale(
        MERCHANT,
        txn.transactionId,
        500,
        refund.refundId,
        new Date(Date.parse(txn.settlesAt!) + 1),
      );
    };
    const healed = await run(true);
    sweeper = async () => undefined;
    expect(about(healed, refund.refundId)).toEqual([
      expect.objectContaining({ kind: 'stale-pending', healed: true }),
    ]);
    expect(healed.counts['stale-pending'].healed).toBe(1);
    expect(healed.unhealed).toBe(healed.differences.filter((d) => !d.healed).length);
  });

  it('a payment never answered in a processed group: unanswered-payment', async () => {
    const { g, answered, unanswered } = await processedGroup();
    const report = await run();
    expect(about(report, unanswered.paymentId)).toEqual([
      expect.objectContaining({
        kind: 'unanswered-payment',
        paymentGroupId: g.paymentGroupId,
        healed: false,
      }),
    ]);
    expect(about(report, answered.paymentId)).toEqual([]);
    expect(report.counts['unanswered-payment'].unhealed).toBe(1);
  });
});
