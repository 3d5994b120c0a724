/**
 * State machine task EmitReceipts (after the settlement cut-off): one page of the group's receipts
 * (of its receipt range, or of the whole group for an execution started before the fan-out)
 * queued in the outbox (core/receipts.ts).
 */
import { queueReceiptsPage, type ReceiptInput } from '#core/receipts';
import { logger } from '#shared/logger';
import { taskHandler } from '#shared/task';

export const handler = taskHandler(async (input: ReceiptInput): Promise<ReceiptInput> => {
  logger.appendKeys({ paymentGroupId: input.paymentGroupId, merchantId: input.merchantId });
  return queueReceiptsPage(input);
});
