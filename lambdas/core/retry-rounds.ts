/**
 * Starting retry rounds (docs/architecture.md#retry-rounds): the hourly tick and the due start
 * start the round of every group waiting in the due index at a slot up to theirs; a tester's
 * retry-now (non-production) starts the waiting groups of a merchant at once (so many a call),
 * whatever their slot.
 * A round is claimed by one conditional write (store/retry-rounds.ts) and runs as an execution of
 * the processing state machine (core/retries.ts charges its due retries).
 */
import { MERCHANT_TRIGGER_GROUPS } from '#contract/limits';
import type { RETRY_NOTHING_STARTED } from '#contract/schemas/processing';
import type { Group } from '#domain/groups';
import { mapLimit } from '#shared/concurrency';
import { logger } from '#shared/logger';
import type { DueGroup } from '#store/due';
import { retryRoundStore, type RoundTarget } from '#store/retry-rounds';
import { MAYBE_STARTED, startAttempt, surelyNotStarted, type StartOutcome } from './processing';

/** The bound of a round that runs every scheduled retry (retry-now; a deleted group's cancellations). */
const EVERY_RETRY = '9999-12-31T23';

type Waiting = RoundTarget & Pick<Group, 'merchantId' | 'status'>;

/** Claims and starts a group's retry round charging the retries due by `bound`. */
async function startRetryRound(group: Waiting, bound: string, now: Date): Promise<StartOutcome> {
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
    // As a group's start (core/processing.ts): a round that may have started keeps its claim.
    if (!surelyNotStarted(error)) {
      logger.error('a retry round may have started; claim kept for supervision', { paymentGroupId, error });
      return { paymentGroupId, error: MAYBE_STARTED };
    }
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

/** Why a retry-now started no round: the answer's `reason`, `message` and `settlesAt`. */
interface NothingStarted {
  reason: (typeof RETRY_NOTHING_STARTED)[number];
  message: string;
  settlesAt?: string;
}

const groupsOf = (n: number): string => (n === 1 ? '1 group' : `${n} groups`);

/**
 * Why no round started, from the merchant's groups with a retry scheduled and the outcomes of the
 * rounds that were due. A group that has its retries but does not wait for its round is either
 * running one (`retryBound`) or finishing its last run: its approved sales' receipts wait for their
 * settlement cut-off, and only then does the group wait for its next round.
 */
export function nothingStarted(
  scheduled: readonly Group[],
  outcomes: readonly StartOutcome[],
): NothingStarted {
  if (outcomes.length > 0)
    return {
      reason: 'start_failed',
      message: `${groupsOf(outcomes.length)} had a retry round due, but none could be started: each entry says why`,
    };
  const others = scheduled.filter((g) => g.awaitingRetry !== true);
  const settling = others.filter((g) => g.retryBound === undefined);
  if (settling.length > 0) {
    const cutOffs = settling
      .map((g) => g.processingSummary?.settlesAt)
      .filter((at): at is string => typeof at === 'string')
      .sort();
    const settlesAt = cutOffs[0];
    return {
      reason: 'awaiting_settlement',
      message:
        `${groupsOf(settling.length)} with retries scheduled ${settling.length === 1 ? 'waits' : 'wait'} for the settlement cut-off of ${settling.length === 1 ? 'its' : 'their'} last run` +
        `${settlesAt ? ` (the earliest at ${settlesAt})` : ''}, which sends the receipts of the payments it approved; ` +
        "the retries can start within a minute after it (settle-now settles the merchant's sales now)",
      ...(settlesAt !== undefined && { settlesAt }),
    };
  }
  if (others.length > 0)
    return {
      reason: 'round_running',
      message: `${groupsOf(others.length)} with retries scheduled ${others.length === 1 ? 'is' : 'are'} running a retry round now`,
    };
  return { reason: 'no_retries_scheduled', message: 'no group of the merchant has a retry scheduled' };
}

/**
 * Retry-now (non-production): the retry rounds the merchant's groups wait for, at most `max` of
 * them started at once (`more` when others wait); when none starts, why.
 */
export async function retryNow(
  merchantId: string,
  now: Date,
  max = MERCHANT_TRIGGER_GROUPS,
): Promise<{ outcomes: StartOutcome[]; nothingStarted?: NothingStarted; more?: true }> {
  const scheduled = await retryRoundStore().withRetries(merchantId);
  const waiting = scheduled.filter((g) => g.awaitingRetry === true);
  const outcomes = await mapLimit(waiting.slice(0, max), 8, (group) =>
    startRetryRound(group, EVERY_RETRY, now),
  );
  const more = waiting.length > max ? { more: true as const } : {};
  if (outcomes.some((o) => 'executionArn' in o)) return { outcomes, ...more };
  return { outcomes, nothingStarted: nothingStarted(scheduled, outcomes), ...more };
}
