/** Processing a group and reversing its payments. */
import { MERCHANT_TRIGGER_GROUPS, TEST_MID_RANGE } from '../limits';
import { VOID_OR_REFUND } from '../processing';
import {
  retryResultSchema,
  triggerMerchantSchema,
  triggerResultSchema,
  voidOrRefundAcceptedSchema,
  voidOrRefundResultSchema,
  voidOrRefundSchema,
} from '../schemas/processing';
import { G, M } from './groups';
import { IDEMPOTENT, route } from './types';

const TRIGGER_RULES = `Non-production only (403 in production). The path MID must be an 11-digit test MID within ${TEST_MID_RANGE.from}-${TEST_MID_RANGE.to} (the 8-digit form, or any other MID, is 403).`;

export const processingRoutes = {
  VoidOrRefundGroup: route({
    id: 'VoidOrRefundGroup',
    method: 'POST',
    idempotency: IDEMPOTENT,
    path: `${G}/void-or-refund`,
    handler: 'groups/void-or-refund',
    callsProcessor: true,
    status: 200,
    summary: "Reverse a group's approved payments (void before settlement, refund after)",
    description: `Reverses the group's approved payments: each approved payment not yet reversed is voided before its settlement (the whole amount) or refunded after it (its availableRefundAmount). The reversal is recorded in the payment's \`voidOrRefundResponses\`.

- Optional body \`{paymentIds}\`: only these payments, at most ${VOID_OR_REFUND.syncLimit.toLocaleString('en-US')} (each must be a payment of this group, else 400), always reversed within the request. No body: every payment of the group.
- The request starts no reversal in its last ${VOID_OR_REFUND.reversalSeconds + 2} s before its ${VOID_OR_REFUND.apiTimeoutSeconds} s limit (a processor slower than usual): payments not reached are counted in failedCount with the reason "not attempted"; repeat the request for them.
- Within the void safety margin before a sale's settlement cut-off (the last min(120 s, 1% of the settlement period): 36 s for hourly cut-offs), no void can start and no refund yet: the payment's refund is recorded now (status Pending, its amount reserved on the sale, \`scheduledFor\` the cut-off), the outcome is \`refund_scheduled\` (counted in refundScheduledCount), and the service sends the refund by itself right after the cut-off; the payment's \`voidOrRefundResponses\` then shows it Completed (or Failed). Nothing more to call.
- Payments never charged (the group not processed yet, deleted, declined or failed), already reversed (a scheduled refund included), disputed (a dispute open or lost: the reason names it), or with nothing left to refund are skipped and counted in skippedCount; a reversal refused by the processor or the rules is counted in failedCount with a reason. Either way the answer is 200 (a pending group: everything skipped).
- Safe to repeat: a payment with a recorded reversal is skipped, so nothing is reversed twice.
- A group with more than ${VOID_OR_REFUND.syncLimit.toLocaleString('en-US')} non-deleted payments (or more than ${(2 * VOID_OR_REFUND.syncLimit).toLocaleString('en-US')} in all, deleted ones included: a request lists each), without \`paymentIds\`, is reversed in the background: 202 \`{paymentGroupId, status: "accepted", executionArn}\`. The group's \`voidOrRefundSummary\` shows \`status: "running"\` and the counts so far, then \`"done"\` with voided + refunded + refundScheduled + skipped + failed = its non-deleted payments; each payment's \`voidOrRefundResponses\` shows its reversal. Repeating the call while it runs answers 202 with the same executionArn; repeating it after it is done starts a new run, which reverses nothing twice (the payments reversed before count as skipped).`,
    body: { schema: voidOrRefundSchema, optional: true },
    response: { schema: voidOrRefundResultSchema, description: 'Counts, and the outcome of each payment.' },
    accepted: {
      schema: voidOrRefundAcceptedSchema,
      description: 'More than 1,000 non-deleted payments: the reversal runs in the background.',
    },
  }),
  ProcessGroup: route({
    id: 'ProcessGroup',
    method: 'POST',
    idempotency: IDEMPOTENT,
    path: `${G}/process-payments`,
    handler: 'triggers/process-group',
    status: 200,
    nonProdOnly: true,
    summary: 'Process a group now (non-production, test MIDs)',
    description: `${TRIGGER_RULES} Processes the group now, whatever its schedule: claims it (status processing) and starts its run, whose executionArn is in the result; payments are charged and the group becomes processed within moments.

A group that is already processing, processed or deleted is still a 200: its entry carries an \`error\`, totalTriggered is 0 and totalFailed 1, and nothing is charged again. No body.`,
    response: { schema: triggerResultSchema, description: 'One entry, for this group.' },
  }),
  RetryMerchant: route({
    id: 'RetryMerchant',
    method: 'POST',
    idempotency: IDEMPOTENT,
    path: `${M}/retry-payments`,
    handler: 'triggers/retry-merchant',
    status: 200,
    nonProdOnly: true,
    summary: "Run a merchant's scheduled retries now (non-production, test MIDs)",
    description: `${TRIGGER_RULES} Runs now every retry the merchant's processed groups have scheduled, whatever its nextAttemptAt (as the hourly processing of that slot would): one entry per group, whose executionArn is the retry round's run. A call starts at most ${MERCHANT_TRIGGER_GROUPS} rounds: with more groups waiting, the answer says \`more: true\`; call again for the next. The retries are charged as at their slot: each attempt its own sale, within the networks' limits; a payment or group deleted since, or a method deleted or closed, is not charged. A group whose round could not be claimed or started is an entry with an \`error\`.

When no round starts (totalTriggered 0), \`reason\` and \`message\` say why: no group has a retry scheduled (\`no_retries_scheduled\`, \`triggeredGroups: []\`); the groups' last run (the first run, or a round that approved payments) still waits for its sales' settlement cut-off to send their receipts (\`awaiting_settlement\`, with \`settlesAt\`: call again within a minute after it, or settle the sales now with \`POST .../settle-now\`); their rounds are running now (\`round_running\`); or rounds were due and none could be started (\`start_failed\`, each entry's \`error\`). No body.`,
    response: {
      schema: retryResultSchema,
      description: 'One entry per group whose retry round was due; when none started, why.',
    },
  }),
  ProcessMerchant: route({
    id: 'ProcessMerchant',
    method: 'POST',
    idempotency: IDEMPOTENT,
    path: `${M}/process-payments`,
    handler: 'triggers/process-merchant',
    status: 200,
    nonProdOnly: true,
    summary: "Process a merchant's pending groups of a slot now (non-production, test MIDs)",
    description: `${TRIGGER_RULES} Processes the merchant's pending groups now, one entry per group. Optional body: \`{scheduleDate, scheduleHour}\` selects the pending groups of that UTC slot; scheduleDate alone, every pending group of that date; scheduleHour without scheduleDate is 400 (an hour alone is no slot); no body, every pending group of the merchant. No matching group: 200 with \`triggeredGroups: []\`. A call starts at most ${MERCHANT_TRIGGER_GROUPS} groups, the first pending ones: with more pending, the answer says \`more: true\`; call again for the next.`,
    body: { schema: triggerMerchantSchema, optional: true },
    response: { schema: triggerResultSchema, description: 'One entry per group.' },
  }),
};
