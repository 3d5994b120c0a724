/**
 * The scaled-down peak's model inputs (bench/sections/peak-local.ts): its workload, the
 * calibration's charge time and Task overhead, and a charge's CPU fitted to the calibration through
 * the model itself rather than assumed.
 */
import { groupSizes, serviceSettings, type PaymentCosts } from '../../bench/peak/inputs';
import {
  calibrationChargeSeconds,
  LOCAL_WORKLOAD,
  modelledChargeSeconds,
  PEAK_LOCAL,
  predictionInputs,
  taskOverheadSeconds,
  type PeakLocalMeasurement,
} from '../../bench/sections/peak-local-inputs';

test('the scaled-down workload adds up: 100 groups, 8,000 payments, each group 20-500', () => {
  const sizes = groupSizes(1, LOCAL_WORKLOAD);
  expect(sizes).toHaveLength(100);
  expect(sizes.reduce((a, b) => a + b, 0)).toBe(8_000);
  expect(Math.min(...sizes)).toBeGreaterThanOrEqual(20);
  expect(Math.max(...sizes)).toBeLessThanOrEqual(500);
  expect(groupSizes(1, LOCAL_WORKLOAD)).toEqual(sizes);
});

const costs: PaymentCosts = {
  callsBefore: 5,
  callsAfter: 2,
  cpuSeconds: 0,
  tableWriteUnits: 8,
  partitionWriteUnits: 2,
  merchantIndexWriteUnits: 0,
  indexLoads: [],
  historyEventsPerPayment: 0.05,
  emailsPerPayment: 1,
  sources: {},
};
const region = { ddbCallSeconds: 0.02, taskOverheadSeconds: 0.1, sfnCallSeconds: 0.005 };
const measurement = (chargeSeconds: number) =>
  ({
    latencyMs: PEAK_LOCAL.latencyMs,
    costs: { ...region, chargeSeconds, cpuMsPerPayment: { runtime: 7, dynamodb: 4 } },
  }) as PeakLocalMeasurement;

test("a charge's time in the calibration is over the rounds of the payments AuthorizeBatch charged (not the first batch's)", () => {
  const service = serviceSettings();
  const rounds = (PEAK_LOCAL.calibrationPayments - service.firstBatchSize) / service.concurrency;
  expect(calibrationChargeSeconds(rounds * 1.2, service)).toBeCloseTo(1.2, 10);
});

test("a Task's overhead: the path's time less its handlers', AuthorizeFirstBatch's among them, over its Tasks", () => {
  // BeginGroup 1 s, AuthorizeFirstBatch 2 s, two ranges of two batches (busy 16 s: 8 s a range),
  // CompleteGroup 1 s: 12 s of handlers on a 13.5 s path of 5 Tasks.
  expect(
    taskOverheadSeconds({
      spanSeconds: 13.5,
      beginGroupSeconds: 1,
      firstBatchSeconds: 2,
      batchBusySeconds: 16,
      completeGroupSeconds: 1,
      batches: 4,
      ranges: 2,
    }),
  ).toBeCloseTo(0.3, 10);
});

describe("a charge's CPU, fitted to the calibration through the model", () => {
  const service = serviceSettings();

  test("the model's charge in the calibration's conditions is the measured one: the rate's tokens are not counted twice", () => {
    // A machine whose charges spend 0.2 s of CPU: its calibration measures the model's own charge.
    const measured = measurement(modelledChargeSeconds(0.2, region, costs, service));
    const inputs = predictionInputs(measured, costs, service);
    expect(inputs).toMatchObject(region);
    expect(inputs.cpuSeconds).toBeGreaterThan(0.18);
    expect(inputs.cpuSeconds).toBeLessThan(0.22);
    expect(modelledChargeSeconds(inputs.cpuSeconds, region, costs, service)).toBeCloseTo(
      measured.costs.chargeSeconds,
      1,
    );
    // What the latency and the charge's calls alone leave holds the limiter's time too: the model,
    // which takes the tokens itself, would count it twice.
    const residual = measured.costs.chargeSeconds - PEAK_LOCAL.latencyMs / 1000 - 7 * region.ddbCallSeconds;
    expect(residual - inputs.cpuSeconds).toBeGreaterThan(0.05);
  });

  test('never negative: a charge no slower than what the model puts in it leaves no CPU', () => {
    expect(predictionInputs(measurement(0.5), costs, service).cpuSeconds).toBe(0);
  });
});
