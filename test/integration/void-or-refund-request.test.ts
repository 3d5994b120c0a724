/**
 * Issue 10: the synchronous void-or-refund stays inside API Gateway's 29 s whatever the group's
 * size and the processor's speed.
 *
 * - Defect "paymentIds read the whole group": a request naming a few payments listed every
 *   payment of the group (up to 100,000) before reversing them; it now reads the named ones by key.
 * - Defect "paymentIds up to 10,000 within one request": at most 1,000 (the synchronous limit)
 *   are accepted, the schema says so, and a longer list is a 400 naming the field.
 * - Defect "no deadline": at a slow processor the request kept starting reversals until the
 *   gateway gave up (504); it now starts none past its deadline, and those payments answer
 *   `failed` "not attempted", which a repeat reverses.
 */
import { VOID_OR_REFUND } from '#contract/processing';
import { routes } from '#contract/routes/index';
import { NO_PROCESSOR_ANSWER, NOT_ATTEMPTED, voidOrRefundGroup } from '#core/void-or-refund';
import { useProcessor } from '#processor/index';
import { SandboxProcessor } from '#processor/sandbox';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { DynamoGroupStore, groupStore } from '#store/groups';
import { eventStore } from '#store/events';
import { DynamoPaymentStore, paymentStore } from '#store/payments';
import { makeGroup } from '#support/fixtures/index';
import { createTestTable, type TestTable } from '#support/ddb';
import { FaultyProcessor } from '#support/processor-double';
import { chargeScheduledPayment, storedProfile } from '#support/sales';

let table: TestTable;
let processor: FaultyProcessor;
const MERCHANT = '32350000002';
/** A daily cut-off 12 hours from now: every sale here is voidable (never inside the void margin). */
const SCHEDULE = { periodSeconds: 86_400, offsetSeconds: (Math.floor(Date.now() / 1000) + 43_200) % 86_400 };

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  reloadConfigForTests();
  processor = new FaultyProcessor(new SandboxProcessor(ddb(), table.tableName, SCHEDULE));
  useProcessor(processor);
});
afterEach(() => {
  processor.clear();
  jest.restoreAllMocks();
});
afterAll(async () => {
  useProcessor(undefined);
  await table.drop();
});

/** A group of `size` payments; the first `charged` of them approved (their sales recorded). */
async function groupWithSales(size: number, charged: number) {
  const profile = await storedProfile(table, MERCHANT, 'ok');
  const { group, payments } = makeGroup(size, {
    merchantId: MERCHANT,
    scheduleDate: '2031-05-01',
    amountOf: (i) => 10 + i / 100,
  });
  const stored = payments.map((p) => ({ ...p, profileId: profile }));
  await groupStore().createGroup(group, stored);
  for (const payment of stored.slice(0, charged)) await chargeScheduledPayment(MERCHANT, profile, payment);
  return { group, payments: stored };
}

test('defect "paymentIds read the whole group": the named payments are read by key', async () => {
  const { group, payments } = await groupWithSales(40, 2);
  const list = jest.spyOn(DynamoPaymentStore.prototype, 'listPayments');
  const named = [payments[0]!.paymentId.toUpperCase(), payments[1]!.paymentId, payments[0]!.paymentId];
  const { outcomes } = await voidOrRefundGroup(group.paymentGroupId, MERCHANT, named, new Date());
  expect(list).not.toHaveBeenCalled();
  expect(outcomes.map((o) => [o.paymentId, o.outcome])).toEqual([
    [payments[0]!.paymentId, 'voided'],
    [payments[1]!.paymentId, 'voided'],
  ]);
});

test('defect "paymentIds read the whole group": an id of another group is still a 400 naming it', async () => {
  const { group, payments } = await groupWithSales(3, 0);
  const { payments: others } = makeGroup(1, { merchantId: MERCHANT, scheduleDate: '2031-05-01' });
  const named = [payments[0]!.paymentId, others[0]!.paymentId];
  await expect(voidOrRefundGroup(group.paymentGroupId, MERCHANT, named, new Date())).rejects.toThrow(
    `paymentIds[1] ${others[0]!.paymentId} is not a payment of this group`,
  );
});

test('defect "paymentIds up to 10,000 within one request": the schema allows the synchronous limit', () => {
  const body = routes.VoidOrRefundGroup.body!.schema as {
    properties: { paymentIds: { maxItems: number } };
  };
  expect(body.properties.paymentIds.maxItems).toBe(VOID_OR_REFUND.syncLimit);
  expect(VOID_OR_REFUND.syncLimit).toBe(1000);
});

