/**
 * Processing over HTTP (docs/product.md#group-statuses, #triggers): the trigger
 * endpoints, the hourly event, exactly-once charging under concurrency and crashes,
 * void-or-refund, and the production gate.
 *
 * The runtime is shared with the other e2e files: hourly events are delivered only with a time
 * for which this file's own groups are due (the current hour), every other group of this file is
 * scheduled far in the future and triggered explicitly, and assertions are about this file's
 * groups only.
 */
import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { call, futureDate, MID, MID8, OTHER, OTHER_MID, PROD_LIKE_MID, TESTER, tokenFor } from '#support/api';
import { aProfile, createPayor } from '#support/fixtures/e2e-resources';
import { launchLocalRuntime, type LocalRuntimeProcess } from '#lib/local/launcher';
import {
  allExecutions,
  closeLocalTable,
  createdGroupIds,
  createGroup,
  farFutureDate,
  getGroup,
  groupPath,
  hourlyTick,
  crashAfterSale,
  ledger,
  localTable,
  merchantPath,
  payments,
  paymentIdsOf,
  paymentsById,
  saleLedgerItemsOfPayment,
  slotOfTime,
  transactionsOfPayment,
  trigger,
  waitForStatus,
  type Json,
} from '#support/processing';
import { keys } from '#shared/keys';
import { slotOf } from '#domain/groups';
import { sleep } from '#shared/concurrency';

const transactionPath = (transactionId: string) => `/v1/rest/merchants/${MID}/transactions/${transactionId}`;
const voidOrRefund = (groupId: string, body?: unknown) =>
  call<Json>('POST', `${groupPath(groupId)}/void-or-refund`, body);
const ids = (entries: Json[]) => entries.map((e) => e.paymentGroupId as string);

// The production runtime takes a while to start: it starts now and is awaited by its test.
let prodRuntime: Promise<LocalRuntimeProcess> | undefined;
beforeAll(() => {
  prodRuntime = launchLocalRuntime({ dataDirPrefix: 'sps-e2e', env: { SERVICE_STAGE: 'prod' } });
  prodRuntime.catch(() => undefined);
});
afterAll(async () => {
  const runtime = await prodRuntime?.catch(() => undefined);
  await runtime?.stop();
  closeLocalTable();
});

/**
 * The executions of a group. After the group is processed its execution may still be waiting for
 * the settlement cut-off (receipts), so RUNNING and SUCCEEDED are both fine; FAILED is not.
 */
const executionsOf = async (groupId: string) =>
  (await allExecutions()).filter((e) => e.name.startsWith(`pg-${groupId}-`));
/** The group of an execution name (`pg-<groupId>-<attempt>`: one name per processing attempt). */
const groupOfExecution = (name: string) => /^pg-(.+)-\d+$/.exec(name)?.[1];
const healthy = expect.stringMatching(/^(RUNNING|SUCCEEDED)$/);

/** Near the end of an hour the runtime's own boundary tick would interfere: start in the next hour. */
async function awayFromHourBoundary(): Promise<void> {
  const left = 3_600_000 - (Date.now() % 3_600_000);
  if (left < 45_000) await sleep(left + 1_000);
}

