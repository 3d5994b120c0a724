/** Processing and reversal of groups: request schemas and result responses. */
import type { FromSchema } from 'json-schema-to-ts';
import { MERCHANT_TRIGGER_GROUPS } from '../limits';
import { VOID_OR_REFUND } from '../processing';
import { count, dateTime, money, uuid } from './common';
import { voidOrRefundResponseSchema } from './payments';

export const triggerMerchantSchema = {
  type: 'object',
  additionalProperties: false,
  // A slot is a date and an hour; an hour alone would mean that hour of every date.
  dependencies: { scheduleHour: ['scheduleDate'] },
  properties: {
    scheduleDate: { type: 'string', format: 'date' },
    scheduleHour: { type: 'integer', minimum: 0, maximum: 23 },
  },
} as const;

export const voidOrRefundSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    // Reversed within the request: no more than the synchronous limit (docs/decisions.md).
    paymentIds: {
      type: 'array',
      minItems: 1,
      maxItems: VOID_OR_REFUND.syncLimit,
      items: { type: 'string', format: 'uuid' },
    },
  },
} as const;

// ---- Responses ----

export const processingSummarySchema = {
  type: 'object',
  description: 'Present once the group is processed.',
  required: [
    'approvedCount',
    'partialCount',
    'declinedCount',
    'failedCount',
    'skippedCount',
    'approvedAmount',
    'processedAt',
    'retriesScheduled',
    'recoveredCount',
    'recoveredAmount',
    'returnedCount',
    'returnedAmount',
    'disputedCount',
    'disputedAmount',
  ],
  properties: {
    approvedCount: count(
      'Payments approved (partial approvals included), by their latest attempt: a payment recovered by a retry counts here (and in recoveredCount), no longer in declinedCount; a returned bank debit no longer does (returnedCount).',
    ),
    partialCount: count('Payments approved for less than their amount.'),
    declinedCount: count('Payments declined (duplicates included), by their latest attempt.'),
    failedCount: count('Payments that could not be charged after retries (authResponse status Failed).'),
    skippedCount: count('Deleted payments (never processed).'),
    approvedAmount: money('Sum charged, recovered payments included, returned debits not.'),
    processedAt: dateTime('When processing (or the latest retry round) completed.'),
    retriesScheduled: count('Payments whose retry is scheduled (retry.status scheduled).'),
    recoveredCount: count('Payments approved by a retry (retry.status succeeded).'),
    recoveredAmount: money('Sum charged by those retries.'),
    returnedCount: count(
      'Payments whose bank debit (their latest attempt) was returned after it was approved, before or after it cleared, and however long after the group was processed: no longer in approvedCount, partialCount or recoveredCount. Each return moves the summary once, right after it is applied (while a retry round of the group is charging, right after the round); a return that is retried counts here until the retry is answered.',
    ),
    returnedAmount: money(
      'Sum those returned debits had debited (no longer in approvedAmount or recoveredAmount).',
    ),
    disputedCount: count(
      'Approved payments whose card charge (their latest attempt) was disputed by the cardholder, whatever the dispute’s status since (open, won or lost; see each payment’s `dispute`): still in approvedCount. Each dispute moves the summary once, right after its first notice is applied (while a retry round of the group is charging, right after the round).',
    ),
    disputedAmount: money('Sum disputed (each dispute’s `amount`; still in approvedAmount).'),
  },
} as const;

export const triggerResultSchema = {
  type: 'object',
  description: 'Result of a (non-production) processing trigger.',
  required: ['triggeredGroups', 'totalTriggered', 'totalFailed'],
  properties: {
    triggeredGroups: {
      type: 'array',
      items: {
        type: 'object',
        required: ['paymentGroupId'],
        properties: {
          paymentGroupId: uuid,
          executionArn: { type: 'string', description: 'Present when the run was started.' },
          error: {
            type: 'string',
            description:
              'Present when the run could not be started (e.g. the group is already processing, processed or deleted).',
          },
        },
      },
    },
    totalTriggered: count('Runs started.'),
    totalFailed: count('Groups whose run could not be started.'),
    more: {
      type: 'boolean',
      enum: [true],
      description: `Present (true) when the merchant has more pending groups than one call starts (${MERCHANT_TRIGGER_GROUPS}): call again for the next ones.`,
    },
  },
} as const;

/** Why a retry-now started no round (RetryResult.reason), in the order they are told. */
export const RETRY_NOTHING_STARTED = [
  'no_retries_scheduled',
  'awaiting_settlement',
  'round_running',
  'start_failed',
] as const;

