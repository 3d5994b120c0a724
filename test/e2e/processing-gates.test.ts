/**
 * Processing over HTTP, its gates: exactly-once charging under concurrent triggers and a crash
 * between the processor's charge and its record, the group and merchant triggers' refusals, and
 * the production stage's 403s (a runtime of its own, started at once and awaited by its test).
 *
 * The runtime is otherwise shared with the other e2e files: this file's groups are scheduled far
 * in the future and triggered explicitly, and assertions are about them only.
 */
import { randomUUID } from 'node:crypto';
import { call, futureDate, MID, MID8, OTHER, OTHER_MID, PROD_LIKE_MID, TESTER, tokenFor } from '#support/api';
import { aProfile } from '#support/fixtures/e2e-resources';
import { launchLocalRuntime, type LocalRuntimeProcess } from '#lib/local/launcher';
import {
  allExecutions,
  closeLocalTable,
  createdGroupIds,
  createGroup,
  expectExecutionsOfGroupsSucceeded,
  farFutureDate,
  getGroup,
  groupPath,
  crashAfterSale,
  ledger,
  merchantPath,
  payments,
  saleLedgerItemsOfPayment,
  transactionsOfPayments,
  trigger,
  waitForStatus,
  type Json,
} from '#support/processing';

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
const healthy = expect.stringMatching(/^(RUNNING|SUCCEEDED)$/);

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
    const sales = await transactionsOfPayments((group.payments as Json[]).map((p) => p.paymentId as string));
    for (const payment of group.payments as Json[]) {
      expect((await ledger('SALE', `payment:${payment.paymentId}`))?.calls).toBe(1);
      expect(sales.get(payment.paymentId)).toHaveLength(1);
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
    const transactions = (await transactionsOfPayments([paymentId])).get(paymentId)!;
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

describe('the executions of this file', () => {
  test('every execution ends SUCCEEDED (after its settlement wait), at most one per group', async () => {
    await expectExecutionsOfGroupsSucceeded(createdGroupIds, 3);
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