describe('trigger processing of one group', () => {
  test('processes every non-deleted payment, records the outcomes and freezes the group', async () => {
    const [approved, doNotHonor, insufficient, partial, removed] = await Promise.all([
      aProfile(),
      aProfile('4000000000000002'),
      aProfile('4000000000009995'),
      aProfile('4000000000000077'),
      aProfile(),
    ]);
    const scheduleDate = farFutureDate(120);
    const group = await createGroup({
      scheduleDate,
      scheduleHour: 5,
      payments: [
        { profileId: approved, amount: 10.25, orderId: 'INV-P1' },
        { profileId: doNotHonor, amount: 11 },
        { profileId: insufficient, amount: 12 },
        { profileId: partial, amount: 80, allowPartial: true },
        { profileId: removed, amount: 13 },
      ],
    });
    const id = group.paymentGroupId as string;
    const [pApproved, pDoNotHonor, pInsufficient, pPartial, pRemoved] = paymentIdsOf(group, 5);
    expect((await call('DELETE', `${groupPath(id)}/payments/${pRemoved}`)).status).toBe(204);

    const res = await trigger(id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      triggeredGroups: [
        { paymentGroupId: id, executionArn: expect.stringMatching(new RegExp(`:execution:.+:pg-${id}-1$`)) },
      ],
      totalTriggered: 1,
      totalFailed: 0,
    });

    const processed = await waitForStatus(id, 'processed');
    expect(processed).toMatchObject({ paymentCount: 4, totalAmount: 113.25, deleted: false });
    expect(processed.processingSummary).toEqual({
      approvedCount: 2,
      partialCount: 1,
      declinedCount: 2,
      failedCount: 0,
      skippedCount: 1,
      approvedAmount: 60.25,
      processedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      // No retry policy here: nothing scheduled, nothing recovered (issue 19).
      retriesScheduled: 0,
      recoveredCount: 0,
      recoveredAmount: 0,
    });

    const byId = await paymentsById(id);
    const auth = (paymentId: string) => byId.get(paymentId)!.authResponse as Json;
    expect(auth(pApproved)).toMatchObject({
      status: 'Approved',
      responseCode: '00',
      isDuplicate: false,
      amount: 10.25,
      approvedAmount: 10.25,
      paymentId: pApproved,
      profileId: approved,
      orderId: 'INV-P1',
      transactionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      settlementTime: expect.any(String),
    });
    expect(auth(pApproved)).not.toHaveProperty('declineCategory');
    expect(auth(pDoNotHonor)).toMatchObject({
      status: 'Declined',
      responseCode: '05',
      declineCategory: '1',
      approvedAmount: 0,
    });
    expect(auth(pInsufficient)).toMatchObject({
      status: 'Declined',
      responseCode: '51',
      declineCategory: '2',
      approvedAmount: 0,
    });
    expect(auth(pPartial)).toMatchObject({
      status: 'Approved',
      responseCode: '10',
      amount: 80,
      approvedAmount: 50,
    });
    expect(byId.get(pRemoved)).toMatchObject({ deleted: true, authResponse: null });
    // The authResponse is the stored transaction.
    const txn = await call('GET', transactionPath(auth(pApproved).transactionId));
    expect(txn.body).toMatchObject({ status: 'Approved', approvedAmount: 10.25, paymentId: pApproved });

    // Out of the pending list, still in the list of all groups.
    const pending = await call<Json[]>('GET', `${merchantPath()}?date=${scheduleDate}&time=5`);
    expect(pending.status).toBe(200);
    expect(ids(pending.body)).not.toContain(id);
    const all = await call<Json[]>('GET', `${merchantPath()}/groups?date=${scheduleDate}&time=5`);
    expect(all.body.find((g) => g.paymentGroupId === id)).toMatchObject({ status: 'processed' });

    // A second trigger starts nothing and charges nothing.
    const again = await trigger(id);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({
      triggeredGroups: [{ paymentGroupId: id, error: expect.stringContaining('processed') }],
      totalTriggered: 0,
      totalFailed: 1,
    });
    expect((await ledger('SALE', `payment:${pApproved}`))?.calls).toBe(1);

    // Payments are frozen; the schedule update is ignored.
    const added = await call('POST', `${groupPath(id)}/payments`, {
      paymentGroupId: id,
      profileId: approved,
      amount: 1,
    });
    expect(added).toMatchObject({ status: 400, body: { message: expect.stringContaining('processed') } });
    const changed = await call('PUT', `${groupPath(id)}/payments/${pApproved}`, {
      paymentId: pApproved,
      paymentGroupId: id,
      profileId: approved,
      amount: 99,
    });
    expect(changed.status).toBe(400);
    expect((await call('DELETE', `${groupPath(id)}/payments/${pDoNotHonor}`)).status).toBe(400);
    const rescheduled = await call('PUT', groupPath(id), {
      scheduleDate: farFutureDate(121),
      scheduleHour: 6,
    });
    expect(rescheduled.status).toBe(200);
    expect(rescheduled.body).toEqual(processed);
    expect(await getGroup(id)).toEqual(processed);
    const after = await paymentsById(id);
    expect(after.get(pApproved)).toEqual(byId.get(pApproved));
    expect(after.get(pDoNotHonor)).toEqual(byId.get(pDoNotHonor));
    expect([...after.keys()]).toHaveLength(5);
  });

  test('a payment whose method is closed is declined R2, category 1, without a processor call', async () => {
    const payor = await createPayor();
    const profileId = `${payor.payorId}/${payor.defaultPaymentMethodId}`;
    const group = await createGroup({
      scheduleDate: farFutureDate(122),
      payments: [{ profileId, amount: 15 }],
    });
    const id = group.paymentGroupId as string;
    const paymentId = group.payments[0].paymentId as string;
    // A saved method cannot be deleted while a pending payment uses it (issue 21): its payor is
    // refused with 409 naming the payment.
    const refused = await call('DELETE', `/v1/rest/merchants/${MID}/payors/${payor.payorId}`);
    expect(refused.status).toBe(409);
    expect(refused.body.payments).toEqual([{ paymentGroupId: id, paymentId }]);
    // The account closes after the payment was scheduled: its status as an account update sets it.
    const { client, tableName } = localTable();
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.method(payor.payorId, payor.defaultPaymentMethodId as string),
        UpdateExpression: 'SET #status = :closed',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':closed': 'closed' },
      }),
    );

    expect((await trigger(id)).body.totalTriggered).toBe(1);
    const processed = await waitForStatus(id, 'processed');
    expect(processed.processingSummary).toMatchObject({ approvedCount: 0, declinedCount: 1, failedCount: 0 });
    const [payment] = await payments(id);
    expect(payment!.authResponse).toMatchObject({
      status: 'Declined',
      responseCode: 'R2',
      responseMessage: expect.stringMatching(/closed/i),
      declineCategory: '1',
      approvedAmount: 0,
    });
    expect(await ledger('SALE', `payment:${paymentId}`)).toBeUndefined();
  });
});

