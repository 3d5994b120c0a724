/**
 * The tick's supervision of a claimed group (core/processing.ts superviseProcessing) by the status
 * Step Functions reports for its execution: every closed status (TIMED_OUT included, which the
 * local Step Functions of the integration test cannot produce) re-drives the group under the next
 * name at once; a running execution is left alone. Step Functions and the claim store are fakes.
 */
import '#support/handlers/env';

const statuses = new Map<string, string>();
const started: string[] = [];
jest.mock('#shared/sfn', () => ({
  startExecution: jest.fn(async (name: string) => {
    started.push(name);
    return `arn:execution:${name}`;
  }),
  executionStatus: jest.fn(async (arn: string) => statuses.get(arn) ?? 'MISSING'),
}));
const redrive = jest.fn(async (group: { executionName?: string }) => `${group.executionName}-next`);
const recordExecution = jest.fn(async () => undefined);
jest.mock('#store/claims', () => ({ claimStore: () => ({ redrive, recordExecution }) }));

/** Loaded after the fakes (jest.mock is not hoisted above imports here). */
let superviseProcessing: typeof import('#core/processing').superviseProcessing;
beforeAll(async () => {
  ({ superviseProcessing } = await import('#core/processing'));
});

const NOW = new Date('2031-08-01T06:00:00Z');
const group = (name: string) => ({
  paymentGroupId: `group-${name}`,
  merchantId: '32350000001',
  executionName: name,
  executionArn: `arn:execution:${name}`,
  claimedAt: new Date(NOW.getTime() - 60_000).toISOString(),
});

beforeEach(() => {
  started.length = 0;
  redrive.mockClear();
});

test.each(['FAILED', 'TIMED_OUT', 'ABORTED', 'SUCCEEDED'])(
  'an execution closed %s is re-driven under the next name at once',
  async (status) => {
    const g = group(`closed-${status}`);
    statuses.set(g.executionArn, status);
    expect(await superviseProcessing(g, NOW)).toEqual({
      paymentGroupId: g.paymentGroupId,
      executionArn: `arn:execution:${g.executionName}-next`,
    });
    expect(started).toEqual([`${g.executionName}-next`]);
  },
);

test('a running execution is left alone', async () => {
  const g = group('running');
  statuses.set(g.executionArn, 'RUNNING');
  expect(await superviseProcessing(g, NOW)).toBeUndefined();
  expect(redrive).not.toHaveBeenCalled();
  expect(started).toEqual([]);
});
