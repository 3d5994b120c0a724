/**
 * Issue 13, "What it must show": the crash test. The local runtime (its own, not the e2e tier's
 * shared one) is killed with SIGKILL at seeded random moments, at least 20 times, while groups are
 * processed and clients sell (with and without idempotencyKey), refund, void and reverse groups;
 * it is restarted each time on the same data directory and ports, its table in a DynamoDB Local
 * that outlives it (as DynamoDB outlives a Lambda; test/support/crash-runtime.ts). After
 * the last restart, ticks and sweeps run until the groups are done and nothing is Pending; then
 * the reconciliation must report no unhealed difference, no payment or sale intent may be charged
 * twice at the sandbox, every payment of every group has its authResponse, no group is left
 * processing, and every sale a client saw Approved is recorded so. A webhook receiver on loopback,
 * subscribed to the sales', refunds' and groups' events, gets each such event written, and none
 * that was not (crash-webhooks.ts). One scheduled payment is a bank debit on the sandbox's return
 * account: its return, applied by the notices backstop among the kills, is applied once (one
 * Returned, one `payment.returned`, its group's summary counting it once).
 *
 * Reproduce a run with its printed seed: `CRASH_SEED=<seed> npx jest test/e2e/crash.test.ts
 * --selectProjects e2e`. CRASH_KILLS changes the number of kills (at least 20).
 */
import { CrashClient } from '#support/crash-client';
import {
  groupsNotProcessed,
  judge,
  readItems,
  readTable,
  reconcileLocal,
  returnNotApplied,
  stillPending,
} from '#support/crash-oracle';
import { keys } from '#store/keys';
import { sleep } from '#shared/clock';
import { between, CrashRuntime, pick, seededRandom } from '#support/crash-runtime';
import { awaitDeliveries, subscribe } from '#support/crash-webhooks';
import {
  addReturnedDebit,
  createGroups,
  Observations,
  runWorker,
  seedPayors,
  type Workload,
} from '#support/crash-workload';
import { startReceiver, type Receiver } from '#support/webhook-receiver';

const SEED = Number(process.env.CRASH_SEED ?? 20261122);
const KILLS = Math.max(20, Number(process.env.CRASH_KILLS ?? 20));
const GROUPS = 6;
const WORKERS = 6;
/** Life of the runtime between its ready line and the kill: a random moment of its work. */
const LIFE_MS: [number, number] = [400, 3_000];
/** After the last restart: ticks and sweeps until quiet, at most this long. */
const SETTLE_MS = 90_000;
/** Then, if the returned debit's notice is still held, its next tries, at most this long. */
const RETURN_MS = 100_000;
/** Then the webhook sweeps, until every event written is received, at most this long. */
const DELIVERIES_MS = 45_000;
/** Everything, start to stop; jest's own limit is a little above. */
const BUDGET_MS = 7 * 60_000;

const runtime = new CrashRuntime();
let receiver: Receiver | undefined;
const started = Date.now();
const since = new Date(started - 60_000).toISOString();

/** Set when the test ends, however: every loop below stops at it. */
let ended = false;

afterAll(async () => {
  // Whatever happened, nothing of the test runs on and no runtime or Java is left behind.
  ended = true;
  const keep = process.env.CRASH_KEEP_DATA === '1';
  await receiver?.close();
  await runtime.stop(keep);
  if (keep) console.log(`crash test: data kept in ${runtime.dataDir}`);
}, 60_000);

/** The hourly event for the due hour, and now and then the sweeper; a dead runtime is skipped. */
async function drive(
  client: CrashClient,
  time: () => string,
  sweepOlderThan: number | undefined,
  until: () => boolean,
) {
  for (let n = 0; !until() && !ended; n++) {
    await client.local('/__local/events/hourly', { time: time() });
    // The notices backstop now and then (its own timer, every 5 s, seldom outlives a life): the
    // returned debit's notice is applied among the kills.
    if (n % 4 === 1) await client.local('/__local/events/notices', {});
    if (n % 4 === 3)
      await client.local(
        '/__local/events/sweep',
        sweepOlderThan === undefined ? {} : { olderThanSeconds: sweepOlderThan },
      );
    await sleep(700);
  }
}

