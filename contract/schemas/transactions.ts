/** Sales, voids and refunds: request schemas and the Transaction and Refund responses. */
import type { FromSchema } from 'json-schema-to-ts';
import { DECLINE_CATEGORY_DESCRIPTIONS } from '../declines';
import { disputeSchema } from './disputes';
import {
  accountType,
  freeText,
  amount,
  count,
  dateTime,
  idempotencyKey,
  money,
  profileId,
  responseUuid,
  uuid,
} from './common';

export const saleSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['profileId', 'amount'],
  properties: {
    profileId,
    amount,
    orderId: freeText(1, 100),
    idempotencyKey,
    allowPartial: { type: 'boolean' },
  },
} as const;

export const refundSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['amount'],
  properties: { amount, idempotencyKey },
} as const;

// ---- Responses ----

export const refundHistoryItemSchema = {
  type: 'object',
  required: ['refundId', 'amount', 'status', 'date'],
  properties: {
    refundId: uuid,
    amount: money('Refund amount.', 0.01),
    status: { type: 'string', enum: ['Pending', 'Completed', 'Failed'] },
    date: dateTime('When the refund was requested.'),
    heldUntilCleared: {
      type: 'boolean',
      enum: [true],
      description:
        'Present (true) on a Pending refund of a bank debit that has not cleared: accepted and its amount reserved, but held; the service sends it by itself when the debit clears (then Completed or Failed, announced by refund.completed or refund.failed), and it becomes Failed, saying so, if the debit is returned first (docs/product.md "Reversals of bank debits").',
    },
  },
} as const;

/**
 * A bank debit's return (docs/product.md#returns): on the sale, on a payment's authResponse and on
 * its attempt.
 */
export const returnSchema = {
  type: 'object',
  description:
    "The bank returned the debit: its Nacha return code, the service's words for it, and what the service did by its category.",
  required: ['code', 'reason', 'category', 'returnedAt'],
  properties: {
    code: { type: 'string', pattern: '^R\\d{2}$', description: 'Nacha return reason code (`R01`...).' },
    reason: { type: 'string', description: 'What the code means (e.g. `Insufficient funds`).' },
    category: {
      type: 'string',
      enum: ['nsf', 'administrative', 'unauthorized', 'other'],
      description:
        "`nsf` (R01, R09): retried as an insufficient-funds decline (`51`) within the retry policy and Nacha's limit. `administrative` (R02, R03, R04): the method is closed. `unauthorized` (R05, R07, R10, R11, R29, R51): the method is revoked for good and its series payments suspended. `other`: nothing more.",
    },
    returnedAt: dateTime('When the bank returned it.'),
    afterRefund: {
      type: 'boolean',
      enum: [true],
      description:
        'Present (true) when the debit was returned after a refund of it had completed: the payor got the money back twice; settle it with them.',
    },
  },
} as const;