describe('a group larger than one batch', () => {
  test('every payment of a 620-payment group (three key ranges of one batch each, at once) is charged, each once', async () => {
    const profileId = await aProfile();
    // Distinct amounts: one saved method, no duplicate-check collisions.
    const list = Array.from({ length: 620 }, (_, i) => ({ profileId, amount: (100 + i) / 100 }));
    const group = await createGroup({ scheduleDate: farFutureDate(130), scheduleHour: 7, payments: list });
    const id = group.paymentGroupId as string;
    expect((await trigger(id)).body.totalTriggered).toBe(1);
    const done = await waitForStatus(id, 'processed', 60_000);
    expect(done.processingSummary).toMatchObject({ approvedCount: 620, declinedCount: 0, failedCount: 0 });
    const all = await payments(id);
    expect(all.filter((p) => (p.authResponse as Json | null)?.status === 'Approved')).toHaveLength(620);
    const charged = await Promise.all(
      all.map(async (p) => (await ledger('SALE', `payment:${p.paymentId as string}`))?.calls),
    );
    expect(charged.filter((calls) => calls !== 1)).toEqual([]);
  }, 120_000);
});

describe('the hourly event', () => {
  test('processes the groups of the current slot, not the next one, and none twice', async () => {
    await awayFromHourBoundary();
    const now = new Date();
    const profiles = await Promise.all([aProfile(), aProfile(), aProfile('4000000000009995'), aProfile()]);
    const [a, b, later] = await Promise.all([
      createGroup({
        ...slotOfTime(now),
        payments: [
          { profileId: profiles[0], amount: 21 },
          { profileId: profiles[2], amount: 22 },
        ],
      }),
      createGroup({ ...slotOfTime(now), payments: [{ profileId: profiles[1], amount: 23 }] }),
      createGroup({
        ...slotOfTime(new Date(now.getTime() + 3_600_000)),
        payments: [{ profileId: profiles[3], amount: 24 }],
      }),
    ]);
    const mine = [a.paymentGroupId as string, b.paymentGroupId as string];

    const tick = await hourlyTick(now);
    expect(tick.slot).toBe(now.toISOString().slice(0, 13));
    const started = (tick.started as Json[]).filter((s) => mine.includes(s.paymentGroupId));
    expect(started).toEqual(
      expect.arrayContaining(
        mine.map((paymentGroupId) => ({ paymentGroupId, executionArn: expect.any(String) })),
      ),
    );
    expect(started).toHaveLength(2);
    expect(ids(tick.started)).not.toContain(later.paymentGroupId);

    for (const id of mine) await waitForStatus(id, 'processed');
    expect(await getGroup(a.paymentGroupId)).toMatchObject({
      processingSummary: { approvedCount: 1, declinedCount: 1 },
    });
    expect(await getGroup(b.paymentGroupId)).toMatchObject({
      processingSummary: { approvedCount: 1, declinedCount: 0 },
    });
    expect((await getGroup(later.paymentGroupId)).status).toBe('pending');

    // The same tick delivered again processes nothing twice.
    const repeat = await hourlyTick(now);
    expect([...ids(repeat.started), ...ids(repeat.resumed)]).not.toEqual(expect.arrayContaining([mine[0]]));
    expect([...ids(repeat.started), ...ids(repeat.resumed)]).not.toEqual(expect.arrayContaining([mine[1]]));
    expect(ids(repeat.started)).not.toContain(later.paymentGroupId);
    for (const id of mine)
      expect(await executionsOf(id)).toEqual([expect.objectContaining({ status: healthy })]);
    const charged = [...(a.payments as Json[]), ...(b.payments as Json[])];
    for (const payment of charged) {
      expect((await ledger('SALE', `payment:${payment.paymentId}`))?.calls).toBe(1);
      expect(await transactionsOfPayment(payment.paymentId)).toHaveLength(1);
    }
    expect((await getGroup(later.paymentGroupId)).status).toBe('pending');
    expect(await ledger('SALE', `payment:${later.payments[0].paymentId}`)).toBeUndefined();
  }, 120_000);

  test('a late tick processes its slot, and a tick catches up pending groups of earlier slots it missed', async () => {
    await awayFromHourBoundary();
    const now = new Date();
    const hourStart = Math.floor(now.getTime() / 3_600_000) * 3_600_000;
    const [p1, p2] = await Promise.all([aProfile(), aProfile()]);
    const late = await createGroup({ ...slotOfTime(now), payments: [{ profileId: p1, amount: 25 }] });
    // A group left pending in the previous hour (its tick was missed): the API refuses past
    // slots, so a current-slot group is moved back one hour in the table.
    const missed = await createGroup({ ...slotOfTime(now), payments: [{ profileId: p2, amount: 26 }] });
    const previous = slotOfTime(new Date(hourStart - 3_600_000));
    const slot = slotOf(previous.scheduleDate, previous.scheduleHour);
    const { client, tableName } = localTable();
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.group(missed.paymentGroupId),
        UpdateExpression: 'SET scheduleDate = :d, scheduleHour = :h, gsi1sk = :g1, gsi2sk = :g2',
        ConditionExpression: '#status = :pending AND attribute_exists(gsi2sk)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':d': previous.scheduleDate,
          ':h': previous.scheduleHour,
          ':g1': keys.merchantGroupSort(slot, missed.paymentGroupId),
          ':g2': keys.dueSort(slot, missed.paymentGroupId),
          ':pending': 'pending',
        },
      }),
    );

    // Delivered at half past the hour (not on the boundary): the current slot and earlier ones are due.
    const tick = await hourlyTick(new Date(hourStart + 30 * 60_000));
    expect(tick.slot).toBe(now.toISOString().slice(0, 13));
    for (const group of [late, missed]) {
      expect(tick.started).toContainEqual({
        paymentGroupId: group.paymentGroupId,
        executionArn: expect.any(String),
      });
    }
    for (const group of [late, missed]) {
      const processed = await waitForStatus(group.paymentGroupId, 'processed');
      expect(processed.processingSummary).toMatchObject({ approvedCount: 1 });
      expect((await ledger('SALE', `payment:${group.payments[0].paymentId}`))?.calls).toBe(1);
    }
  }, 120_000);
});

