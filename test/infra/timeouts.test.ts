/**
 * Issue 10: every function's timeout fits its caller and covers its bounded work.
 *
 * - API functions answer inside API Gateway's 29 s integration timeout (their own timeout is
 *   under it, so the function, not the gateway, ends a slow request).
 * - Each state machine Task's function has a timeout at least its declared worst-case work, and
 *   no longer than the Task's own TimeoutSeconds (else the state machine would give up on a
 *   function still running, and retry it alongside).
 * - Every task must declare its bound here: a new task fails this test until it does.
 */
import { basename } from 'node:path';
import type { Template } from 'aws-cdk-lib/assertions';
import {
  PROCESS_GROUP_DEFINITION,
  processGroupTasks,
  RECEIPTS_CONCURRENCY,
  SWEEP_TIMEOUT_SECONDS,
  SWEEPER_HANDLER,
  VOID_OR_REFUND,
  VOID_OR_REFUND_DEFINITION,
  voidOrRefundTasks,
  type TaskBinding,
  BATCH_RATE_WAIT_SECONDS,
} from '#contract/processing';
import { routes } from '#contract/routes/index';
import type { Stage } from '#contract/stage';
import { statesOf } from '#support/asl-states';
import { PROCESSOR_TIMEOUT_MS } from '#processor/timeout';
import {
  flatten,
  functionIdOf,
  props,
  resourcesOf,
  SYNTH_TIMEOUT_MS,
  stageTemplateOf,
} from '#support/cdk/synth';

/** API Gateway's integration timeout (REST APIs, default and maximum without a quota raise). */
const API_GATEWAY_TIMEOUT_SECONDS = 29;
/** Lambda's maximum timeout. */
const LAMBDA_MAX_TIMEOUT_SECONDS = 900;

const PROCESSOR_SECONDS = PROCESSOR_TIMEOUT_MS / 1000;
/** A handful of single-item DynamoDB calls with their SDK retries. */
const TABLE_SECONDS = 1;
/** Charges (or reversals) in flight in one batch task, and the batch's size (config defaults). */
const IN_FLIGHT = 16;
const BATCH = 250;
const rounds = Math.ceil(BATCH / IN_FLIGHT);
/** A receipts page (RECEIPTS_PAGE_SIZE's default). */
const RECEIPTS_PAGE = 500;

/**
 * Each task's worst-case work in seconds, with the reasoning. A charge or a reversal is one
 * processor call bounded by the adapter (3 s) and its writes; once the processor has not answered,
 * AuthorizeBatch starts no further charge (its remaining payments wait for the retry).
 */
const WORK_BOUNDS: Record<string, { seconds: number; why: string }> = {
  'process-group/begin-group': {
    seconds: 40 * TABLE_SECONDS,
    why: 'counts through the group keys to cut ranges: ~40 one-MB queries for 100,000 payments',
  },
  'process-group/authorize-first-batch': {
    seconds: BATCH_RATE_WAIT_SECONDS + 2 * (2 * PROCESSOR_SECONDS + 2) + TABLE_SECONDS,
    why: "AuthorizeBatch's code: see it",
  },
  'process-group/authorize-batch': {
    seconds: Math.max(
      rounds * (PROCESSOR_SECONDS + TABLE_SECONDS) + 2 * (2 * PROCESSOR_SECONDS + 2),
      BATCH_RATE_WAIT_SECONDS + 2 * (2 * PROCESSOR_SECONDS + 2) + TABLE_SECONDS,
    ),
    why: "rounds of 16 charges at the processor bound, plus one round that fails (sale and its timeout reversal, retried with backoff) after which nothing new starts; or the processor's rate waited for until BATCH_RATE_WAIT_SECONDS, after which no charge starts and the last ones end",
  },
  'process-group/fail-batch': {
    seconds: rounds * 2 * TABLE_SECONDS,
    why: 'a Declined record and a Failed answer per unanswered payment, 16 at once; no processor call',
  },
  'process-group/complete-group': { seconds: 2 * TABLE_SECONDS, why: 'one conditional write of the group' },
  'process-group/check-settlement': { seconds: 2 * TABLE_SECONDS, why: 'reads the group and the test clock' },
  'process-group/emit-receipts': {
    seconds: (Math.ceil(RECEIPTS_PAGE / RECEIPTS_CONCURRENCY) + 3) * TABLE_SECONDS,
    why: 'one page of a range: its read, the merchant and the payors, then rounds of 16 receipts (a sale read and an outbox write each)',
  },
  'process-group/receipts-queued': { seconds: 2 * TABLE_SECONDS, why: 'one conditional write of the group' },
  'void-or-refund/begin': { seconds: 2 * TABLE_SECONDS, why: 'reads the group' },
  'void-or-refund/reverse-batch': {
    seconds:
      Math.ceil(VOID_OR_REFUND.batchSize / VOID_OR_REFUND.concurrency) * (PROCESSOR_SECONDS + TABLE_SECONDS),
    why: 'rounds of reversals at the processor bound',
  },
  'void-or-refund/complete': { seconds: 2 * TABLE_SECONDS, why: 'one write of the group summary' },
};