export const retryResultSchema = {
  type: 'object',
  description:
    'Result of running the scheduled retries now: one entry per group whose retry round was due to start; when no round started, `reason` and `message` say why.',
  required: ['triggeredGroups', 'totalTriggered', 'totalFailed'],
  properties: {
    ...triggerResultSchema.properties,
    reason: {
      type: 'string',
      enum: RETRY_NOTHING_STARTED,
      description:
        "Present exactly when totalTriggered is 0. `no_retries_scheduled`: no group of the merchant has a retry scheduled. `awaiting_settlement`: groups have retries scheduled, but their last run (the first run or a retry round that approved payments) still waits for its sales' settlement cut-off to send their receipts; their retries can start once it has passed (`settlesAt`; the test clock `POST .../settle-now` settles them now), within a minute. `round_running`: the retry rounds of the groups with retries scheduled are running now. `start_failed`: rounds were due but none could be started; each entry of triggeredGroups says why.",
    },
    message: {
      type: 'string',
      description: 'Present with `reason`: the same in words, with the number of groups concerned.',
    },
    settlesAt: dateTime(
      'With `awaiting_settlement`: the earliest settlement cut-off those runs wait for (their retries can start within a minute after it).',
    ),
    more: {
      type: 'boolean',
      enum: [true],
      description: `Present (true) when more groups wait for a retry round than one call starts (${MERCHANT_TRIGGER_GROUPS}): call again for the next ones.`,
    },
  },
} as const;

export const voidOrRefundResultSchema = {
  type: 'object',
  description:
    'Result of a void-or-refund on a group: voidedCount + refundedCount + refundScheduledCount + skippedCount + failedCount = the payments answered.',
  required: [
    'paymentGroupId',
    'voidedCount',
    'refundedCount',
    'refundScheduledCount',
    'skippedCount',
    'failedCount',
    'payments',
  ],
  properties: {
    paymentGroupId: uuid,
    voidedCount: count('Payments voided (before settlement).'),
    refundedCount: count('Payments refunded (after settlement, their available amount).'),
    refundScheduledCount: count(
      'Approved payments whose sale was within the void safety margin of its settlement cut-off (too late for a void, too early for a refund): a refund of the available amount is recorded now (Pending, the amount reserved) and sent by the service right after the cut-off; outcome refund_scheduled. Nothing more to call.',
    ),
    skippedCount: count(
      'Payments never charged (not processed, deleted, declined, failed), already reversed, disputed (no reversal while a dispute is open or after one was lost), or with nothing left to refund.',
    ),
    failedCount: count(
      'Reversals refused (by the processor or the rules), or not attempted before the request ran out of time; see reason. Repeating the request is safe and reverses them.',
    ),
    payments: {
      type: 'array',
      items: {
        type: 'object',
        required: ['paymentId', 'outcome'],
        properties: {
          paymentId: uuid,
          outcome: {
            type: 'string',
            enum: ['voided', 'refunded', 'refund_scheduled', 'skipped', 'failed'],
            description:
              'refund_scheduled: inside the void margin before the cut-off; the refund (response, status Pending, scheduledFor the cut-off) is sent after it.',
          },
          response: voidOrRefundResponseSchema,
          reason: { type: 'string', description: 'Why it was skipped or failed.' },
        },
      },
    },
  },
} as const;

/** 202 of a void-or-refund that runs in the background (docs/decisions.md "Background void-or-refund"). */
export const voidOrRefundAcceptedSchema = {
  type: 'object',
  description:
    'The group has more than 1,000 non-deleted payments: the reversal runs in the background. Follow it on the group (voidOrRefundSummary) and on each payment (voidOrRefundResponses).',
  required: ['paymentGroupId', 'status', 'executionArn'],
  properties: {
    paymentGroupId: uuid,
    status: { type: 'string', enum: ['accepted'] },
    executionArn: {
      type: 'string',
      description: 'The background execution (Step Functions); a repeat while it runs names the same one.',
    },
  },
} as const;

export const voidOrRefundSummarySchema = {
  type: 'object',
  description:
    'The latest background void-or-refund of the group (more than 1,000 non-deleted payments). While running, the counts grow batch by batch; when done, voided + refunded + refundScheduled + skipped + failed = the non-deleted payments.',
  required: ['status', 'voidedCount', 'refundedCount', 'refundScheduledCount', 'skippedCount', 'failedCount'],
  properties: {
    status: { type: 'string', enum: ['running', 'done'] },
    voidedCount: count('Payments voided by this run.'),
    refundedCount: count('Payments refunded by this run.'),
    refundScheduledCount: count(
      'Payments inside the void margin before their cut-off when this run reached them: refunds recorded by this run and sent by the service right after the cut-off (see each payment’s voidOrRefundResponses).',
    ),
    skippedCount: count(
      'Payments never charged, already reversed before this run, disputed, or with nothing left to refund.',
    ),
    failedCount: count('Reversals refused (by the processor or the rules); the payment shows why.'),
    executionArn: { type: 'string', description: 'The background execution (Step Functions).' },
  },
} as const;

export type ProcessingSummaryView = FromSchema<typeof processingSummarySchema>;