describe('exactly-once charging', () => {
  test('50 concurrent triggers of one group: one execution, every payment charged once', async () => {
    const profiles = await Promise.all([aProfile(), aProfile(), aProfile('4000000000000077')]);
    const group = await createGroup({
      scheduleDate: farFutureDate(123),
      payments: [
        { profileId: profiles[0], amount: 41 },
        { profileId: profiles[1], amount: 42 },
        { profileId: profiles[2], amount: 43 },
      ],
    });
    const id = group.paymentGroupId as string;

    const results = await Promise.all(Array.from({ length: 50 }, () => trigger(id)));
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(200));
    const started = results.filter((r) => 'executionArn' in r.body.triggeredGroups[0]);
    const refused = results.filter((r) => 'error' in r.body.triggeredGroups[0]);
    expect(started).toHaveLength(1);
    expect(started[0]!.body).toMatchObject({ totalTriggered: 1, totalFailed: 0 });
    expect(refused).toHaveLength(49);
    for (const r of refused) {
      expect(r.body).toEqual({
        triggeredGroups: [{ paymentGroupId: id, error: expect.any(String) }],
        totalTriggered: 0,
        totalFailed: 1,
      });
    }

    const processed = await waitForStatus(id, 'processed');
    expect(processed.processingSummary).toMatchObject({ approvedCount: 3, failedCount: 0 });
    for (const payment of group.payments as Json[]) {
      expect((await ledger('SALE', `payment:${payment.paymentId}`))?.calls).toBe(1);
      expect(await transactionsOfPayment(payment.paymentId)).toHaveLength(1);
    }
    const executions = await executionsOf(id);
    expect(executions).toEqual([
      expect.objectContaining({
        executionArn: started[0]!.body.triggeredGroups[0].executionArn,
        status: healthy,
      }),
    ]);
  });

  test('a crash after the processor charged and before the write: the retried batch charges nothing twice', async () => {
    const profileId = await aProfile();
    const group = await createGroup({
      scheduleDate: farFutureDate(124),
      payments: [{ profileId, amount: 31.5 }],
    });
    const id = group.paymentGroupId as string;
    const paymentId = group.payments[0].paymentId as string;
    await crashAfterSale([paymentId]);

    expect((await trigger(id)).body.totalTriggered).toBe(1);
    const processed = await waitForStatus(id, 'processed', 40_000);
    expect(processed.processingSummary).toMatchObject({ approvedCount: 1, failedCount: 0 });
    const [payment] = await payments(id);
    expect(payment!.authResponse).toMatchObject({ status: 'Approved', approvedAmount: 31.5, paymentId });

    // The processor was asked twice (the retry replayed its first answer) but charged once.
    expect((await ledger('SALE', `payment:${paymentId}`))?.calls).toBe(2);
    expect(await saleLedgerItemsOfPayment(paymentId)).toHaveLength(1);
    const transactions = await transactionsOfPayment(paymentId);
    expect(transactions).toHaveLength(1);
    expect(transactions[0]).toMatchObject({
      status: 'Approved',
      transactionId: payment!.authResponse.transactionId,
    });
    const executions = await executionsOf(id);
    expect(executions).toEqual([expect.objectContaining({ status: healthy })]);
    const [execution] = executions;
    expect(execution!.stats.retries).toBeGreaterThanOrEqual(1);
  });
});