test(
  `SIGKILL at ${KILLS} random moments (seed ${SEED}): money stays safe`,
  async () => {
    const random = seededRandom(SEED);
    const lives = Array.from({ length: KILLS }, () => between(random, ...LIFE_MS));
    // Group k becomes due (the tick's hour reaches k) after a few kills, so groups start at random
    // moments of the schedule too.
    const dueAfterKill = Array.from({ length: GROUPS }, (_, k) => Math.floor((k * KILLS) / (2 * GROUPS)));
    console.log(`crash test: seed ${SEED}, ${KILLS} kills after ${lives.join(', ')} ms of life`);

    await runtime.start();
    const deadline = () => (ended ? 0 : started + BUDGET_MS - SETTLE_MS);
    const client = new CrashClient(runtime.url, deadline);
    receiver = await startReceiver(() => 204);
    const subscribed = await subscribe(client, receiver);
    const scheduleDate = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    const profiles = await seedPayors(client, random, 24);
    const groups = await createGroups(client, random, profiles, scheduleDate, GROUPS);
    const reversals = new Map<string, number>();
    while (reversals.size < 2) reversals.set(pick(random, groups).paymentGroupId, 0);
    const returned = await addReturnedDebit(client, groups, reversals);

    let stopping = false;
    let dueHour = 0;
    const hour = () => `${scheduleDate}T${String(dueHour).padStart(2, '0')}:00:00Z`;
    const workload: Workload = {
      client,
      observed: new Observations(),
      profiles,
      groups,
      reversals,
      stopping: () => stopping || ended,
    };
    const workers = Array.from({ length: WORKERS }, (_, i) =>
      runWorker(workload, i, seededRandom(SEED + 1 + i)),
    );
    let chaosOver = false;
    const driver = drive(client, hour, undefined, () => chaosOver);

    for (let kill = 0; kill < KILLS && !ended; kill++) {
      dueHour = Math.max(0, ...dueAfterKill.map((after, k) => (kill >= after ? k : 0)));
      await sleep(lives[kill]!);
      await runtime.kill();
      await runtime.start();
    }
    console.log(
      `crash test: ${runtime.kills} kills done after ${Math.round((Date.now() - started) / 1000)} s`,
    );

    // Clients finish what they started (with retries), then the ticks and the sweeper settle it.
    stopping = true;
    await Promise.all(workers);
    chaosOver = true;
    await driver;
    dueHour = GROUPS - 1;
    const chaosEnded = Date.now();
    // Settled: every group processed and the returned debit's return applied (read by key), then
    // no sale or refund Pending (the table's sales and refunds, read once the rest is done).
    const known = [...new Set([...groups.map((g) => g.paymentGroupId), returned.paymentGroupId])].map((id) =>
      keys.group(id),
    );
    const busyWith = async (): Promise<string[]> => {
      const read = await readItems(runtime.dataDir, [
        ...known,
        keys.payment(returned.paymentGroupId, returned.paymentId),
      ]);
      const left = [...groupsNotProcessed(read), ...returnNotApplied(read, returned)];
      if ((read.get('group') ?? []).length < known.length) left.push('a group not found');
      if (left.length > 0) return left;
      return stillPending(await readTable(runtime.dataDir, ['transaction', 'refund']));
    };
    let busy = ['not looked at yet'];
    const settleUntil = Date.now() + SETTLE_MS;
    const sweeps = drive(client, hour, 0, () => busy.length === 0 || Date.now() > settleUntil);
    while (busy.length > 0 && Date.now() < settleUntil) {
      await sleep(2_000);
      busy = await busyWith();
    }
    await sweeps;
    console.log(
      `crash test: settled in ${Math.round((Date.now() - chaosEnded) / 1000)} s` +
        (busy.length > 0 ? `; still busy: ${busy.join(', ')}` : ''),
    );
    // A notice that came while its sale was still Pending (a kill between its charge and its
    // answer) is held and tried again on its hold's time (30 s, then 60 s): the return waits for it.
    const returnUntil = Date.now() + RETURN_MS;
    const returnedPayment = () =>
      readItems(runtime.dataDir, [keys.payment(returned.paymentGroupId, returned.paymentId)]);
    let returnLeft = returnNotApplied(await returnedPayment(), returned);
    while (returnLeft.length > 0 && Date.now() < returnUntil) {
      await client.local('/__local/events/notices', {});
      await sleep(2_000);
      returnLeft = returnNotApplied(await returnedPayment(), returned);
    }
    if (returnLeft.length > 0) console.log(`crash test: the returned debit still: ${returnLeft.join(', ')}`);
    await client.local('/__local/events/sweep', { olderThanSeconds: 0 });
    const webhooks = await awaitDeliveries(
      client,
      runtime.dataDir,
      receiver,
      subscribed,
      workload.observed.approved.keys(),
      DELIVERIES_MS,
    );

    const reconciled = await reconcileLocal(runtime.dataDir, since);
    const { problems, summary } = judge(
      await readTable(runtime.dataDir),
      groups,
      workload.observed,
      returned,
    );
    console.log(
      `crash test: seed ${SEED}, ${runtime.kills} kills, ${Math.round((Date.now() - started) / 1000)} s; ` +
        `${JSON.stringify(workload.observed.counts)}, unknown outcomes ${workload.observed.unknown}, ` +
        `requests interrupted and retried ${client.interrupted}, ` +
        `${JSON.stringify(summary)}, reconciliation healed ${reconciled.report.healed}, ` +
        `unhealed ${reconciled.report.unhealed}; refusals: ${workload.observed.refusals.slice(0, 10).join(' | ')}; ` +
        `webhooks: ${webhooks.written} events written, ${receiver.received.length} requests received`,
    );

    expect(runtime.kills).toBeGreaterThanOrEqual(20);
    expect(reconciled.report.differences.filter((d) => d.healed !== true)).toEqual([]);
    expect(reconciled.report.unhealed).toBe(0);
    expect(reconciled.code).toBe(0);
    expect(problems).toEqual([]);
    expect(workload.observed.approved.size).toBeGreaterThan(0);
    // Webhooks: every event written arrived, verified; none arrived that was not written.
    expect(webhooks.written).toBeGreaterThan(0);
    expect(webhooks).toMatchObject({ missing: [], phantom: [], unverified: 0, approvedUnannounced: [] });

    expect(await runtime.stop()).toBe(0);
    expect(runtime.orphans).toEqual([]);
  },
  BUDGET_MS + 60_000,
);