/** The fields of transactionView (with the built-in protections), shared by Transaction and AuthResponse. */
const transactionFields = {
  transactionId: uuid,
  type: { type: 'string', enum: ['sale'] },
  status: {
    type: 'string',
    enum: ['Pending', 'Approved', 'Declined', 'Voided', 'Returned'],
    description:
      'Pending: recorded before the processor was asked and not answered yet (a request that crashed or timed out); the service settles it within minutes, or on the next GET or retry, to Approved or Declined. Nothing can be voided or refunded while Pending. Returned: an approved bank debit that the bank returned later (`return`); nothing more can be refunded.',
  },
  responseCode: {
    type: 'string',
    description:
      'Processor code: `00` approved, `10` partial approval, `19` duplicate, `PD` pending; see the decline table.',
  },
  responseMessage: { type: 'string', description: 'Reason text.' },
  declineCategory: {
    type: 'string',
    enum: ['1', '2'],
    description: `Declined transactions only. 1: ${DECLINE_CATEGORY_DESCRIPTIONS['1']}. 2: ${DECLINE_CATEGORY_DESCRIPTIONS['2']}.`,
  },
  declineCategoryDescription: {
    type: 'string',
    description: 'Text for declineCategory (declined transactions only).',
  },
  merchantAdviceCode: {
    type: 'string',
    description:
      "The card network's merchant advice code, when the processor gave one (Mastercard: `01` new account information, `02` try again later, `03` do not try again, `21` payment cancelled). After `03` or `21` a scheduled payment is never retried.",
  },
  isDuplicate: { type: 'boolean', description: 'true when rejected as a duplicate (responseCode 19).' },
  originalTransactionId: responseUuid('Duplicates only: the earlier transaction this one duplicates.'),
  amount: money('Requested amount.'),
  approvedAmount: money('Charged amount: less than amount on a partial approval; 0 when declined.'),
  authCode: { type: 'string', description: 'Approved transactions only.' },
  originalAmount: money('Amount originally charged (approvedAmount).'),
  refundedAmount: money('Completed plus pending refunds.'),
  availableRefundAmount: money(
    'originalAmount minus completed and pending refunds (failed ones are not counted); 0 unless Approved, and 0 while a dispute of the sale is open or after it was lost.',
  ),
  refundCount: count('Number of refunds (completed and pending).'),
  refundHistory: { type: 'array', items: refundHistoryItemSchema },
  profileId: { type: 'string', description: '`{payorId}/{savedPaymentMethodId}` charged.' },
  accountType,
  maskedAccountNumber: { type: 'string', description: 'All but the last four digits masked.' },
  orderId: { type: 'string' },
  sponsorKey: {
    type: 'string',
    maxLength: 8,
    description:
      "The payor's sponsorKey: a scheduled payment's sale carries its payment's; a sale of this API, its payor's when the sale was made. Absent when there is none.",
  },
  paymentId: responseUuid('The scheduled payment this sale charged, when it came from a group.'),
  processedAt: dateTime('When the processor answered (Pending: when the sale was received).'),
  settled: { type: 'boolean', description: 'Settled sales are refunded; unsettled ones are voided.' },
  settlementTime: dateTime('Settlement cut-off of an approved, unvoided sale.'),
  voidedAt: dateTime('When the sale was voided.'),
  cleared: {
    type: 'boolean',
    description:
      'Bank debits only: true once the bank has cleared the debit (the money arrived). Until then it may still be returned, and a refund of it is held until it clears. A cleared debit can still be returned as unauthorized.',
  },
  clearedAt: dateTime('When the debit cleared.'),
  return: returnSchema,
} as const;

export const transactionSchema = {
  type: 'object',
  description: 'A transaction with the fields of the built-in protections (transactionView).',
  required: [
    'transactionId',
    'type',
    'status',
    'responseCode',
    'responseMessage',
    'isDuplicate',
    'amount',
    'approvedAmount',
    'originalAmount',
    'refundedAmount',
    'availableRefundAmount',
    'refundCount',
    'refundHistory',
    'profileId',
    'processedAt',
    'settled',
  ],
  properties: {
    ...transactionFields,
    dispute: {
      ...disputeSchema,
      description:
        'The latest dispute of this card charge (`GET .../disputes/{disputeId}`). While it is open, and after it was lost (the cardholder has the money back), `availableRefundAmount` is 0 and a refund or void is refused (400).',
    },
  },
} as const;

export const authResponseSchema = {
  type: 'object',
  description:
    'The sale that charged a scheduled payment, as a Transaction at processing time (its refund fields are not updated later, but for availableRefundAmount: 0 once the debit is Returned; a dispute or a refund since shows on the sale, which transactionId names).',
  required: [
    'status',
    'responseCode',
    'responseMessage',
    'isDuplicate',
    'amount',
    'approvedAmount',
    'processedAt',
  ],
  properties: {
    ...transactionFields,
    transactionId: responseUuid('The sale (GET it for current refund fields). Absent when status is Failed.'),
    status: {
      type: 'string',
      enum: ['Approved', 'Declined', 'Failed', 'Returned'],
      description:
        'Failed: the payment could not be charged after retries (responseCode 96, declineCategory 2, no transactionId). Returned: the bank returned the approved debit later (`return`).',
    },
  },
} as const;

export const refundResponseSchema = {
  type: 'object',
  description: 'A refund (refundView) with the sale’s remaining availableRefundAmount.',
  required: ['refundId', 'transactionId', 'amount', 'status', 'date', 'availableRefundAmount'],
  properties: {
    refundId: uuid,
    transactionId: responseUuid('The refunded sale.'),
    amount: money('Refund amount.', 0.01),
    status: { type: 'string', enum: ['Pending', 'Completed', 'Failed'] },
    date: dateTime('When the refund was requested.'),
    responseCode: { type: 'string', description: 'Processor code, once the processor answered.' },
    responseMessage: {
      type: 'string',
      description:
        "The processor's words, or why the service failed the refund (the debit was returned before it cleared).",
    },
    heldUntilCleared: refundHistoryItemSchema.properties.heldUntilCleared,
    availableRefundAmount: money("The sale's remaining refundable amount after this refund."),
  },
} as const;

export type TransactionView = FromSchema<typeof transactionSchema>;
export type AuthResponse = FromSchema<typeof authResponseSchema>;
export type RefundResponse = FromSchema<typeof refundResponseSchema>;
