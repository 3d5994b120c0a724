/**
 * Starting retry rounds (docs/architecture.md#retry-rounds): the hourly tick and the due sweep
 * start the round of every group waiting in the due index at a slot up to theirs; a tester's
 * retry-now (non-production) starts every waiting group of a merchant at once, whatever its slot.
 * A round is claimed by one conditional write (store/retry-rounds.ts) and runs as an execution of
 * the processing state machine (core/retries.ts charges its due retries).
 */
import type { Group } from '#domain/groups';
import { mapLimit } from '#shared/concurrency';
import { logger } from '#shared/logger';
import type { DueGroup } from '#store/due';
import { retryRoundStore, type RoundTarget } from '#store/retry-rounds';
import { startAttempt, type StartOutcome } from './processing';

/** The bound of a round that runs every scheduled retry (retry-now; a deleted group's cancellations). */
export const EVERY_RETRY = '9999-12-31T23';

type Waiting = RoundTarget & Pick<Group, 'merchantId' | 'status'>;

/** Claims and starts a group's retry round charging the retries due by `bound`. */
export async function startRetryRound(group: Waiting, bound: string, now: Date): Promise<StartOutcome> {
  const { paymentGroupId } = group;
  const store = retryRoundStore();
  // A deleted group's round cancels every scheduled retry, whatever its slot.
  const claim = await store.claim(group, group.status === 'deleted' ? EVERY_RETRY : bound, now);
  if (!claim.claimed) {
    const why = claim.group?.awaitingRetry
      ? 'the group changed while its retry round was being claimed'
      : 'the group has no retry waiting (a retry round may be running)';
    return { paymentGroupId, error: claim.group ? why : 'the group does not exist' };
  }
  try {
    return { paymentGroupId, executionArn: await startAttempt(group, claim.executionName) };
  } catch (error) {
    logger.error('could not start a retry round; claim released', { paymentGroupId, error });
    await store.release(paymentGroupId, claim.executionName);
    return { paymentGroupId, error: 'the retry round could not be started; try again' };
  }
}

/** Starts the retry rounds due by `slot` among the groups the due index returned (8 at a time). */
export function startDueRetryRounds(
  due: readonly DueGroup[],
  slot: string,
  now: Date,
): Promise<StartOutcome[]> {
  const waiting = due.filter(
    (g) => g.awaitingRetry === true && g.retrySlot !== undefined && g.retrySlot <= slot,
  );
  return mapLimit(waiting, 8, (group) => startRetryRound(group, slot, now));
}

/** Retry-now (non-production): every retry round the merchant's groups wait for, started at once. */
export async function retryNow(merchantId: string, now: Date): Promise<StartOutcome[]> {
  const waiting = await retryRoundStore().waiting(merchantId);
  return mapLimit(waiting, 8, (group) => startRetryRound(group, EVERY_RETRY, now));
}
