/**
 * Starting and supervising the processing of a group, shared by the hourly scheduler and the
 * trigger endpoints. A group is claimed (pending → processing) by one conditional write that also
 * requires the slot the starter saw, so of any number of concurrent starters exactly one starts
 * the execution, and a reschedule answered 200 wins over a stale read. Each attempt has its own
 * execution name: the tick re-drives a group whose execution closed before the group was done.
 */
import { MERCHANT_TRIGGER_GROUPS } from '#contract/limits';
import { START_CONCURRENCY, START_RATE } from '#contract/processing';
import type { Group } from '#domain/groups';
import { mapLimit } from '#shared/concurrency';
import { Pacer } from '#shared/pacer';
import { logger } from '#shared/logger';
import { executionStatus, startExecution } from '#shared/sfn';
import { claimStore, type ClaimTarget } from '#store/claims';
import { dueIndex, type DueGroup } from '#store/due';
import { groupStore } from '#store/groups';

export type StartOutcome =
  { paymentGroupId: string; executionArn: string } | { paymentGroupId: string; error: string };

const refusal: Record<Group['status'], string> = {
  pending: 'the group changed while it was being claimed',
  processing: 'the group is already being processed',
  processed: 'the group has already been processed',
  deleted: 'the group is deleted',
};

/** The execution's input: the attempt's name lets BeginGroup tell a superseded attempt. */
const executionInput = (group: Pick<Group, 'paymentGroupId' | 'merchantId'>, executionName: string) => ({
  paymentGroupId: group.paymentGroupId,
  merchantId: group.merchantId,
  executionName,
});

/** This container's StartExecution calls, START_RATE a second at most (Step Functions' quota). */
const starts = Pacer.of(START_RATE, 1);

/**
 * Starts the execution of a claimed attempt and records its ARN on the group. Once started, the
 * execution runs (and charges): a failure to record its ARN leaves the claim as it is, never
 * released under it; the tick's supervision finds the attempt without an ARN and starts it again
 * by its name, which is the same run, and records it.
 */
export async function startAttempt(group: Pick<Group, 'paymentGroupId' | 'merchantId'>, name: string) {
  await starts.take();
  const executionArn = await startExecution(name, executionInput(group, name));
  await claimStore()
    .recordExecution(group.paymentGroupId, name, executionArn)
    .catch((error: unknown) =>
      logger.warn('execution started, its ARN not recorded: supervision records it', {
        paymentGroupId: group.paymentGroupId,
        executionArn,
        error,
      }),
    );
  return executionArn;
}

/**
 * Whether a failed start surely started nothing: Step Functions was never reached (the connection
 * refused), or refused it (a 4xx: the execution limit, a bad input) at the SDK's only attempt.
 * Anything else (a 5xx, a timeout, a connection dropped after the request went out) may have
 * started the run, and so may an attempt before the SDK's last: a retry throttled after a first
 * attempt that started it and lost its answer.
 */
export const surelyNotStarted = (error: unknown): boolean => {
  const failure = error as {
    $fault?: unknown;
    $metadata?: { attempts?: number };
    code?: unknown;
    message?: unknown;
  };
  // The SDK wraps an error of another realm (a test runner's) in one that keeps only its text.
  const refused = failure.code === 'ECONNREFUSED' || /\bconnect ECONNREFUSED\b/.test(String(failure.message));
  return refused || (failure.$fault === 'client' && (failure.$metadata?.attempts ?? 1) <= 1);
};

/** A start that may have happened: the claim stays, and the tick's supervision settles it. */
export const MAYBE_STARTED =
  'the start of processing may have happened: the group stays claimed, and within minutes the hourly supervision starts it by its name (the same run if it exists) or finds it running';

export async function startProcessing(
  group: ClaimTarget & Pick<Group, 'merchantId'>,
  now: Date,
): Promise<StartOutcome> {
  const { paymentGroupId } = group;
  const store = claimStore();
  const claim = await store.claim(group, now);
  if (!claim.claimed) {
    return { paymentGroupId, error: claim.group ? refusal[claim.group.status] : 'the group does not exist' };
  }
  try {
    return { paymentGroupId, executionArn: await startAttempt(group, claim.executionName) };
  } catch (error) {
    // A start that may have happened keeps its claim: an execution started now reads the group
    // claimed under its name, never pending again while it charges.
    if (!surelyNotStarted(error)) {
      logger.error('processing may have started; claim kept for supervision', { paymentGroupId, error });
      return { paymentGroupId, error: MAYBE_STARTED };
    }
    logger.error('could not start processing; claim released', { paymentGroupId, error });
    await store.releaseClaim(group, claim.executionName, now);
    return { paymentGroupId, error: 'processing could not be started; try again' };
  }
}

