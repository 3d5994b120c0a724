/**
 * The sweeper's run (lambdas/scheduled/settle-stale-work.ts, every 5 minutes): settles stale
 * Pending sales, Pending refunds, reserved voids and due reversals (core/sweeper.ts), removes group
 * creates abandoned half-way (a `creating` group older than a few minutes, with its payments and
 * notices: core/groups.ts), and finishes or undoes saved-method deletions whose request died
 * (core/method-deletion.ts). Each run reads a bounded page of work and starts none after its
 * budget (SWEEP_BUDGET_SECONDS), so it ends within its timeout however large a backlog is.
 */
import { SWEEP_BUDGET_SECONDS } from '#contract/processing';
import { logger } from '#shared/logger';
import { sweepAbandonedCreates } from './groups';
import { sweepDeletions, type DeletionSweepEntry } from './method-deletion';
import { staleAfterSeconds, sweep, type SweepReport } from './sweeper';
import { clock } from '#shared/clock';

export interface SweepEvent {
  /** The scheduled event's time; the sweep goes by the wall clock when absent. */
  time?: string;
  /** Default staleAfterSeconds() (core/sweeper.ts). */
  olderThanSeconds?: number;
}

export interface SweepResult extends SweepReport {
  /** Ids of the groups whose abandoned create was removed. */
  abandonedCreates: string[];
  /** Method (and payor) deletions taken over: finished (`deleted`), still `moving`, or `undone`. */
  deletions: DeletionSweepEntry[];
}

/** One run of the sweeper: each job in turn, within the run's budget. */
export async function settleStaleWork(event: SweepEvent): Promise<SweepResult> {
  const now = clock.now();
  // Bounded work: no item is started after the budget; what is left waits for the next sweep.
  const deadline = now.getTime() + SWEEP_BUDGET_SECONDS * 1000;
  const report = await sweep(now, {
    olderThanSeconds: event.olderThanSeconds ?? staleAfterSeconds(),
    deadline,
  });
  if (report.unsettled.length > 0) logger.warn('sweep left work unsettled', { unsettled: report.unsettled });
  if (report.deferred > 0) logger.warn('sweep left work for the next run', { deferred: report.deferred });
  const abandonedCreates = await sweepAbandonedCreates(now, deadline);
  if (abandonedCreates.length > 0) logger.warn('abandoned group creates removed', { abandonedCreates });
  // A deletion is taken over a minute after it began (its own default) unless the caller says.
  const deletions = await sweepDeletions(now, {
    deadline,
    ...(event.olderThanSeconds !== undefined && { olderThanSeconds: event.olderThanSeconds }),
  });
  if (deletions.length > 0) logger.warn('method deletions taken over', { deletions });
  return { ...report, abandonedCreates, deletions };
}
