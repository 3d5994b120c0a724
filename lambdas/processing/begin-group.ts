import { emptyTotals, type ProcessingState } from '#domain/processing';
import { executionName } from '#contract/processing';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';
import { groupStore } from '#store/groups';

/** State machine task BeginGroup: continue only with a group claimed for this execution. */
export const handler = taskHandler(
  async (input: { paymentGroupId: string; merchantId: string }): Promise<ProcessingState> => {
    logger.appendKeys({ paymentGroupId: input.paymentGroupId, merchantId: input.merchantId });
    const group = await groupStore().getGroup(input.paymentGroupId);
    const claimed =
      group !== undefined &&
      group.merchantId === input.merchantId &&
      group.status === 'processing' &&
      group.executionName === executionName(input.paymentGroupId);
    if (!claimed)
      logger.info('group not claimed for this execution: nothing to do', { status: group?.status });
    return {
      paymentGroupId: input.paymentGroupId,
      merchantId: input.merchantId,
      claimed,
      allowPartial: group?.allowPartial ?? false,
      cursor: null,
      totals: emptyTotals(),
      batches: 0,
      receiptCursor: null,
      receiptsDone: false,
    };
  },
);
