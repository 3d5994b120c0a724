/** The non-production trigger endpoints' gate and result shape (docs/product.md#triggers). */
import { config } from '#shared/config';
import { ForbiddenError } from '#shared/errors';
import type { StartOutcome } from './processing';
import { TEST_MID_RANGE } from '#contract/limits';

/** `operation`: the non-production operation named in the 403 (process-payments, settle-now). */
export function assertTriggerAllowed(pathMid: string, operation = 'process-payments'): void {
  if (config().stage === 'prod') throw new ForbiddenError(`${operation} is not available in production`);
  const mid = Number(pathMid);
  if (!/^\d{11}$/.test(pathMid) || mid < TEST_MID_RANGE.from || mid > TEST_MID_RANGE.to) {
    throw new ForbiddenError(
      `${operation} needs an 11-digit test MID within ${TEST_MID_RANGE.from}-${TEST_MID_RANGE.to} (got ${pathMid})`,
    );
  }
}

export function triggerResult(outcomes: StartOutcome[]) {
  return {
    triggeredGroups: outcomes,
    totalTriggered: outcomes.filter((o) => 'executionArn' in o).length,
    totalFailed: outcomes.filter((o) => 'error' in o).length,
  };
}