describe('trigger gates', () => {
  test('the group trigger: MID form and range, unknown, malformed and deleted groups', async () => {
    const group = await createGroup({ scheduleDate: farFutureDate(125) });
    const id = group.paymentGroupId as string;
    expect(await trigger(id, MID8)).toMatchObject({ status: 403, body: { responseCode: 403 } });
    expect(await trigger(id, PROD_LIKE_MID)).toMatchObject({ status: 403, body: { responseCode: 403 } });
    expect((await getGroup(id)).status).toBe('pending');
    expect(await trigger(randomUUID())).toMatchObject({ status: 404, body: { responseCode: 404 } });
    // A group of another merchant is not found under this one.
    const foreign = await call(
      'POST',
      `${merchantPath(OTHER_MID)}/groups`,
      { servicePayId: OTHER_MID, scheduleDate: farFutureDate(125), scheduleHour: 3, locationId: 1 },
      { token: await tokenFor(OTHER) },
    );
    expect(foreign.status).toBe(201);
    expect(await trigger(foreign.body.paymentGroupId)).toMatchObject({
      status: 404,
      body: { responseCode: 404 },
    });
    expect(await trigger('not-a-group-id')).toMatchObject({ status: 400, body: { responseCode: 400 } });

    expect((await call('DELETE', groupPath(id))).status).toBe(204);
    const deleted = await trigger(id);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({
      triggeredGroups: [{ paymentGroupId: id, error: expect.stringContaining('deleted') }],
      totalTriggered: 0,
      totalFailed: 1,
    });
    expect((await getGroup(id)).status).toBe('deleted');
    expect(await executionsOf(id)).toEqual([]);
  });

  test('the merchant trigger processes the pending groups of one slot', async () => {
    // A date no other test uses; every request names it, so that no other group could be touched.
    const scheduleDate = farFutureDate(400);
    const profiles = await Promise.all([aProfile(), aProfile()]);
    const first = await createGroup({
      scheduleDate,
      scheduleHour: 7,
      payments: [{ profileId: profiles[0], amount: 51 }],
    });
    const second = await createGroup({
      scheduleDate,
      scheduleHour: 7,
      payments: [{ profileId: profiles[1], amount: 52 }],
    });
    const otherHour = await createGroup({ scheduleDate, scheduleHour: 8 });
    const slot = { scheduleDate, scheduleHour: 7 };
    const path = (mid: string) => `${merchantPath(mid)}/process-payments`;

    expect((await call('POST', path(MID8), slot)).status).toBe(403);
    expect((await call('POST', path(PROD_LIKE_MID), slot)).status).toBe(403);
    expect(await call('POST', path(MID), { scheduleDate, scheduleHour: 24 })).toMatchObject({
      status: 400,
      body: { responseCode: 400 },
    });
    expect((await getGroup(first.paymentGroupId)).status).toBe('pending');

    const res = await call<Json>('POST', path(MID), slot);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ totalTriggered: 2, totalFailed: 0 });
    expect(res.body.triggeredGroups).toHaveLength(2);
    expect(ids(res.body.triggeredGroups).sort()).toEqual(
      [first.paymentGroupId, second.paymentGroupId].sort(),
    );
    for (const entry of res.body.triggeredGroups as Json[])
      expect(entry.executionArn).toEqual(expect.any(String));
    for (const group of [first, second]) {
      expect((await waitForStatus(group.paymentGroupId, 'processed')).processingSummary).toMatchObject({
        approvedCount: 1,
      });
    }
    expect((await getGroup(otherHour.paymentGroupId)).status).toBe('pending');
  });
});

