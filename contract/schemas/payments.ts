/** Scheduled payments of a group: request schemas and the Payment response (paymentView). */
import type { FromSchema } from 'json-schema-to-ts';
import {
  amount,
  count,
  dateTime,
  freeFormKeys,
  freeText,
  MONEY_MAX,
  money,
  NO_CONTROL_CHARACTERS,
  profileId,
  queryInt,
  responseUuid,
  uuid,
} from './common';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_NUMBER, MAX_PAGE_SIZE, MAX_UNPAGED_PAYMENTS } from '../limits';
import { paymentAttemptSchema, paymentRetrySchema } from './retries';
import { authResponseSchema } from './transactions';
import { disputeSchema } from './disputes';

export const customAttributesSchema = {
  type: 'object',
  maxProperties: 50,
  propertyNames: freeFormKeys,
  additionalProperties: {
    anyOf: [
      { type: 'string', maxLength: 1000, pattern: NO_CONTROL_CHARACTERS, noCardNumber: true },
      // Numbers DynamoDB and JSON both keep exactly, so that a number's decimal text is the
      // number as sent: an Amex number (15 digits) is refused as a number too.
      { type: 'number', minimum: -1e15, maximum: 1e15, maxDecimals: 6, noCardNumber: true },
      { type: 'boolean' },
    ],
    description:
      'must be a string (up to 1000 characters, no control characters, no card number), a number (|n| <= 1e15, up to 6 decimals, no card number) or a boolean',
  },
} as const;

export const feeSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'amount'],
  properties: {
    name: freeText(1, 100),
    amount: { type: 'number', minimum: 0, maximum: MONEY_MAX, maxDecimals: 2 },
  },
} as const;

const paymentProperties = {
  profileId,
  amount,
  orderId: freeText(1, 100),
  recurring: { type: 'boolean' },
  allowPartial: { type: 'boolean' },
  sendEmailReceipt: { type: 'boolean' },
  sendPaymentScheduledNotification: { type: 'boolean' },
  sendDeclineNotification: { type: 'boolean' },
  customAttributes: customAttributesSchema,
  fees: { type: 'array', maxItems: 20, items: feeSchema },
} as const;

/** A payment inside a group-create request: the group id is not known yet. */
export const inlinePaymentSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['profileId', 'amount'],
  properties: paymentProperties,
} as const;

export const addPaymentSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['paymentGroupId', 'profileId', 'amount'],
  properties: { paymentGroupId: uuid, ...paymentProperties },
} as const;

/** Full replacement. A body with `deleted` is refused by the handler before this schema runs. */
export const updatePaymentSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['paymentId', 'paymentGroupId', 'profileId', 'amount'],
  properties: { paymentId: uuid, paymentGroupId: uuid, ...paymentProperties },
} as const;

/** Query parameters of the payment list. Values arrive as strings; ranges are checked in code. */
export const listPaymentsQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    pageNumber: queryInt(MAX_PAGE_NUMBER, `must be an integer 1-${MAX_PAGE_NUMBER}`),
    pageSize: queryInt(MAX_PAGE_SIZE, `must be an integer 1-${MAX_PAGE_SIZE}`),
    pageToken: {
      type: 'string',
      pattern: '^[A-Za-z0-9_.-]{1,400}$',
      description: 'must be a nextPageToken of this group',
    },
  },
} as const;

/** What the document shows for each list parameter (the validator sees strings). */
export const listPaymentsQueryDocs = {
  pageNumber: {
    description: `1-based page. Given alone, pageSize is ${DEFAULT_PAGE_SIZE}; either paging parameter returns the paged envelope. Not with pageToken.`,
    schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_NUMBER },
  },
  pageSize: {
    description: `Items per page, 1-${MAX_PAGE_SIZE} (above: 400). Given alone, pageNumber is 1. With pageToken: the size of the pages from there on (default: the size the token was made with).`,
    schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE },
  },
  pageToken: {
    description:
      'meta.nextPageToken of the previous page: continues right after it at constant cost, however deep. Opaque and bound to this group: any other value is 400.',
  },
} as const;

export type InlinePaymentInput = FromSchema<typeof inlinePaymentSchema>;
export type AddPaymentInput = FromSchema<typeof addPaymentSchema>;
export type UpdatePaymentInput = FromSchema<typeof updatePaymentSchema>;

// ---- Responses ----

export const voidOrRefundResponseSchema = {
  type: 'object',
  description: 'One reversal of a scheduled payment, recorded by void-or-refund.',
  required: ['type', 'transactionId', 'status', 'amount', 'date'],
  properties: {
    type: { type: 'string', enum: ['Void', 'Refund'] },
    transactionId: responseUuid(
      'Void: the voided sale. Refund: the refund (its refundId in the sale’s refundHistory).',
    ),
    status: {
      type: 'string',
      enum: ['Voided', 'Pending', 'Completed', 'Failed'],
      description:
        'Voided for a void; the refund status for a refund. A refund scheduled inside the void margin is Pending until it is sent after the cut-off (scheduledFor), then Completed or Failed.',
    },
    amount: money('Amount voided or refunded.'),
    responseCode: {
      type: 'string',
      description:
        'Processor code, once the processor answered; `PD` while a refund is Pending (held or scheduled, not sent yet).',
    },
    responseMessage: { type: 'string' },
    date: dateTime('When it happened (a scheduled refund: when it was scheduled).'),
    scheduledFor: dateTime(
      'Present on a refund scheduled because the void-or-refund came within the void safety margin before the sale’s settlement cut-off (when no void may start): the cut-off, right after which the service sends the refund by itself. Its amount is reserved on the sale meanwhile.',
    ),
    heldUntilCleared: {
      type: 'boolean',
      enum: [true],
      description:
        'Present (true) on a Pending refund of a bank debit that has not cleared (docs/product.md "Reversals of bank debits"): the service sends it by itself when the debit clears (then Completed or Failed, announced by payment.refunded when Completed), and it becomes Failed, saying so, if the debit is returned first. Its amount is reserved on the sale meanwhile.',
    },
  },
} as const;