test('defect "no deadline": no reversal starts after the deadline, and a repeat reverses those payments', async () => {
  const { group, payments } = await groupWithSales(3, 3);
  const past = Date.now() - 1;
  const first = await voidOrRefundGroup(group.paymentGroupId, MERCHANT, undefined, new Date(), past);
  expect(first.outcomes).toHaveLength(3);
  for (const outcome of first.outcomes)
    expect(outcome).toMatchObject({ outcome: 'failed', reason: NOT_ATTEMPTED });
  expect(processor.calls.filter((c) => c.kind === 'VOID')).toHaveLength(0);
  for (const payment of payments)
    expect(
      (await paymentStore().getPayment(group.paymentGroupId, payment.paymentId))!.voidOrRefundResponses,
    ).toBeUndefined();

  const again = await voidOrRefundGroup(group.paymentGroupId, MERCHANT, undefined, new Date());
  expect(again.outcomes.map((o) => o.outcome)).toEqual(['voided', 'voided', 'voided']);
});

test('defect "a processor time-out answered the whole void-or-refund 500": that payment answers failed, and a repeat refunds it once', async () => {
  const { group } = await groupWithSales(2, 2);
  const settled = new Date(Date.now() + 2 * 86_400_000);
  processor.refundFault = 'unavailable-before';
  const first = await voidOrRefundGroup(group.paymentGroupId, MERCHANT, undefined, settled);
  expect(first.outcomes.map((o) => [o.outcome, o.reason])).toEqual([
    ['failed', NO_PROCESSOR_ANSWER],
    ['failed', NO_PROCESSOR_ANSWER],
  ]);
  processor.clear();
  const again = await voidOrRefundGroup(group.paymentGroupId, MERCHANT, undefined, settled);
  expect(again.outcomes.map((o) => o.outcome)).toEqual(['refunded', 'refunded']);
  for (const payment of await paymentStore().listPayments(group.paymentGroupId)) {
    expect(payment.voidOrRefundResponses).toEqual([
      expect.objectContaining({ type: 'Refund', status: 'Completed', amount: payment.amountCents / 100 }),
    ]);
  }
  // One refund call reached the sandbox per payment (the unanswered ones failed before it).
  expect(processor.calls.filter((c) => c.kind === 'REFUND')).toHaveLength(2);
});

test('defect "racing void-or-refund calls answered 500": an announcement that loses six races in a row still lands', async () => {
  const { group } = await groupWithSales(1, 1);
  const settled = new Date(Date.now() + 2 * 86_400_000);
  const read = DynamoGroupStore.prototype.getGroup;
  const announce = DynamoGroupStore.prototype.announceVoidOrRefund;
  let stale = 6;
  let competing = false;
  // Right after each of the first six reads, another request announces its void-or-refund: the
  // read is one announcement behind, and its write loses the race.
  jest.spyOn(DynamoGroupStore.prototype, 'getGroup').mockImplementation(async function (
    this: DynamoGroupStore,
    id,
  ) {
    const current = await read.call(this, id);
    if (stale > 0 && !competing) {
      stale--;
      competing = true;
      await announce.call(this, id, new Date()).finally(() => (competing = false));
    }
    return current;
  });
  const { outcomes } = await voidOrRefundGroup(group.paymentGroupId, MERCHANT, undefined, settled);
  expect(outcomes.map((o) => o.outcome)).toEqual(['refunded']);
  expect(stale).toBe(0);
  jest.restoreAllMocks();
  const { events } = await eventStore().page(MERCHANT, { objectId: group.paymentGroupId }, 100);
  const announced = events.filter((e) => e.type === 'group.void_or_refund_completed');
  expect(announced).toHaveLength(7);
  expect(new Set(announced.map((e) => e.sequence)).size).toBe(7);
});

test('the API function leaves a reversal’s worst case and a margin between its deadline and its timeout', () => {
  // The handler's deadline: apiTimeoutSeconds − reversalSeconds − 2 s after the request starts.
  expect(VOID_OR_REFUND.apiTimeoutSeconds).toBeLessThan(29);
  expect(VOID_OR_REFUND.apiTimeoutSeconds - VOID_OR_REFUND.reversalSeconds - 2).toBeGreaterThanOrEqual(15);
});
