/**
 * The hourly scheduler (EventBridge rule, or `POST /__local/events/hourly` locally). It goes by
 * the event's `time`, never the wall clock: it starts every pending group of that hour's slot
 * and of earlier slots a missed tick left behind (one Query per shard of the sparse due index).
 * The due index is eventually consistent: each claim also requires the slot the tick saw, so a
 * group rescheduled in between is not processed at its old slot.
 *
 * It also supervises the claimed groups still in the due index (core/processing.ts
 * superviseProcessing): an execution that closed (failed, timed out, aborted, or ended early)
 * before its group was done is re-driven as the next attempt, and so is a claim whose execution
 * never started (after a few minutes); and it emits how many groups have been processing longer
 * than an execution may run (the GroupsProcessingTooLong alarm watches that metric).
 */
import type { ScheduledEvent } from 'aws-lambda';
import { EXECUTION_TIMEOUT_SECONDS, STUCK_GROUPS_METRIC } from '#contract/processing';
import { needsSupervision, startProcessing, superviseProcessing, type StartOutcome } from '#core/processing';
import { currentSlot } from '#domain/groups';
import { mapLimit } from '#shared/concurrency';
import { config } from '#shared/config';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';
import { dueIndex, type DueGroup } from '#store/due';

export interface TickResult {
  slot: string;
  started: StartOutcome[];
  resumed: StartOutcome[];
  /** Groups processing longer than an execution may run. */
  stuck: number;
}

const olderThan = (at: string | undefined, ms: number, now: Date) =>
  at !== undefined && now.getTime() - Date.parse(at) > ms;

/** One EMF line: CloudWatch turns it into a metric without an API call. */
function emitStuckGroups(count: number, now: Date): void {
  const { namespace, name, dimension } = STUCK_GROUPS_METRIC;
  const line = {
    _aws: {
      Timestamp: now.getTime(),
      CloudWatchMetrics: [
        { Namespace: namespace, Dimensions: [[dimension]], Metrics: [{ Name: name, Unit: 'Count' }] },
      ],
    },
    [dimension]: config().stage,
    [name]: count,
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

export const handler = taskHandler(async (event: Pick<ScheduledEvent, 'time'>): Promise<TickResult> => {
  const time = new Date(event.time);
  if (Number.isNaN(time.getTime()))
    throw new Error(`scheduled event without a valid time: ${String(event.time)}`);
  const slot = currentSlot(time);
  const due = await dueIndex().dueGroups(slot);
  const now = new Date();
  const pending = due.filter((g) => g.status === 'pending');
  const supervised = due.filter((g: DueGroup) => g.status !== 'pending' && needsSupervision(g, now));
  const stuck = due.filter(
    (g) => g.status === 'processing' && olderThan(g.processingSince, EXECUTION_TIMEOUT_SECONDS * 1000, now),
  ).length;
  const started = await mapLimit(pending, 8, (group) => startProcessing(group, now));
  const resumed = (
    await mapLimit(supervised, 8, async (group) => {
      try {
        return await superviseProcessing(group, now);
      } catch (error) {
        logger.error('could not supervise a group', { paymentGroupId: group.paymentGroupId, error });
        return { paymentGroupId: group.paymentGroupId, error: (error as Error).message };
      }
    })
  ).filter((o): o is StartOutcome => o !== undefined);
  emitStuckGroups(stuck, now);
  if (stuck > 0) logger.error('groups processing longer than an execution may run', { stuck });
  logger.info('hourly tick', { slot, due: due.length, started: started.length, resumed: resumed.length });
  return { slot, started, resumed, stuck };
});
