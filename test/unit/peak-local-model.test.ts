/**
 * The scaled-down peak's model inputs (bench/sections/peak-local.ts): its workload, and a charge's
 * CPU derived from the calibration's measured times rather than assumed.
 */
import { groupSizes } from '../../bench/peak/inputs';
import {
  LOCAL_WORKLOAD,
  predictionInputs,
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

test("a charge's CPU is what its measured time leaves after the processor's latency and its DynamoDB calls", () => {
  const measured = {
    latencyMs: 500,
    costs: {
      ddbCallSeconds: 0.01,
      sfnCallSeconds: 0.002,
      chargeSeconds: 0.6,
      taskOverheadSeconds: 0.005,
      cpuMsPerPayment: { runtime: 7, dynamodb: 4 },
    },
  } as PeakLocalMeasurement;
  // 0.6 s - 0.5 s - 7 calls × 10 ms = 30 ms.
  expect(predictionInputs(measured, 7)).toEqual({
    ddbCallSeconds: 0.01,
    taskOverheadSeconds: 0.005,
    sfnCallSeconds: 0.002,
    cpuSeconds: 0.03,
  });
  // Never negative: calls slower than the charge they are part of leave nothing.
  expect(
    predictionInputs({ ...measured, costs: { ...measured.costs, ddbCallSeconds: 0.1 } }, 7).cpuSeconds,
  ).toBe(0);
});
