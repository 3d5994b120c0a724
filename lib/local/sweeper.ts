/**
 * The local sweeper: a timer every SWEEP_INTERVAL_MINUTES, like the EventBridge rule (unless
 * LOCAL_SWEEP_TIMER is off), and `POST /__local/events/sweep {"olderThanSeconds"?: N}` for tests (N
 * from 0 to 86,400; default the sweeper's own staleness bound). Both invoke the scheduled handler
 * in its own invocation context.
 */
import type { Context } from 'aws-lambda';
import { SWEEP_INTERVAL_MINUTES, SWEEPER_HANDLER } from '../../contract/processing';
import { timerEnabled } from './daily-timer';
import { invokeAs, type LocalRoute } from './http-server';

type Handler = (input: unknown, context: Context) => Promise<unknown>;

const MAX_OLDER_THAN_SECONDS = 86_400;

/**
 * LOCAL_SWEEP_TIMER: `on` (the default) runs the sweeper every SWEEP_INTERVAL_MINUTES, `off` only
 * on `POST /__local/events/sweep`. The e2e runtimes turn it off: their files sweep when they mean
 * to, and a timer's sweep in between settled the stale Pending sale that money-safety's test reads
 * as still Pending (its GET must not settle it; its own sweep must).
 */
export const sweepTimerEnabled = (value: string | undefined): boolean =>
  timerEnabled('LOCAL_SWEEP_TIMER', value);

export interface LocalSweeperOptions {
  /** Run the timer (default: LOCAL_SWEEP_TIMER). */
  timer?: boolean;
  /** The scheduled handler (default: the sweeper function's). */
  handler?: Handler;
}

export async function localSweeper(
  options: LocalSweeperOptions = {},
): Promise<{ routes: [string, LocalRoute][]; stop: () => void }> {
  const handler =
    options.handler ?? ((await import(`../../lambdas/${SWEEPER_HANDLER}`)) as { handler: Handler }).handler;
  const run = (olderThanSeconds?: number) =>
    invokeAs('Sweeper', 300_000, (context) =>
      handler(
        { time: new Date().toISOString(), ...(olderThanSeconds !== undefined && { olderThanSeconds }) },
        context,
      ),
    );
  const timer =
    (options.timer ?? sweepTimerEnabled(process.env.LOCAL_SWEEP_TIMER))
      ? setInterval(() => {
          run().catch((error: unknown) => console.error('local sweep failed', error));
        }, SWEEP_INTERVAL_MINUTES * 60_000)
      : undefined;
  timer?.unref();

  const route: LocalRoute = async (_req, raw) => {
    let body: unknown;
    try {
      body = JSON.parse(raw || '{}');
    } catch {
      body = undefined;
    }
    const olderThan = (body as { olderThanSeconds?: unknown } | undefined)?.olderThanSeconds;
    if (
      typeof body !== 'object' ||
      body === null ||
      (olderThan !== undefined &&
        (!Number.isSafeInteger(olderThan) ||
          (olderThan as number) < 0 ||
          (olderThan as number) > MAX_OLDER_THAN_SECONDS))
    ) {
      const message = `body must be a JSON object; olderThanSeconds an integer from 0 to ${MAX_OLDER_THAN_SECONDS}`;
      return { status: 400, body: { message, responseCode: 400 } };
    }
    return { status: 200, body: await run(olderThan as number | undefined) };
  };
  return { routes: [['POST /__local/events/sweep', route]], stop: () => clearInterval(timer) };
}