export const paymentSchema = {
  type: 'object',
  description: 'A scheduled payment (paymentView).',
  required: [
    'paymentId',
    'paymentGroupId',
    'profileId',
    'amount',
    'recurring',
    'sendEmailReceipt',
    'sendPaymentScheduledNotification',
    'sendDeclineNotification',
    'deleted',
    'dateCreated',
    'lastUpdated',
    'authResponse',
    'attempts',
  ],
  properties: {
    paymentId: uuid,
    paymentGroupId: uuid,
    profileId: {
      type: 'string',
      description: '`{payorId}/{savedPaymentMethodId}` of a payor of the same merchant.',
    },
    amount: money('Scheduled amount.', 0.01),
    orderId: { type: 'string', description: 'Present when given.' },
    sponsorKey: {
      type: 'string',
      maxLength: 8,
      description:
        "The payor's sponsorKey when the payment was created or last replaced (PUT); absent when the payor had none then. A later change of the payor's sponsorKey does not change it.",
    },
    recurring: { type: 'boolean' },
    allowPartial: {
      type: 'boolean',
      description: 'Present when given; otherwise the group setting applies.',
    },
    sendEmailReceipt: { type: 'boolean' },
    sendPaymentScheduledNotification: { type: 'boolean', description: 'Immutable after creation.' },
    sendDeclineNotification: {
      type: 'boolean',
      description:
        'Default false. When true, the payor is e-mailed when a charge of this payment is declined: when it will be tried again, or that it will not be and what to do (update the payment method).',
    },
    customAttributes: customAttributesSchema,
    fees: {
      type: 'array',
      items: feeSchema,
      description: 'Present when given. A breakdown for reporting; the charge is amount.',
    },
    deleted: {
      type: 'boolean',
      description: 'true after a soft delete; a deleted payment is never processed.',
    },
    dateCreated: dateTime('Creation time.'),
    lastUpdated: dateTime('Last update time.'),
    authResponse: {
      // OpenAPI 3.0.3: `nullable` works only next to `type`, so a nullable $ref is a oneOf with null.
      oneOf: [authResponseSchema, { type: 'object', nullable: true, enum: [null] }],
      description:
        "null until the group is processed; then the sale transaction of this payment's latest attempt (a retry's, once one ran).",
    },
    attempts: {
      type: 'array',
      items: paymentAttemptSchema,
      description: 'Every charge of the payment, oldest first: [] until processed, then one per attempt.',
    },
    retry: paymentRetrySchema,
    methodExpiresBeforeSlot: {
      type: 'boolean',
      enum: [true],
      description:
        "Present (true) on a payment of a pending group whose saved card expires before the group's slot (its expiry month is earlier than the slot's month): the charge would likely be declined. Update the card's expiry, or move the payment to another method. Computed when the payment is read (GET of the payment or the group's payments); absent otherwise, and in events.",
    },
    voidOrRefundResponses: {
      type: 'array',
      items: voidOrRefundResponseSchema,
      description: 'Present after a void-or-refund.',
    },
    dispute: {
      ...disputeSchema,
      description:
        "The latest dispute of the card charge that paid the payment (`GET .../disputes/{disputeId}`). While it is open, the payment's sale cannot be refunded or voided.",
    },
  },
} as const;

export const paymentListSchema = {
  type: 'array',
  items: paymentSchema,
  description: `Without paging parameters: every payment, when the group holds at most ${MAX_UNPAGED_PAYMENTS}.`,
} as const;

export const paymentPageSchema = {
  type: 'object',
  description: 'The paged envelope: with pageNumber, pageSize or pageToken.',
  required: ['meta', 'items'],
  properties: {
    meta: {
      type: 'object',
      required: ['page', 'pageSize', 'totalItems', 'totalPages'],
      properties: {
        page: count('The page returned (pageNumber; with pageToken, counted from the first page).', 1),
        pageSize: count('Items per page.', 1),
        totalItems: count(
          'Payments in all pages, deleted included. With pageToken: as counted when paging began (payments can be added only while the group is pending).',
        ),
        totalPages: count('ceil(totalItems / pageSize); 0 when the group has none.'),
        nextPageToken: {
          type: 'string',
          description: 'Pass as pageToken for the next page. Absent on the last page.',
        },
      },
    },
    items: { type: 'array', items: paymentSchema, description: 'This page; [] for a page past the end.' },
  },
} as const;

/** Either list answer: every payment, or a page of them. */
export const paymentListingSchema = { oneOf: [paymentListSchema, paymentPageSchema] } as const;

export type ListPaymentsQuery = FromSchema<typeof listPaymentsQuerySchema>;
export type PaymentView = FromSchema<typeof paymentSchema>;
export type VoidOrRefundResponse = FromSchema<typeof voidOrRefundResponseSchema>;
