/**
 * The hourly scheduler (EventBridge rule, or `POST /__local/events/hourly` locally). It goes by
 * the event's `time`, never the wall clock: it starts every pending group of that hour's slot
 * and of earlier slots a missed tick left behind (one Query per shard of the sparse due index),
 * and restarts groups claimed earlier whose execution may not have started. A tick delivered
 * twice, or a tick racing a trigger, processes no group twice: the claim is conditional and the
 * execution name is the group's.
 */
import type { ScheduledEvent } from 'aws-lambda';
import { resumeProcessing, startProcessing, type StartOutcome } from '#core/processing';
import { currentSlot } from '#domain/groups';
import { mapLimit } from '#shared/concurrency';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';
import { dueIndex } from '#store/due';

/** A claim older than this without a finished group is started again (same name: same run). */
const STALE_CLAIM_MS = 10 * 60 * 1000;

export interface TickResult {
  slot: string;
  started: StartOutcome[];
  resumed: StartOutcome[];
}

export const handler = taskHandler(async (event: Pick<ScheduledEvent, 'time'>): Promise<TickResult> => {
  const time = new Date(event.time);
  if (Number.isNaN(time.getTime()))
    throw new Error(`scheduled event without a valid time: ${String(event.time)}`);
  const slot = currentSlot(time);
  const due = await dueIndex().dueGroups(slot);
  const now = new Date();
  const pending = due.filter((g) => g.status === 'pending');
  const stale = due.filter(
    (g) =>
      g.status === 'processing' &&
      g.claimedAt !== undefined &&
      now.getTime() - Date.parse(g.claimedAt) > STALE_CLAIM_MS,
  );
  const started = await mapLimit(pending, 8, (group) => startProcessing(group, now));
  const resumed = await mapLimit(stale, 8, async (group) => {
    try {
      return await resumeProcessing(group);
    } catch (error) {
      return { paymentGroupId: group.paymentGroupId, error: (error as Error).message };
    }
  });
  logger.info('hourly tick', { slot, due: due.length, started: started.length, resumed: resumed.length });
  return { slot, started, resumed };
});
