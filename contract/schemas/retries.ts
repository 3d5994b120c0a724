/**
 * Retries of declined scheduled payments (DESIGN section 5): the policy (a group's and the
 * merchant's settings), what a payment shows of its attempts and its retry, and the merchant
 * settings routes' bodies.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { RETRY_POLICY } from '../limits';
import { dateTime, responseUuid } from './common';
import { returnSchema } from './transactions';

export const RETRY_REASONS = [
  'category_1',
  'advice_code',
  'network_limit',
  'policy_exhausted',
  'payment_deleted',
  'group_deleted',
  'method_unusable',
  'payment_reversed',
] as const;

export const retryPolicySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['maxRetries'],
  description: `How a declined payment is retried: at most maxRetries times (${RETRY_POLICY.maxRetries.min}-${RETRY_POLICY.maxRetries.max}; 0: never), each at the first hourly slot at least intervalHours (${RETRY_POLICY.intervalHours.min}-${RETRY_POLICY.intervalHours.max}, default ${RETRY_POLICY.intervalHours.default}) after the previous attempt. Only category-2 declines are retried, within the card networks' and Nacha's limits.`,
  properties: {
    maxRetries: {
      type: 'integer',
      minimum: RETRY_POLICY.maxRetries.min,
      maximum: RETRY_POLICY.maxRetries.max,
      description: `must be an integer ${RETRY_POLICY.maxRetries.min}-${RETRY_POLICY.maxRetries.max}`,
    },
    intervalHours: {
      type: 'integer',
      minimum: RETRY_POLICY.intervalHours.min,
      maximum: RETRY_POLICY.intervalHours.max,
      description: `must be an integer ${RETRY_POLICY.intervalHours.min}-${RETRY_POLICY.intervalHours.max}`,
    },
  },
} as const;

/** A policy as responses show it: both fields, the interval's default filled in. */
export const retryPolicyViewSchema = {
  type: 'object',
  required: ['maxRetries', 'intervalHours'],
  description: retryPolicySchema.description,
  properties: {
    maxRetries: {
      type: 'integer',
      minimum: RETRY_POLICY.maxRetries.min,
      maximum: RETRY_POLICY.maxRetries.max,
    },
    intervalHours: {
      type: 'integer',
      minimum: RETRY_POLICY.intervalHours.min,
      maximum: RETRY_POLICY.intervalHours.max,
    },
  },
} as const;

export const paymentAttemptSchema = {
  type: 'object',
  description: 'One charge of a scheduled payment: its first, or a retry.',
  required: ['attempt', 'at', 'status', 'responseCode'],
  properties: {
    attempt: {
      type: 'integer',
      minimum: 1,
      description: '1 for the first charge, 2 for the first retry, ...',
    },
    at: dateTime('When the processor answered.'),
    status: {
      type: 'string',
      enum: ['Approved', 'Declined', 'Failed', 'Returned'],
      description: 'Returned: the approved bank debit of this attempt was returned later (`return`).',
    },
    responseCode: { type: 'string' },
    declineCategory: { type: 'string', enum: ['1', '2'], description: 'Declined and Failed attempts.' },
    merchantAdviceCode: {
      type: 'string',
      description: "The card network's merchant advice code, when the processor gave one (Mastercard).",
    },
    transactionId: responseUuid(
      'The sale of this attempt (each attempt is its own sale). Absent when status is Failed.',
    ),
    return: returnSchema,
  },
} as const;

export const paymentRetrySchema = {
  type: 'object',
  description:
    "The payment's retry under its group's retry policy; absent when the policy allows no retries (and on a payment approved at once).",
  required: ['status'],
  properties: {
    status: {
      type: 'string',
      enum: ['scheduled', 'succeeded', 'exhausted', 'not_retried'],
      description:
        'scheduled: it will be charged again at nextAttemptAt. succeeded: a retry was approved. exhausted: declined after maxRetries retries. not_retried: stopped for `reason`.',
    },
    nextAttemptAt: dateTime('scheduled only: the hourly slot of the next attempt.'),
    reason: {
      type: 'string',
      enum: RETRY_REASONS,
      description:
        'exhausted and not_retried: category_1 (the decline is permanent), advice_code (merchant advice code 03 or 21: Mastercard, or Stripe advice do_not_try_again on any card), network_limit (a card network or Nacha rule; `detail` names it), policy_exhausted (maxRetries reached), payment_deleted, group_deleted, method_unusable (the saved method was deleted or is closed), payment_reversed (the merchant voided or refunded the payment, or asked to, before its debit came back returned).',
    },
    detail: {
      type: 'string',
      description:
        'The rule behind the reason, in words (for network_limit: which network rule, and its count).',
    },
  },
} as const;

export const merchantSettingsSchema = {
  type: 'object',
  description: "A merchant's settings.",
  required: ['servicePayId', 'retryPolicy'],
  properties: {
    servicePayId: { type: 'string', pattern: '^\\d{11}$', description: 'The 11-digit merchant ID.' },
    retryPolicy: {
      ...retryPolicyViewSchema,
      description: `The retry policy of the merchant's groups that have none of their own. Default: maxRetries 0 (no retries). ${retryPolicySchema.description}`,
    },
    lastUpdated: dateTime('When the settings were last changed; absent while they are the defaults.'),
  },
} as const;

/** PUT settings: the fields present are changed. */
export const updateMerchantSettingsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { retryPolicy: retryPolicySchema },
} as const;

export type RetryPolicyInput = FromSchema<typeof retryPolicySchema>;
export type PaymentAttemptView = FromSchema<typeof paymentAttemptSchema>;
export type MerchantSettingsView = FromSchema<typeof merchantSettingsSchema>;
export type UpdateMerchantSettingsInput = FromSchema<typeof updateMerchantSettingsSchema>;
export type RetryReason = (typeof RETRY_REASONS)[number];
