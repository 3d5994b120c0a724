/**
 * The current hour (docs/decisions.md): a group created in, or moved into, the current UTC hour
 * after that hour's tick has run is processed within 60 seconds locally, without another tick
 * (the due sweep; in the cloud every minute).
 *
 * The shared e2e runtime runs without the due sweep (its files start their current-hour groups
 * themselves), so this file runs a runtime of its own, its sweep every 5 s instead of 30 (the
 * interval is a setting; what is shown is that the sweep, not a tick, starts the groups).
 */
import { launchLocalRuntime, type LocalRuntimeProcess } from '#lib/local/launcher';
import { call } from '#support/api';
import { aProfile } from '#support/fixtures/e2e-resources';
import {
  createGroup,
  farFutureDate,
  groupPath,
  hourlyTick,
  slotOfTime,
  waitForStatus,
} from '#support/processing';
import { sleep } from '#shared/clock';

let runtime: LocalRuntimeProcess | undefined;
let sharedUrl: string | undefined;

beforeAll(async () => {
  runtime = await launchLocalRuntime({ dataDirPrefix: 'sps-e2e-now', env: { LOCAL_DUE_SWEEP_SECONDS: '5' } });
  sharedUrl = process.env.E2E_BASE_URL;
  // The helpers call the runtime at E2E_BASE_URL: this file's own, until it ends.
  process.env.E2E_BASE_URL = runtime.url;
}, 120_000);
afterAll(async () => {
  process.env.E2E_BASE_URL = sharedUrl;
  await runtime?.stop();
});

test('a group created in, and one moved into, the current hour after its tick are processed within 60 s without a tick', async () => {
  // Not across an hour boundary: the groups must stay in the hour whose tick has run.
  const left = 3_600_000 - (Date.now() % 3_600_000);
  if (left < 70_000) await sleep(left + 1_000);
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
  const since = Date.now();

  await waitForStatus(created.paymentGroupId as string, 'processed', 60_000);
  await waitForStatus(
    later.paymentGroupId as string,
    'processed',
    Math.max(1, 60_000 - (Date.now() - since)),
  );
}, 180_000);
