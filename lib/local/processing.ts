/**
 * Local processing: the state machine (LocalStepFunctions on the ASL file), the hourly tick
 * (a timer at each UTC hour boundary, and `POST /__local/events/hourly {"time": ...}` delivering
 * the same scheduled event the EventBridge rule would), the due sweep (a timer, and
 * `POST /__local/events/due {"time": ...}`), the daily series job (a timer, and
 * `POST /__local/events/daily {"time": ...}`) and `GET /__local/executions`: the
 * executions with their history-event count and largest payload. None of these exist in the
 * cloud; they live here, not in lambdas/.
 */
import type { Context } from 'aws-lambda';
import {
  processGroupTasks,
  SCHEDULER_HANDLER,
  DUE_START_HANDLER,
  voidOrRefundTasks,
} from '../../contract/processing';
import { SERIES_JOB } from '../../contract/series';
import { parseStage } from '../../contract/stage';
import { invokeAs, type LocalRoute } from './http-server';
import { executionJson, LocalStepFunctions } from './step-functions';
import { localMachineFiles, localSubstitutions, type LocalMachineFile } from './machines';
import { localSweeper } from './sweeper';
import { localAccountUpdater } from './account-updater';
import { localNotices } from './notices';
import { localReturnRates } from './return-rates';
import { everyDay, everyHour, hourlyTickEnabled } from './daily-timer';
import { ConcurrencyLimiter, parseReservedConcurrency } from './reserved-concurrency';
import { pipelineMetrics } from './pipeline-metrics';

type Handler = (input: unknown, context: Context) => Promise<unknown>;

const load = async (module: string): Promise<Handler> =>
  ((await import(`../../lambdas/${module}`)) as { handler: Handler }).handler;