/** Starts every pending group among those the due index returned (START_CONCURRENCY claims at a time). */
export async function startPendingGroups(
  due: readonly (ClaimTarget & Pick<Group, 'merchantId' | 'status'>)[],
  now: Date,
): Promise<StartOutcome[]> {
  const pending = due.filter((g) => g.status === 'pending');
  return mapLimit(pending, START_CONCURRENCY, (group) => startProcessing(group, now));
}

/** The groups in the due index at this slot and earlier ones: pending, processing, or receipts not yet queued. */
export const dueGroups = (slot: string): Promise<DueGroup[]> => dueIndex().dueGroups(slot);

/**
 * Starts the merchant's pending groups of a slot: of that hour of that date, of that date with
 * only a date, every pending group with neither; at most `max`, the first pending ones, and
 * whether more are pending (contract/limits.ts MERCHANT_TRIGGER_GROUPS).
 */
export async function startMerchantGroups(
  merchantId: string,
  slot: { date?: string; hour?: number },
  now: Date,
  max = MERCHANT_TRIGGER_GROUPS,
): Promise<{ outcomes: StartOutcome[]; more: boolean }> {
  const groups = await groupStore().listGroups(
    merchantId,
    { date: slot.date, hour: slot.hour, pendingOnly: true, startable: true },
    max + 1,
  );
  return { outcomes: await startPendingGroups(groups.slice(0, max), now), more: groups.length > max };
}

type Supervised = Pick<
  Group,
  'paymentGroupId' | 'merchantId' | 'executionName' | 'executionArn' | 'claimedAt'
>;

/**
 * A claim younger than this whose execution cannot be described is left alone: its starter may
 * still be between the claim and StartExecution (or its record of the ARN).
 */
const SUPERVISE_AFTER_MS = 5 * 60 * 1000;

const claimedBefore = (group: Supervised, now: Date, ms: number) =>
  group.claimedAt !== undefined && now.getTime() - Date.parse(group.claimedAt) > ms;

/**
 * Whether the tick should look at a claimed group now (see superviseProcessing). `afterMs`: the
 * tick's configured age (SUPERVISE_AFTER_SECONDS; the crash test shortens it).
 */
export const needsSupervision = (group: Supervised, now: Date, afterMs = SUPERVISE_AFTER_MS): boolean =>
  group.executionArn !== undefined || claimedBefore(group, now, afterMs);

/**
 * A group claimed and still in the due index (processing, or processed with receipts not yet
 * queued). Its execution running: nothing. Closed (SUCCEEDED early, FAILED, TIMED_OUT, ABORTED):
 * the next attempt at once, since a closed execution does nothing more. Not found, or no ARN
 * recorded, for longer than SUPERVISE_AFTER_MS: the recorded attempt is started if its ARN was
 * never recorded (the starter crashed in between; the same name is the same run), else the next.
 * Every re-drive is one conditional write on the attempt seen, so two ticks re-drive it once.
 */
export async function superviseProcessing(
  group: Supervised,
  now: Date,
  afterMs = SUPERVISE_AFTER_MS,
): Promise<StartOutcome | undefined> {
  const { paymentGroupId } = group;
  const settledIn = claimedBefore(group, now, afterMs);
  if (!group.executionArn) {
    if (!settledIn) return undefined;
    if (group.executionName)
      return { paymentGroupId, executionArn: await startAttempt(group, group.executionName) };
  }
  const status = group.executionArn ? await executionStatus(group.executionArn) : 'MISSING';
  if (status === 'RUNNING' || (status === 'MISSING' && !settledIn)) return undefined;
  const name = await claimStore().redrive(group, now);
  if (!name) return undefined; // finished or re-driven meanwhile
  logger.warn('re-driving a group whose execution closed early', {
    paymentGroupId,
    closed: group.executionArn,
    status,
    next: name,
  });
  return { paymentGroupId, executionArn: await startAttempt(group, name) };
}