const machines: [string, string, readonly TaskBinding[]][] = [
  [basename(PROCESS_GROUP_DEFINITION), PROCESS_GROUP_DEFINITION, processGroupTasks],
  [basename(VOID_OR_REFUND_DEFINITION), VOID_OR_REFUND_DEFINITION, voidOrRefundTasks],
];

describe.each(['dev', 'prod'] as const)('ScheduledPayments-%s function timeouts', (stage: Stage) => {
  let template: Template;
  beforeAll(() => {
    template = stageTemplateOf(stage);
  }, SYNTH_TIMEOUT_MS);

  const timeoutOf = (handler: string): number =>
    props(resourcesOf(template, 'AWS::Lambda::Function')[functionIdOf(template, stage, handler)]!)
      .Timeout as number;

  it('gives every API function a timeout under API Gateway’s 29 s', () => {
    // Prod has no functions for the non-production routes (its triggers answer 403 inline).
    const deployed = Object.values(
      routes as Record<string, { handler: string; nonProdOnly?: boolean }>,
    ).filter((r) => stage !== 'prod' || r.nonProdOnly !== true);
    const handlers = [...new Set(deployed.map((r) => r.handler))];
    expect(handlers.length).toBeGreaterThan(20);
    for (const handler of handlers) {
      const timeout = timeoutOf(handler);
      expect({ handler, fits: timeout < API_GATEWAY_TIMEOUT_SECONDS }).toEqual({ handler, fits: true });
    }
    // No integration asks the gateway to wait longer than it can.
    for (const method of Object.values(resourcesOf(template, 'AWS::ApiGateway::Method'))) {
      const integration = props(method).Integration as { TimeoutInMillis?: number } | undefined;
      expect(integration?.TimeoutInMillis ?? 29_000).toBeLessThanOrEqual(API_GATEWAY_TIMEOUT_SECONDS * 1000);
    }
  });

  it.each(machines)(
    'covers each Task of %s with its function timeout, under the Task’s own',
    (_name, file, tasks) => {
      const states = statesOf(file);
      for (const task of tasks) {
        const bound = WORK_BOUNDS[task.handler];
        expect({ task: task.handler, declared: bound !== undefined }).toEqual({
          task: task.handler,
          declared: true,
        });
        const timeout = timeoutOf(task.handler);
        expect({ task: task.handler, covers: timeout >= bound!.seconds }).toEqual({
          task: task.handler,
          covers: true,
        });
        expect(timeout).toBeLessThanOrEqual(LAMBDA_MAX_TIMEOUT_SECONDS);
        const state = states.get(task.state);
        expect(state?.Type).toBe('Task');
        if (state?.TimeoutSeconds !== undefined) expect(timeout).toBeLessThan(state.TimeoutSeconds);
      }
    },
  );

  it('gives the sweeper the timeout its budget was planned with', () => {
    expect(timeoutOf(SWEEPER_HANDLER)).toBe(SWEEP_TIMEOUT_SECONDS);
  });

  it("defect: a scheduled function whose rule retries nothing (the due start, the sweeper, the notices backstop, the webhook recovery) was still run twice more by Lambda's asynchronous retries, beside the next scheduled run", () => {
    const functions = resourcesOf(template, 'AWS::Lambda::Function');
    const idOf = (value: unknown): string => flatten(value).replace(/^\$\{|(\.Arn)?\}$/g, '');
    const noRetry = Object.values(resourcesOf(template, 'AWS::Events::Rule')).flatMap((rule) =>
      (props(rule).Targets as { Arn: unknown; RetryPolicy?: { MaximumRetryAttempts?: number } }[])
        .filter((t) => t.RetryPolicy?.MaximumRetryAttempts === 0)
        .map((t) => idOf(t.Arn)),
    );
    expect(noRetry.length).toBeGreaterThanOrEqual(4);
    expect(noRetry.every((id) => functions[id] !== undefined)).toBe(true);
    const asyncRetries = new Map(
      Object.values(resourcesOf(template, 'AWS::Lambda::EventInvokeConfig')).map((config) => [
        idOf(props(config).FunctionName),
        props(config).MaximumRetryAttempts,
      ]),
    );
    expect(noRetry.map((id) => [id, asyncRetries.get(id)])).toEqual(noRetry.map((id) => [id, 0]));
  });
});
