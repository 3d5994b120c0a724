/**
 * Starting the processing of a group, shared by the hourly scheduler and the trigger endpoints.
 * A group is claimed (pending → processing) by one conditional write, so of any number of
 * concurrent starters exactly one starts the execution; its name is derived from the group, so
 * even a repeated start is not a second run.
 */
import type { Group } from '#domain/groups';
import { executionName } from '#contract/processing';
import { logger } from '#shared/logger';
import { startExecution } from '#shared/sfn';
import { claimStore } from '#store/claims';

export type StartOutcome =
  { paymentGroupId: string; executionArn: string } | { paymentGroupId: string; error: string };

const refusal: Record<Group['status'], string> = {
  pending: 'the group changed while it was being claimed',
  processing: 'the group is already being processed',
  processed: 'the group has already been processed',
  deleted: 'the group is deleted',
};

/** The execution's input: the same for every starter, so that duplicate starts are one run. */
export const executionInput = (group: Pick<Group, 'paymentGroupId' | 'merchantId'>) => ({
  paymentGroupId: group.paymentGroupId,
  merchantId: group.merchantId,
});

export async function startProcessing(
  group: Pick<Group, 'paymentGroupId' | 'merchantId'>,
  now: Date,
): Promise<StartOutcome> {
  const { paymentGroupId } = group;
  const name = executionName(paymentGroupId);
  const store = claimStore();
  const claim = await store.claim(paymentGroupId, name, now);
  if (!claim.claimed) {
    return { paymentGroupId, error: claim.group ? refusal[claim.group.status] : 'the group does not exist' };
  }
  try {
    return { paymentGroupId, executionArn: await startExecution(name, executionInput(group)) };
  } catch (error) {
    logger.error('could not start processing; claim released', { paymentGroupId, error });
    await store.releaseClaim(paymentGroupId, name, now);
    return { paymentGroupId, error: 'processing could not be started; try again' };
  }
}

/**
 * Starts the execution of a group claimed earlier whose execution may never have started (the
 * starter crashed between claim and start). Harmless when it did start: same name, same run.
 */
export async function resumeProcessing(
  group: Pick<Group, 'paymentGroupId' | 'merchantId'>,
): Promise<StartOutcome> {
  const executionArn = await startExecution(executionName(group.paymentGroupId), executionInput(group));
  return { paymentGroupId: group.paymentGroupId, executionArn };
}
