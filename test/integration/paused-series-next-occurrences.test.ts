/**
 * Defect: a paused series' answer lists, as its next occurrences, slots that have already
 * passed. Such an occurrence never runs: the resume records it `skipped` (docs/decisions.md "An
 * occurrence whose slot has passed is skipped, never charged late"). Yet GET shows it under
 * `nextOccurrences` with its past UTC slot and a past `createAt`, which the reference says means
 * "In the past: within a minute" (contract/schemas/series.ts nextOccurrenceSchema). The view
 * (domain/series-view.ts nextOccurrences) walks from the cursor without looking at the time, and
 * the cursor of a paused series is never moved past passed slots (domain/series.ts skipPassed
 * acts only on active series).
 */
import type { CreateSeriesInput } from '#contract/schemas/series';
import { createSeries, requireSeries, updateSeries } from '#core/series';
import { seriesAnswer } from '#core/series-payments';
import { currentSlot, slotOf } from '#domain/groups';
import { reloadConfigForTests } from '#shared/config';
import { useClock } from '#shared/clock';
import { type Merchant } from '#store/merchants';
import { MerchantAdmin } from '#store/merchant-admin';
import { DynamoPayorStore } from '#store/payors';
import { createTestTable, type TestTable } from '#support/ddb';
import { useTestClock } from '#support/clock';
import { makePayor } from '#support/fixtures/index';

const MERCHANT: Merchant = { merchantId: '32350000001', shortId: '23500001', name: 'Springfield Elementary' };
const MID = MERCHANT.merchantId;

let table: TestTable;
let PROFILE: string;

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  reloadConfigForTests();
  await new MerchantAdmin(table.db, table.tableName).register(MERCHANT);
  const { payor, method } = makePayor(MID);
  await new DynamoPayorStore(table.db, table.tableName).create(payor, method);
  PROFILE = `${payor.payorId}/${method.savedPaymentMethodId}`;
});
afterAll(async () => {
  useClock(undefined);
  await table.drop();
});

it('defect: a paused series shows a passed slot as its next occurrence, which its resume then skips', async () => {
  const clock = useTestClock('2030-09-01T12:00:00.000Z');
  const input: CreateSeriesInput = {
    timeZone: 'America/New_York',
    localHour: 17,
    startDate: '2030-09-10',
    frequency: 'weekly',
    interval: 1,
    count: 3,
    locationId: 1,
    noticeDays: 0,
    payments: [{ profileId: PROFILE, amount: 10.25 }],
  };
  const series = await createSeries(input, MERCHANT, clock.now());
  await updateSeries(series.seriesId, MID, { status: 'paused' }, clock.now());

  // Occurrence 1 is 2030-09-10 17:00 EDT, 21:00 UTC: its slot passes while the series is paused.
  clock.set('2030-09-10T23:30:00.000Z');
  const now = clock.now();
  const shown = await seriesAnswer(await requireSeries(series.seriesId, MID));

  // What the resume does with occurrence 1: skipped, never charged.
  const resumed = await updateSeries(series.seriesId, MID, { status: 'active' }, now);
  expect(resumed.occurrences[0]).toMatchObject({ occurrence: 1, status: 'skipped' });

  // The answer read before the resume promised it as the next occurrence, at a slot already gone.
  const passed = shown.nextOccurrences.filter(
    (o) => slotOf(o.scheduleDate, o.scheduleHour) < currentSlot(now),
  );
  expect(passed).toEqual([]);
});
