/**
 * A claimed attempt whose execution started runs whatever happens next: its start
 * (core/processing.ts startAttempt, which a retry round's start shares) keeps the claim when only
 * the record of the execution's ARN fails, and releases it when the start itself failed. Step
 * Functions and the claim store are stand-ins.
 */
import '#support/handlers/env';

const started: string[] = [];
/** How the start fails, if it does: an error as the SDK throws it. */
let startFails: Error | undefined;
jest.mock('#shared/sfn', () => ({
  startExecution: jest.fn(async (name: string) => {
    if (startFails) throw startFails;
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
  startFails = undefined;
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

test.each<[string, Error]>([
  ['refused (a 4xx: the execution limit)', Object.assign(new Error('limit'), { $fault: 'client' })],
  ['never reached (the connection refused)', Object.assign(new Error('connect'), { code: 'ECONNREFUSED' })],
  [
    'never reached (as the SDK wraps it from another realm)',
    new Error('AWS SDK error wrapper for Error: connect ECONNREFUSED 127.0.0.1:9'),
  ],
])('a start Step Functions %s releases the claim: the group is pending again', async (_how, error) => {
  startFails = error;
  expect(await startProcessing(group, NOW)).toEqual({
    paymentGroupId: 'g',
    error: 'processing could not be started; try again',
  });
  expect(releaseClaim).toHaveBeenCalledTimes(1);
});

test.each<[string, Error]>([
  ['a 5xx', Object.assign(new Error('internal'), { $fault: 'server' })],
  ['a timeout', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })],
])(
  'defect: a start that may have happened (%s) released the claim, so a run it started charged while the group read pending: the claim is kept',
  async (_how, error) => {
    startFails = error;
    const { MAYBE_STARTED } = await import('#core/processing');
    expect(await startProcessing(group, NOW)).toEqual({ paymentGroupId: 'g', error: MAYBE_STARTED });
    expect(releaseClaim).not.toHaveBeenCalled();
  },
);
