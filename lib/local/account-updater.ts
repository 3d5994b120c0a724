/**
 * The local account updater job: a timer at each day's run (ACCOUNT_UPDATER_JOB.schedule, UTC),
 * like its EventBridge rule, and `POST /__local/events/account-updater` for tests and testers,
 * answering the run's report. Both invoke the scheduled handler in its own invocation context.
 */
import type { Context } from 'aws-lambda';
import { ACCOUNT_UPDATER_JOB } from '../../contract/account-updater';
import { everyDay } from './daily-timer';
import { invokeAs, type LocalRoute } from './http-server';

type Handler = (input: unknown, context: Context) => Promise<unknown>;

export async function localAccountUpdater(): Promise<{ routes: [string, LocalRoute][]; stop: () => void }> {
  const { handler } = (await import(`../../lambdas/${ACCOUNT_UPDATER_JOB.handler}`)) as { handler: Handler };
  const run = (time = new Date().toISOString()) =>
    invokeAs('AccountUpdater', ACCOUNT_UPDATER_JOB.timeoutSeconds * 1000, (context) =>
      handler({ time }, context),
    );
  const timer = everyDay(ACCOUNT_UPDATER_JOB.schedule, run, 'account updater');
  const route: LocalRoute = async () => ({ status: 200, body: await run() });
  return { routes: [['POST /__local/events/account-updater', route]], stop: timer.stop };
}
