/**
 * Starting the background void-or-refund of a group (docs/decisions.md "Background
 * void-or-refund"), called by the API function. Each run is a generation claimed on the group by
 * one conditional write and executed under a name derived from it, so:
 * - a repeat while the run is going finds its summary `running` and answers the same execution;
 * - concurrent first calls race on the claim: one wins, the others read its run;
 * - a crash between the claim and the start leaves a `running` summary without an execution: the
 *   next call starts it under the same name (nothing was reversed in between);
 * - a run that ended without finishing (failed, timed out, aborted) is followed by a new one;
 * - a repeat after a run is done is a new run, which reverses nothing twice (the core skips
 *   payments already reversed).
 */
import { VOID_OR_REFUND, voidOrRefundExecutionName } from '#contract/processing';
import { PROCESSOR_TIMING, parseProcessor } from '#contract/processor';
import type { Group, VoidOrRefundSummary } from '#domain/groups';
import { config, needed } from '#shared/config';
import { tooMuchContention, withOptimisticRetry } from '#shared/optimistic-concurrency';
import { executionArnOf, executionStatus, startVoidOrRefundExecution } from '#shared/sfn';
import { groupStore } from '#store/groups';
import { paymentStore } from '#store/payments';
import type { ReversalInput } from './void-or-refund-state';

/** Claims lost in a row before the caller is asked to retry (each loss means another run exists). */
const CLAIM_ATTEMPTS = 3;
/** What the 503 of a start never won names. */
const RESOURCE = "this group's void-or-refund";

async function run(group: Group, summary: VoidOrRefundSummary): Promise<string> {
  const input: ReversalInput = {
    paymentGroupId: group.paymentGroupId,
    merchantId: group.merchantId,
    generation: summary.generation,
  };
  return startVoidOrRefundExecution(
    voidOrRefundExecutionName(group.paymentGroupId, summary.generation),
    input,
  );
}

/**
 * Whether a whole group of `paymentCount` payments is reversed in the background: above the
 * configured processor's limit (contract/processor.ts: 1,000 at the sandbox, 100 at Stripe, whose
 * bound leaves a request seconds to start reversals), or VOID_OR_REFUND_BACKGROUND_ABOVE, which
 * can lower the threshold but never raise it past the 1,000 `paymentIds` a request may reverse
 * itself (VOID_OR_REFUND.syncLimit).
 */
const timing = () => PROCESSOR_TIMING[parseProcessor(config().processor)];

const backgroundAbove = (): number => {
  const limit = Math.min(VOID_OR_REFUND.syncLimit, timing().voidOrRefundSyncLimit);
  return Math.min(limit, config().voidOrRefundBackgroundAbove ?? limit);
};

export const reversesInBackground = (paymentCount: number): boolean => paymentCount > backgroundAbove();

/**
 * How many payments in all, deleted ones included, a request reads and reports (a deleted one as
 * skipped: no processor call), as a multiple of the live ones it may reverse.
 */
const READ_PER_REVERSAL = 2;

/**
 * Whether a whole group is reversed in the background: by its live payments (`paymentCount`,
 * DESIGN: more than 1,000 non-deleted), and also when its payments in all, deleted ones included
 * (a request reads and reports each), pass READ_PER_REVERSAL times that bound: read no further than
 * one past it, so that a group of few live payments among many deleted ones is not read whole
 * within a request.
 */
export async function wholeGroupInBackground(group: Group): Promise<boolean> {
  if (reversesInBackground(group.paymentCount)) return true;
  const bound = backgroundAbove() * READ_PER_REVERSAL;
  // One read: one that stops short of the bound (DynamoDB's 1 MB) leaves more unread, as many
  // as a request would read and report at length; the background reverses them.
  const { payments, cursor } = await paymentStore().paymentsAfter(group.paymentGroupId, null, bound + 1);
  return payments.length > bound || cursor !== null;
}

/** The longest one reversal takes within a request, at the configured processor's bound. */
export const reversalSeconds = (): number => timing().reversalSeconds;

/**
 * The execution reversing `group` in the background: the running one, or a new one. Two requests
 * at once race for the summary's generation through optimistic concurrency's loop; a group gone
 * meanwhile is the same 503 as a race never won.
 */
export async function reverseInBackground(group: Group, now: Date): Promise<string> {
  let current: Group | undefined = group;
  return withOptimisticRetry(
    async () => {
      if (!current) throw tooMuchContention(RESOURCE);
      const summary: VoidOrRefundSummary | undefined = current.voidOrRefundSummary;
      if (summary?.status === 'running') {
        const status = await executionStatus(summary.executionArn);
        if (status === 'RUNNING') return summary.executionArn;
        // Claimed, never started: start it now under the claimed name.
        if (status === 'MISSING') return run(current, summary);
      }
      const generation = (summary?.generation ?? 0) + 1;
      const name = voidOrRefundExecutionName(group.paymentGroupId, generation);
      const next: VoidOrRefundSummary = {
        status: 'running',
        generation,
        executionArn: executionArnOf(needed('voidOrRefundStateMachineArn'), name),
        startedAt: now.toISOString(),
        voidedCount: 0,
        refundedCount: 0,
        refundScheduledCount: 0,
        skippedCount: 0,
        failedCount: 0,
      };
      if (await groupStore().putVoidOrRefundSummary(group.paymentGroupId, next, summary?.generation))
        return run(current, next);
      current = await groupStore().getGroup(group.paymentGroupId);
      return undefined;
    },
    { attempts: CLAIM_ATTEMPTS, resource: RESOURCE },
  );
}

/** The group as stored, whichever merchant's: a run's tasks check that it is theirs. */
export const groupOfRun = (groupId: string): Promise<Group | undefined> => groupStore().getGroup(groupId);

/**
 * Shows a run's summary on the group if the stored one is still of generation `expected`; false
 * when a newer run took it over (store/groups.ts putVoidOrRefundSummary).
 */
export const showRunSummary = (
  groupId: string,
  summary: VoidOrRefundSummary,
  expected: number | undefined,
): Promise<boolean> => groupStore().putVoidOrRefundSummary(groupId, summary, expected);