describe('void-or-refund', () => {
  /** Triggers a group and waits for it; returns its payments by id. */
  async function process(groupId: string): Promise<Map<string, Json>> {
    expect((await trigger(groupId)).body.totalTriggered).toBe(1);
    await waitForStatus(groupId, 'processed');
    return paymentsById(groupId);
  }

  // Groups for the after-settlement cases, processed first so that they settle meanwhile.
  let settling: Promise<{ group: Json; byId: Map<string, Json> }>;
  let racing: Promise<{ group: Json; byId: Map<string, Json> }>;
  beforeAll(() => {
    racing = (async () => {
      const [p1, p2] = await Promise.all([aProfile(), aProfile()]);
      const group = await createGroup({
        scheduleDate: farFutureDate(129),
        payments: [
          { profileId: p1, amount: 61 },
          { profileId: p2, amount: 62 },
        ],
      });
      return { group, byId: await process(group.paymentGroupId) };
    })();
    racing.catch(() => undefined);
    settling = (async () => {
      const [p1, p2, p3] = await Promise.all([
        aProfile(),
        aProfile('4000000000000077'),
        aProfile('4000000000000002'),
      ]);
      const group = await createGroup({
        scheduleDate: farFutureDate(126),
        payments: [
          { profileId: p1, amount: 25 },
          { profileId: p2, amount: 80, allowPartial: true },
          { profileId: p3, amount: 27 },
        ],
      });
      return { group, byId: await process(group.paymentGroupId) };
    })();
    settling.catch(() => undefined);
  });

  test('on a pending group every payment is skipped', async () => {
    const [p1, p2] = await Promise.all([aProfile(), aProfile()]);
    const group = await createGroup({
      scheduleDate: farFutureDate(127),
      payments: [
        { profileId: p1, amount: 5 },
        { profileId: p2, amount: 6 },
      ],
    });
    const res = await voidOrRefund(group.paymentGroupId);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      paymentGroupId: group.paymentGroupId,
      voidedCount: 0,
      refundedCount: 0,
      skippedCount: 2,
      failedCount: 0,
    });
    expect((res.body.payments as Json[]).map((p) => p.outcome)).toEqual(['skipped', 'skipped']);
    for (const payment of await payments(group.paymentGroupId)) {
      expect(payment.authResponse).toBeNull();
      expect(payment).not.toHaveProperty('voidOrRefundResponses');
    }
  });

  test('before settlement: approved payments are voided, others skipped; a repeat reverses nothing', async () => {
    let group: Json;
    let byId: Map<string, Json>;
    for (let attempt = 1; ; attempt++) {
      // Fresh profiles each time: the same amount on the same method would be a duplicate.
      const [p1, p2, p3] = await Promise.all([aProfile(), aProfile('4000000000000002'), aProfile()]);
      group = await createGroup({
        scheduleDate: farFutureDate(128),
        payments: [
          { profileId: p1, amount: 40 },
          { profileId: p2, amount: 41 },
          { profileId: p3, amount: 42 },
        ],
      });
      expect(
        (await call('DELETE', `${groupPath(group.paymentGroupId)}/payments/${group.payments[2].paymentId}`))
          .status,
      ).toBe(204);
      byId = await process(group.paymentGroupId);
      const settles = Date.parse(byId.get(group.payments[0].paymentId)!.authResponse.settlementTime);
      if (settles - Date.now() >= 2_000) break;
      if (attempt === 4) throw new Error('no group processed at least 2 s before a settlement cut-off');
      await sleep(settles - Date.now() + 200);
    }
    const id = group.paymentGroupId as string;
    const [approvedId, declinedId, deletedId] = paymentIdsOf(group, 3);
    const transactionId = byId.get(approvedId)!.authResponse.transactionId as string;

    const res = await voidOrRefund(id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      paymentGroupId: id,
      voidedCount: 1,
      refundedCount: 0,
      skippedCount: 2,
      failedCount: 0,
    });
    const outcomes = new Map((res.body.payments as Json[]).map((p) => [p.paymentId, p.outcome]));
    expect(Object.fromEntries(outcomes)).toEqual({
      [approvedId]: 'voided',
      [declinedId]: 'skipped',
      [deletedId]: 'skipped',
    });

    const after = await paymentsById(id);
    const expectedVoid = {
      type: 'Void',
      transactionId,
      status: 'Voided',
      amount: 40,
      responseCode: '00',
      responseMessage: expect.any(String),
      date: expect.any(String),
    };
    expect(after.get(approvedId)!.voidOrRefundResponses).toEqual([expectedVoid]);
    expect(after.get(declinedId)).not.toHaveProperty('voidOrRefundResponses');
    expect(after.get(deletedId)).not.toHaveProperty('voidOrRefundResponses');
    expect((await call('GET', transactionPath(transactionId))).body).toMatchObject({
      status: 'Voided',
      availableRefundAmount: 0,
    });

    const again = await voidOrRefund(id);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ voidedCount: 0, refundedCount: 0, skippedCount: 3, failedCount: 0 });
    expect((await paymentsById(id)).get(approvedId)!.voidOrRefundResponses).toEqual([expectedVoid]);
    expect((await call('GET', transactionPath(transactionId))).body).toMatchObject({
      status: 'Voided',
      refundCount: 0,
      refundHistory: [],
    });
    expect((await ledger('VOID', `void:${transactionId}`))?.calls).toBe(1);
  });

  test('after settlement: approved amounts are refunded; paymentIds picks payments; a repeat refunds nothing', async () => {
    const { group, byId } = await settling;
    const id = group.paymentGroupId as string;
    const [fullId, partialId, declinedId] = paymentIdsOf(group, 3);
    const full = byId.get(fullId)!.authResponse as Json;
    const partial = byId.get(partialId)!.authResponse as Json;
    expect(partial).toMatchObject({ status: 'Approved', approvedAmount: 50 });
    const settles = Math.max(Date.parse(full.settlementTime), Date.parse(partial.settlementTime));
    await sleep(Math.max(0, settles - Date.now()) + 300);

    const unknown = await voidOrRefund(id, { paymentIds: [randomUUID()] });
    expect(unknown).toMatchObject({ status: 400, body: { responseCode: 400 } });
    expect((await paymentsById(id)).get(fullId)).not.toHaveProperty('voidOrRefundResponses');

    const one = await voidOrRefund(id, { paymentIds: [fullId] });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ voidedCount: 0, refundedCount: 1, skippedCount: 0, failedCount: 0 });
    expect(one.body.payments).toEqual([expect.objectContaining({ paymentId: fullId, outcome: 'refunded' })]);
    let now = await paymentsById(id);
    expect(now.get(fullId)!.voidOrRefundResponses).toEqual([
      expect.objectContaining({ type: 'Refund', status: 'Completed', amount: 25, responseCode: '00' }),
    ]);
    expect(now.get(partialId)).not.toHaveProperty('voidOrRefundResponses');

    const rest = await voidOrRefund(id);
    expect(rest.body).toMatchObject({ voidedCount: 0, refundedCount: 1, skippedCount: 2, failedCount: 0 });
    now = await paymentsById(id);
    expect(now.get(partialId)!.voidOrRefundResponses).toEqual([
      expect.objectContaining({ type: 'Refund', status: 'Completed', amount: 50 }),
    ]);
    expect(now.get(declinedId)).not.toHaveProperty('voidOrRefundResponses');
    expect((await call('GET', transactionPath(full.transactionId))).body).toMatchObject({
      status: 'Approved',
      refundedAmount: 25,
      availableRefundAmount: 0,
      refundCount: 1,
    });
    expect((await call('GET', transactionPath(partial.transactionId))).body).toMatchObject({
      refundedAmount: 50,
      availableRefundAmount: 0,
      refundCount: 1,
    });

    const repeat = await voidOrRefund(id);
    expect(repeat.body).toMatchObject({ voidedCount: 0, refundedCount: 0, skippedCount: 3, failedCount: 0 });
    const final = await paymentsById(id);
    for (const paymentId of [fullId, partialId]) {
      const responses = final.get(paymentId)!.voidOrRefundResponses as Json[];
      expect(responses).toHaveLength(1);
      expect((await ledger('REFUND', `refund:${responses[0]!.transactionId}`))?.calls).toBe(1);
    }
    expect((await call('GET', transactionPath(full.transactionId))).body).toMatchObject({
      refundCount: 1,
      refundedAmount: 25,
    });
  });

  test('racing void-or-refund calls after settlement refund each payment once', async () => {
    const { group, byId } = await racing;
    const id = group.paymentGroupId as string;
    const auths = [...byId.values()].map((p) => p.authResponse as Json);
    const settles = Math.max(...auths.map((a) => Date.parse(a.settlementTime)));
    await sleep(Math.max(0, settles - Date.now()) + 300);

    const results = await Promise.all(Array.from({ length: 10 }, () => voidOrRefund(id)));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    for (const r of results) expect(r.body.voidedCount).toBe(0);
    const after = await paymentsById(id);
    for (const [paymentId, before] of byId) {
      const responses = after.get(paymentId)!.voidOrRefundResponses as Json[];
      expect(responses).toEqual([
        expect.objectContaining({ type: 'Refund', status: 'Completed', amount: before.amount }),
      ]);
      expect((await call('GET', transactionPath(before.authResponse.transactionId))).body).toMatchObject({
        refundCount: 1,
        refundedAmount: before.amount,
        availableRefundAmount: 0,
      });
      const outcomes = results.map(
        (r) => (r.body.payments as Json[]).find((p) => p.paymentId === paymentId)!.outcome,
      );
      expect(outcomes).toContain('refunded');
    }
  });
});

