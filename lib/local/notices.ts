/**
 * The local notices backstop: a timer every NOTICE_BACKSTOP_JOB.localIntervalSeconds (unless
 * LOCAL_NOTICES_TIMER is off), so that the sandbox's notices land within seconds of their
 * cut-off, and `POST /__local/events/notices` for tests and testers, answering the run's report.
 * Both invoke the scheduled handler in its own invocation context. The e2e runtimes turn the
 * timer off: a file delivers the notices when it means to, as it sweeps.
 */
import type { Context } from 'aws-lambda';
import { NOTICE_BACKSTOP_JOB } from '../../contract/notices';
import { timerEnabled } from './daily-timer';
import { invokeAs, type LocalRoute } from './http-server';

type Handler = (input: unknown, context: Context) => Promise<unknown>;

export async function localNotices(): Promise<{ routes: [string, LocalRoute][]; stop: () => void }> {
  const { handler } = (await import(`../../lambdas/${NOTICE_BACKSTOP_JOB.handler}`)) as { handler: Handler };
  const run = () =>
    invokeAs('NoticeBackstop', NOTICE_BACKSTOP_JOB.timeoutSeconds * 1000, (context) =>
      handler({ time: new Date().toISOString() }, context),
    );
  // One run at a time: a slow run is not overlapped by the next tick.
  let running = false;
  const timer = timerEnabled('LOCAL_NOTICES_TIMER', process.env.LOCAL_NOTICES_TIMER)
    ? setInterval(() => {
        if (running) return;
        running = true;
        run()
          .catch((error: unknown) => console.error('local notices backstop failed', error))
          .finally(() => {
            running = false;
          });
      }, NOTICE_BACKSTOP_JOB.localIntervalSeconds * 1000)
    : undefined;
  timer?.unref();
  const route: LocalRoute = async () => ({ status: 200, body: await run() });
  return { routes: [['POST /__local/events/notices', route]], stop: () => clearInterval(timer) };
}