const json = (body: string): Record<string, unknown> => {
  try {
    const value = JSON.parse(body || '{}') as unknown;
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

/**
 * A state machine file run locally, each Task bound in-process to its handler. Its definition is
 * not validated here, at each start, but once in the unit tier (test/unit/local-state-machines.test.ts).
 */
async function localMachine(
  file: LocalMachineFile,
  stateMachineArn: string,
  limiter: ConcurrencyLimiter,
): Promise<LocalStepFunctions> {
  const tasks: Record<string, (input: unknown) => Promise<unknown>> = {};
  for (const task of file.bindings) {
    const handler = await load(task.handler);
    // Through the function's reserved concurrency: over its cap the Task fails at once with
    // Lambda.TooManyRequestsException and the state's Retry decides (lib/local/reserved-concurrency.ts).
    tasks[task.state] = (input) =>
      limiter.invoke(task.state, () => invokeAs(task.state, 900_000, (context) => handler(input, context)));
  }
  return new LocalStepFunctions(file.definition, stateMachineArn, localSubstitutions(file), tasks, {
    validate: false,
  });
}

export async function localProcessing(stateMachineArn: string, voidOrRefundStateMachineArn: string) {
  const limiter = new ConcurrencyLimiter(
    parseReservedConcurrency(
      process.env.LOCAL_RESERVED_CONCURRENCY,
      processGroupTasks.map((t) => t.state),
      [...processGroupTasks, ...voidOrRefundTasks].map((t) => t.state),
    ),
  );
  // The runtime's stage: SERVICE_STAGE, set before this runs.
  const machines = localMachineFiles(parseStage(process.env.SERVICE_STAGE));
  const sfn = await localMachine(machines.processGroup, stateMachineArn, limiter);
  const voidOrRefund = await localMachine(machines.voidOrRefund, voidOrRefundStateMachineArn, limiter);
  const scheduler = await load(SCHEDULER_HANDLER);
  const tick = (time: string) =>
    invokeAs('Scheduler', 60_000, (context) =>
      scheduler(
        { id: 'local', 'detail-type': 'Scheduled Event', source: 'aws.events', time, detail: {} },
        context,
      ),
    );

  // A timer at each UTC hour boundary, like the EventBridge rule, unless LOCAL_HOURLY_TICK is off.
  const hourlyTimer = hourlyTickEnabled(process.env.LOCAL_HOURLY_TICK)
    ? everyHour(tick, 'hourly tick')
    : undefined;

  // The due start, like the cloud's every-minute rule: LOCAL_DUE_SWEEP_SECONDS (default 30, so a
  // group of the current hour starts within 60 s without a tick; 0 turns it off).
  const dueStart = await load(DUE_START_HANDLER);
  // `POST /__local/events/due {"time": ...}` delivers one run's event: a test runs the due start
  // when it means to, rather than waiting out the timer.
  const startDue = (time: string) =>
    invokeAs('DueStart', 50_000, (context) =>
      dueStart(
        { id: 'local', 'detail-type': 'Scheduled Event', source: 'aws.events', time, detail: {} },
        context,
      ),
    );
  const dueEvery = Number(process.env.LOCAL_DUE_SWEEP_SECONDS ?? '30');
  const dueTimer =
    Number.isFinite(dueEvery) && dueEvery > 0
      ? setInterval(() => {
          startDue(new Date().toISOString()).catch((error: unknown) =>
            console.error('local due start failed', error),
          );
        }, dueEvery * 1000)
      : undefined;
  dueTimer?.unref();

  // The daily series job, like its EventBridge rule (SERIES_JOB.schedule, UTC): a timer at each
  // day's run, and `POST /__local/events/daily {"time": ...}` delivering the same event.
  const seriesJob = await load(SERIES_JOB.handler);
  const daily = (time: string) =>
    invokeAs('SeriesJob', SERIES_JOB.timeoutSeconds * 1000, (context) =>
      seriesJob(
        { id: 'local', 'detail-type': 'Scheduled Event', source: 'aws.events', time, detail: {} },
        context,
      ),
    );
  const dailyTimer = everyDay(SERIES_JOB.schedule, daily, 'daily series job');

  /** A route that delivers a scheduled event of `body.time` to `run`. */
  const scheduledRoute =
    (run: (time: string) => Promise<unknown>): LocalRoute =>
    async (_req, body) => {
      const time = json(body).time;
      if (typeof time !== 'string' || Number.isNaN(Date.parse(time))) {
        return { status: 400, body: { message: 'time must be an ISO-8601 timestamp', responseCode: 400 } };
      }
      return { status: 200, body: await run(new Date(time).toISOString()) };
    };

  const localRoutes: [string, LocalRoute][] = [
    ['POST /__local/events/hourly', scheduledRoute(tick)],
    ['POST /__local/events/due', scheduledRoute(startDue)],
    ['POST /__local/events/daily', scheduledRoute(daily)],
    [
      'GET /__local/executions',
      async () => ({
        status: 200,
        body: [...sfn.list(), ...voidOrRefund.list()].map((e) => ({ ...executionJson(e), stats: e.stats })),
      }),
    ],
    [
      // Per Task function: its cap (LOCAL_RESERVED_CONCURRENCY), invocations, throttles, peak
      // concurrency and handler time since the runtime started (tests and the bench's peak-local);
      // the event pipeline's counters (lib/local/pipeline-metrics.ts: the bench's delivery).
      'GET /__local/metrics',
      async () => ({ status: 200, body: { functions: limiter.snapshot(), pipeline: pipelineMetrics } }),
    ],
    [
      // The top-level steps of an execution with their times (the tester CLI's `group steps`).
      'GET /__local/executions/steps',
      async (req) => {
        const arn = new URL(req.url ?? '', 'http://local').searchParams.get('executionArn');
        const execution = [...sfn.list(), ...voidOrRefund.list()].find((e) => e.executionArn === arn);
        if (!execution) return { status: 404, body: { message: 'no such execution', responseCode: 404 } };
        return { status: 200, body: { ...executionJson(execution), steps: execution.steps } };
      },
    ],
    [
      // StopExecution for tests (the SFN endpoint's port is internal): {"executionArn": ...}.
      'POST /__local/executions/stop',
      async (_req, body) => {
        const arn = json(body).executionArn;
        const execution = sfn.list().find((e) => e.executionArn === arn);
        if (!execution) return { status: 404, body: { message: 'no such execution', responseCode: 404 } };
        return { status: 200, body: executionJson(await sfn.stopExecution(execution.executionArn)) };
      },
    ],
  ];
  const sweeper = await localSweeper();
  localRoutes.push(...sweeper.routes);
  const accountUpdater = await localAccountUpdater();
  localRoutes.push(...accountUpdater.routes);
  const notices = await localNotices();
  localRoutes.push(...notices.routes);
  const returnRates = await localReturnRates();
  localRoutes.push(...returnRates.routes);
  const stopTimer = () => {
    hourlyTimer?.stop();
    dailyTimer.stop();
    clearInterval(dueTimer);
    sweeper.stop();
    accountUpdater.stop();
    notices.stop();
    returnRates.stop();
  };
  return { sfn, voidOrRefund, localRoutes, stopTimer };
}
