/**
 * The current hour (docs/decisions.md): a group created in, or moved into, the current UTC hour
 * after that hour's tick has run is started by the next run of the due sweep (every minute in the
 * cloud, so within a minute or two), without another tick.
 *
 * The shared e2e runtime runs without the due sweep (its files start their current-hour groups
 * themselves), so this file runs a runtime of its own. Its sweep's timer is off too: the test
 * delivers one sweep run itself (`POST /__local/events/due`), so what is shown is that one run of
 * the sweep, not a tick and not the passing of time, starts the groups.
 */
import { launchLocalRuntime, type LocalRuntimeProcess } from '#lib/local/launcher';
import { call } from '#support/api';
import { aProfile } from '#support/fixtures/e2e-resources';
import {
  createGroup,
  dueSweep,
  farFutureDate,
  getGroup,
  groupPath,
  hourlyTick,
  slotOfTime,
  waitForStatus,
} from '#support/processing';
import { sleep } from '#shared/clock';

let runtime: LocalRuntimeProcess | undefined;
let sharedUrl: string | undefined;

beforeAll(async () => {
  runtime = await launchLocalRuntime({ dataDirPrefix: 'sps-e2e-now', env: { LOCAL_DUE_SWEEP_SECONDS: '0' } });
  sharedUrl = process.env.E2E_BASE_URL;
  // The helpers call the runtime at E2E_BASE_URL: this file's own, until it ends.
  process.env.E2E_BASE_URL = runtime.url;
}, 120_000);
afterAll(async () => {
  process.env.E2E_BASE_URL = sharedUrl;
  await runtime?.stop();
});

test('a group created in, and one moved into, the current hour after its tick are started by the next due sweep, without a tick', async () => {
  // Not across an hour boundary between the tick and the writes: the groups must join the hour
  // whose tick has run (the sweep's run then names that hour, whenever it comes).
  const left = 3_600_000 - (Date.now() % 3_600_000);
  if (left < 20_000) await sleep(left + 1_000);
  const now = new Date();
  const tick = await hourlyTick(new Date(Math.floor(now.getTime() / 3_600_000) * 3_600_000));
  expect(tick.slot).toBe(now.toISOString().slice(0, 13));

  const profileId = await aProfile();
  const created = await createGroup({ ...slotOfTime(now), payments: [{ profileId, amount: 5.01 }] });
  const later = await createGroup({
    scheduleDate: farFutureDate(45),
    scheduleHour: 4,
    payments: [{ profileId, amount: 5.02 }],
  });
  const moved = await call('PUT', groupPath(later.paymentGroupId as string), slotOfTime(now));
  expect(moved.status).toBe(200);
  const ids = [created.paymentGroupId as string, later.paymentGroupId as string];
  // The hour's tick has run, and nothing else starts a group here: both wait.
  for (const id of ids) expect((await getGroup(id)).status).toBe('pending');

  // One run of the sweep in that hour starts both: each claimed, with its execution.
  const sweep = await dueSweep(now);
  expect(sweep.slot).toBe(now.toISOString().slice(0, 13));
  expect(sweep.started).toEqual(
    expect.arrayContaining(
      ids.map((paymentGroupId) => ({ paymentGroupId, executionArn: expect.any(String) })),
    ),
  );
  for (const id of ids) await waitForStatus(id, 'processed');
}, 120_000);
