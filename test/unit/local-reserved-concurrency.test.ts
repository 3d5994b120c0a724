/**
 * The local runtime's reserved concurrency (issue 24, item 5): the setting's parsing, the cap
 * refusing an invocation at once with Lambda's throttle error, the counters, and a state machine's
 * Retry on `Lambda.TooManyRequestsException` taking the throttled Task up again.
 */
import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import {
  ConcurrencyLimiter,
  parseReservedConcurrency,
  TooManyRequestsError,
} from '#lib/local/reserved-concurrency';

const processing = ['BeginGroup', 'AuthorizeBatch', 'CompleteGroup'];
const known = [...processing, 'ReverseBatch'];

/** A promise and its resolver: an invocation held open until the test lets it end. */
const held = () => {
  let release!: () => void;
  const promise = new Promise<void>((ok) => (release = ok));
  return { promise, release };
};

test('LOCAL_RESERVED_CONCURRENCY: one number caps every processing function, Name=N one function, and the named entry wins', () => {
  expect(parseReservedConcurrency(undefined, processing, known)).toEqual({});
  expect(parseReservedConcurrency('', processing, known)).toEqual({});
  expect(parseReservedConcurrency('3', processing, known)).toEqual({
    BeginGroup: 3,
    AuthorizeBatch: 3,
    CompleteGroup: 3,
  });
  expect(parseReservedConcurrency(' AuthorizeBatch=2 , 4 ', processing, known)).toEqual({
    BeginGroup: 4,
    AuthorizeBatch: 2,
    CompleteGroup: 4,
  });
  expect(parseReservedConcurrency('ReverseBatch=0', processing, known)).toEqual({ ReverseBatch: 0 });
});

test('LOCAL_RESERVED_CONCURRENCY refuses an unknown function or a count that is not a whole number, naming it', () => {
  expect(() => parseReservedConcurrency('Authorize=2', processing, known)).toThrow(
    /no function "Authorize" \(one of BeginGroup, AuthorizeBatch, CompleteGroup, ReverseBatch\)/,
  );
  expect(() => parseReservedConcurrency('AuthorizeBatch=two', processing, known)).toThrow(
    /"AuthorizeBatch=two" needs a whole number/,
  );
  expect(() => parseReservedConcurrency('-1', processing, known)).toThrow(/"-1" needs a whole number/);
  expect(() => parseReservedConcurrency('1.5', processing, known)).toThrow(/"1.5" needs a whole number/);
});

test('an invocation over the cap is refused at once with Lambda.TooManyRequestsException, without running; the counters keep throttles and the peak', async () => {
  const limiter = new ConcurrencyLimiter({ AuthorizeBatch: 2 });
  const gates = [held(), held()];
  const running = gates.map((g) => limiter.invoke('AuthorizeBatch', () => g.promise.then(() => 'done')));
  let ran = false;
  const refused = limiter.invoke('AuthorizeBatch', async () => {
    ran = true;
  });
  await expect(refused).rejects.toBeInstanceOf(TooManyRequestsError);
  await expect(refused).rejects.toMatchObject({ name: 'Lambda.TooManyRequestsException' });
  expect(ran).toBe(false);
  // A function without a cap is only counted.
  await expect(limiter.invoke('BeginGroup', async () => 1)).resolves.toBe(1);
  expect(limiter.snapshot().AuthorizeBatch).toMatchObject({
    cap: 2,
    invocations: 2,
    throttles: 1,
    running: 2,
    peakConcurrency: 2,
  });

  gates[0]!.release();
  await running[0];
  // A slot freed: the next invocation runs.
  await expect(limiter.invoke('AuthorizeBatch', async () => 'again')).resolves.toBe('again');
  gates[1]!.release();
  await running[1];
  // A handler's own failure frees its slot too.
  await expect(
    limiter.invoke('AuthorizeBatch', () => Promise.reject(new Error('ProcessorUnavailable'))),
  ).rejects.toThrow('ProcessorUnavailable');
  const after = limiter.snapshot();
  expect(after.AuthorizeBatch).toMatchObject({
    invocations: 4,
    throttles: 1,
    running: 0,
    peakConcurrency: 2,
  });
  expect(after.BeginGroup).toMatchObject({ invocations: 1, throttles: 0, peakConcurrency: 1 });
  expect(after.BeginGroup!.cap).toBeUndefined();
});

test("a throttled Task is retried by its state's Retry on Lambda.TooManyRequestsException, and fails the run when those retries run out", async () => {
  const definition = (maxAttempts: number) =>
    ({
      StartAt: 'Work',
      States: {
        Work: {
          Type: 'Task',
          Resource: 'arn:aws:lambda:us-east-1:000000000000:function:local-Work',
          Retry: [
            {
              ErrorEquals: ['Lambda.TooManyRequestsException'],
              IntervalSeconds: 1,
              MaxAttempts: maxAttempts,
            },
          ],
          End: true,
        },
      },
    }) as unknown as StateMachineDefinition;
  /** Two executions at once invoking one function capped at 1. */
  const twoAtOnce = (maxAttempts: number) => {
    const limiter = new ConcurrencyLimiter({ Work: 1 });
    const work = () =>
      limiter.invoke('Work', () => new Promise<string>((ok) => setTimeout(() => ok('worked'), 30)));
    const machine = new StateMachine(definition(maxAttempts), { validationOptions: { checkArn: false } });
    const results = [1, 2].map(
      () =>
        machine.run(
          {},
          // Retried after 50 ms instead of the definition's second.
          { overrides: { taskResourceLocalHandlers: { Work: work }, retryIntervalOverrides: { Work: 50 } } },
        ).result,
    );
    return { results: Promise.allSettled(results), limiter };
  };

  // One is throttled, retried, and then runs.
  const retried = twoAtOnce(3);
  expect((await retried.results).map((r) => r.status === 'fulfilled' && r.value)).toEqual([
    'worked',
    'worked',
  ]);
  expect(retried.limiter.snapshot().Work).toMatchObject({ invocations: 2, throttles: 1, peakConcurrency: 1 });

  // Without a retry the throttle is the Task's error, and the execution's.
  const noRetry = twoAtOnce(0);
  const failed = (await noRetry.results).filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  expect(failed).toHaveLength(1);
  expect((failed[0]!.reason as Error).cause).toMatchObject({ name: 'Lambda.TooManyRequestsException' });
  expect(noRetry.limiter.snapshot().Work).toMatchObject({ invocations: 1, throttles: 1 });
});