describe('the executions of this file', () => {
  test('every execution ends SUCCEEDED (after its settlement wait), at most one per group', async () => {
    const groups = new Set(createdGroupIds);
    let mine: Awaited<ReturnType<typeof allExecutions>> = [];
    for (let i = 0; i < 100; i++) {
      mine = (await allExecutions()).filter((e) => groups.has(groupOfExecution(e.name) ?? ''));
      if (mine.every((e) => e.status !== 'RUNNING')) break;
      await sleep(200);
    }
    expect(mine.length).toBeGreaterThanOrEqual(10);
    expect(new Set(mine.map((e) => groupOfExecution(e.name))).size).toBe(mine.length);
    expect(mine.filter((e) => e.status !== 'SUCCEEDED')).toEqual([]);
  });
});

describe('production stage', () => {
  test('both trigger endpoints and the test clock answer 403', async () => {
    const runtime = await prodRuntime!;
    const tokenRes = await fetch(`${runtime.url}/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${TESTER.id}:${TESTER.secret}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    });
    expect(tokenRes.status).toBe(200);
    const { access_token: token } = (await tokenRes.json()) as { access_token: string };
    const send = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${runtime.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : undefined) as Json };
    };

    const slot = { scheduleDate: futureDate(2), scheduleHour: 9 };
    const created = await send('POST', `${merchantPath()}/groups`, {
      servicePayId: MID,
      ...slot,
      locationId: 1,
    });
    expect(created.status).toBe(201);
    const id = created.body.paymentGroupId as string;
    expect(await send('POST', `${groupPath(id)}/process-payments`)).toMatchObject({
      status: 403,
      body: { responseCode: 403 },
    });
    expect(await send('POST', `${merchantPath()}/process-payments`, slot)).toMatchObject({
      status: 403,
      body: { responseCode: 403 },
    });
    expect((await send('GET', groupPath(id))).body.status).toBe('pending');
    expect(await send('POST', `${merchantPath()}/settle-now`)).toMatchObject({
      status: 403,
      body: { responseCode: 403, message: 'settle-now is not available in production' },
    });
  });
});
