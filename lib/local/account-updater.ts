/**
 * The local account updater job: a timer at each day's run (ACCOUNT_UPDATER_JOB.schedule, UTC),
 * like its EventBridge rule, and `POST /__local/events/account-updater` for tests and testers,
 * answering the run's report. Both invoke the scheduled handler in its own invocation context.
 */
import type { Context } from 'aws-lambda';
import { ACCOUNT_UPDATER_JOB } from '../../contract/account-updater';
import { invokeAs, type LocalRoute } from './http-server';

type Handler = (input: unknown, context: Context) => Promise<unknown>;

export async function localAccountUpdater(): Promise<{ routes: [string, LocalRoute][]; stop: () => void }> {
  const { handler } = (await import(`../../lambdas/${ACCOUNT_UPDATER_JOB.handler}`)) as { handler: Handler };
  const run = () =>
    invokeAs('AccountUpdater', ACCOUNT_UPDATER_JOB.timeoutSeconds * 1000, (context) =>
      handler({ time: new Date().toISOString() }, context),
    );
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    const now = new Date();
    const at = (day: number) =>
      Date.UTC(
        now.getUTCFullYear(),
        now.getUTCMonth(),
        day,
        Number(ACCOUNT_UPDATER_JOB.schedule.hour),
        Number(ACCOUNT_UPDATER_JOB.schedule.minute),
      );
    const next = at(now.getUTCDate()) > now.getTime() ? at(now.getUTCDate()) : at(now.getUTCDate() + 1);
    timer = setTimeout(
      () => {
        run().catch((error: unknown) => console.error('local account updater failed', error));
        arm();
      },
      next - Date.now() + 50,
    );
    timer.unref();
  };
  arm();
  const route: LocalRoute = async () => ({ status: 200, body: await run() });
  return { routes: [['POST /__local/events/account-updater', route]], stop: () => clearTimeout(timer) };
}
