/**
 * The local return-rates job: a timer at each hour's run (RETURN_RATES_JOB.schedule, UTC), like
 * its EventBridge rule, and `POST /__local/events/return-rates` for tests and testers, answering
 * the run's report. Both invoke the scheduled handler in its own invocation context.
 */
import type { Context } from 'aws-lambda';
import { RETURN_RATES_JOB } from '../../contract/return-rates';
import { everyHourAt } from './daily-timer';
import { invokeAs, type LocalRoute } from './http-server';

type Handler = (input: unknown, context: Context) => Promise<unknown>;

export async function localReturnRates(): Promise<{ routes: [string, LocalRoute][]; stop: () => void }> {
  const { handler } = (await import(`../../lambdas/${RETURN_RATES_JOB.handler}`)) as { handler: Handler };
  const run = (time = new Date().toISOString()) =>
    invokeAs('ReturnRates', RETURN_RATES_JOB.timeoutSeconds * 1000, (context) => handler({ time }, context));
  const timer = everyHourAt(RETURN_RATES_JOB.schedule.minute, run, 'return-rates job');
  const route: LocalRoute = async () => ({ status: 200, body: await run() });
  return { routes: [['POST /__local/events/return-rates', route]], stop: timer.stop };
}
