/**
 * A claimed attempt whose execution started runs whatever happens next: its start
 * (core/processing.ts startAttempt, which a retry round's start shares) keeps the claim when only
 * the record of the execution's ARN fails, and releases it when the start itself failed. Step
 * Functions and the claim store are stand-ins.
 */
import '#support/handlers/env';

const started: string[] = [];
let startFails = false;
jest.mock('#shared/sfn', () => ({
  startExecution: jest.fn(async (name: string) => {
    if (startFails) throw new Error('StartExecution refused');
    started.push(name);
    return `arn:execution:${name}`;
  }),
  executionStatus: jest.fn(async () => 'RUNNING'),
}));
const claim = jest.fn(async () => ({ claimed: true, executionName: 'pg-g-1' }));
const recordExecution = jest.fn(async () => {
  throw Object.assign(new Error('Throughput exceeds the current capacity'), {
    name: 'ProvisionedThroughputExceededException',
  });
});
const releaseClaim = jest.fn(async () => undefined);
jest.mock('#store/claims', () => ({ claimStore: () => ({ claim, recordExecution, releaseClaim }) }));

const group = { paymentGroupId: 'g', merchantId: '32350000001', scheduleDate: '2031-08-01', scheduleHour: 6 };
const NOW = new Date('2031-08-01T06:00:00Z');

let startProcessing: typeof import('#core/processing').startProcessing;
beforeAll(async () => {
  ({ startProcessing } = await import('#core/processing'));
});
beforeEach(() => {
  started.length = 0;
  startFails = false;
  releaseClaim.mockClear();
});

test('defect: a claim whose execution had started was released when recording its ARN failed (the run charged while the group read pending, and a second start claimed it again)', async () => {
  expect(await startProcessing(group, NOW)).toEqual({
    paymentGroupId: 'g',
    executionArn: 'arn:execution:pg-g-1',
  });
  expect(started).toEqual(['pg-g-1']);
  expect(releaseClaim).not.toHaveBeenCalled();
});

test('a start that failed releases the claim: the group is pending again', async () => {
  startFails = true;
  expect(await startProcessing(group, NOW)).toMatchObject({ paymentGroupId: 'g', error: expect.any(String) });
  expect(releaseClaim).toHaveBeenCalledTimes(1);
});
