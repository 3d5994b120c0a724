/**
 * Local processing: the state machine (LocalStepFunctions on the ASL file), the hourly tick
 * (a timer at each UTC hour boundary, and `POST /__local/events/hourly {"time": ...}` delivering
 * the same scheduled event the EventBridge rule would) and two local-only test hooks:
 *
 * - `POST /__local/faults {"crashAfterSale": [paymentId, ...]}`: the next processor sale of each
 *   of these payments succeeds at the processor and then crashes before the service writes
 *   anything (the fault a retry must survive without a second charge);
 * - `GET /__local/executions`: executions with their history-event count and largest payload.
 *
 * None of these exist in the cloud; they live here, not in lambdas/.
 */
import type { Context } from 'aws-lambda';
import { PROCESS_GROUP_DEFINITION, processGroupTasks, SCHEDULER_HANDLER } from '../processing';
import { lambdaContext, type LocalRoute } from './http-server';
import { executionJson, LocalStepFunctions } from './step-functions';
import type { PaymentProcessor } from '../../lambdas/processor/processor';

type Handler = (input: unknown, context: Context) => Promise<unknown>;

const load = async (module: string): Promise<Handler> =>
  ((await import(`../../lambdas/${module}`)) as { handler: Handler }).handler;

/** Wraps the configured processor with the crash-after-sale fault. */
async function installFaults(): Promise<Set<string>> {
  const { paymentProcessor, useProcessor } = await import('../../lambdas/processor/index');
  const real = paymentProcessor();
  const crashAfterSale = new Set<string>();
  const faulty: PaymentProcessor = {
    tokenize: (r) => real.tokenize(r),
    void: (r) => real.void(r),
    refund: (r) => real.refund(r),
    settlementTime: (t) => real.settlementTime(t),
    async sale(request) {
      const result = await real.sale(request);
      const paymentId = request.idempotencyKey.replace(/^payment:/, '');
      if (crashAfterSale.delete(paymentId)) {
        throw new Error(`injected crash after the processor charged payment ${paymentId}`);
      }
      return result;
    },
  };
  useProcessor(faulty);
  return crashAfterSale;
}

const json = (body: string): Record<string, unknown> => {
  try {
    const value = JSON.parse(body || '{}') as unknown;
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

export async function localProcessing(stateMachineArn: string) {
  const tasks: Record<string, (input: unknown) => Promise<unknown>> = {};
  const substitutions: Record<string, string> = {};
  for (const task of processGroupTasks) {
    const handler = await load(task.handler);
    tasks[task.state] = (input) => handler(input, lambdaContext(task.state, 900_000));
    substitutions[task.substitution] = `arn:aws:lambda:us-east-1:000000000000:function:local-${task.state}`;
  }
  const sfn = new LocalStepFunctions(PROCESS_GROUP_DEFINITION, stateMachineArn, substitutions, tasks);
  const scheduler = await load(SCHEDULER_HANDLER);
  const tick = (time: string) =>
    scheduler({ id: 'local', 'detail-type': 'Scheduled Event', source: 'aws.events', time, detail: {} }, lambdaContext('Scheduler', 60_000));

  // A timer at each UTC hour boundary, like the EventBridge rule (cron(0 * * * ? *)).
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    const next = Math.floor(Date.now() / 3_600_000) * 3_600_000 + 3_600_000;
    timer = setTimeout(() => {
      tick(new Date(next).toISOString()).catch((error: unknown) => console.error('local hourly tick failed', error));
      arm();
    }, next - Date.now() + 50);
    timer.unref();
  };
  arm();

  const crashAfterSale = await installFaults();
  const localRoutes: [string, LocalRoute][] = [
    [
      'POST /__local/events/hourly',
      async (_req, body) => {
        const time = json(body).time;
        if (typeof time !== 'string' || Number.isNaN(Date.parse(time))) {
          return { status: 400, body: { message: 'time must be an ISO-8601 timestamp', responseCode: 400 } };
        }
        return { status: 200, body: await tick(new Date(time).toISOString()) };
      },
    ],
    [
      'POST /__local/faults',
      async (_req, body) => {
        const ids = json(body).crashAfterSale;
        if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
          return { status: 400, body: { message: 'crashAfterSale must be an array of paymentIds', responseCode: 400 } };
        }
        for (const id of ids) crashAfterSale.add(id.toLowerCase());
        return { status: 200, body: { crashAfterSale: [...crashAfterSale] } };
      },
    ],
    [
      'GET /__local/executions',
      async () => ({ status: 200, body: sfn.list().map((e) => ({ ...executionJson(e), stats: e.stats })) }),
    ],
  ];
  return { sfn, localRoutes, stopTimer: () => clearTimeout(timer) };
}
