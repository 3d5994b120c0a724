/**
 * The webhook recovery (every minute; locally a timer): a pending delivery whose queue message is
 * lost, was never sent, or whose retry is later than a queue can delay a message gets a new
 * message once its `checkAt` has passed (core/webhook-recovery.ts `recoverDeliveries`). Bounded per run.
 */
import { recoverDeliveries } from '#core/webhook-recovery';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';
import { clock } from '#shared/clock';

export const handler = taskHandler(async (event: { time?: string }) => {
  const parsed = event?.time === undefined ? NaN : Date.parse(event.time);
  // The rule's time, or now; never later than now (a delivery is never sent before it is due).
  const now = new Date(Number.isNaN(parsed) ? clock.nowMs() : Math.min(parsed, clock.nowMs()));
  const result = await recoverDeliveries(now);
  if (result.enqueued > 0) logger.info('webhook recovery', result);
  return result;
});
