/**
 * State machine task BeginGroup: continues only with a group claimed for this execution's attempt,
 * cut into the key ranges the state machine's Map processes at once (core/processing-run.ts
 * `beginGroup`); a group that still reads as pending fails the task (ClaimNotVisible, retried).
 */
import { beginGroup, type BeginInput } from '#core/processing-run';
import type { ProcessingState } from '#domain/processing';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';

export const handler = taskHandler(async (input: BeginInput): Promise<ProcessingState> => {
  logger.appendKeys({ paymentGroupId: input.paymentGroupId, merchantId: input.merchantId });
  return beginGroup(input);
});
