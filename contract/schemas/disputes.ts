/**
 * Card disputes (docs/product.md#disputes; DESIGN section 6 "Card disputes"): the dispute object,
 * as its routes, its events and the sale's or payment's `dispute` show it, and its list's query
 * and page.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { MAX_PAGE_SIZE } from '../limits';
import { dateTime, money, NO_CONTROL_CHARACTERS, queryInt, responseUuid } from './common';
import { pageQueryDocs, tokenPageSchema } from './pages';

/** A dispute's statuses: the first three are open (a refund or void of its sale is refused). */
const DISPUTE_STATUSES = ['inquiry', 'needs_response', 'under_review', 'won', 'lost'] as const;

export const disputeSchema = {
  type: 'object',
  additionalProperties: false,
  description:
    "A card charge's dispute, as the processor reports it. While it is open (`inquiry`, `needs_response`, `under_review`), and after it was lost, nothing of its sale can be refunded or voided (`availableRefundAmount` 0).",
  required: ['disputeId', 'transactionId', 'status', 'reason', 'amount', 'openedAt'],
  properties: {
    disputeId: responseUuid('The dispute (`GET .../disputes/{disputeId}`).'),
    transactionId: responseUuid('The disputed sale (`GET .../transactions/{id}`).'),
    paymentId: responseUuid('The scheduled payment the sale charged, if any.'),
    paymentGroupId: responseUuid("That payment's group."),
    status: {
      type: 'string',
      enum: DISPUTE_STATUSES,
      description:
        '`inquiry`: the issuer asks before disputing (no money moved yet); `needs_response`: disputed, the merchant should send evidence to the processor by `evidenceDueBy`; `under_review`: evidence sent, the issuer decides; `won` (the money stays with the merchant) and `lost` (it went back to the cardholder) are final.',
    },
    reason: {
      type: 'string',
      description:
        "The processor's reason: `fraudulent`, `unrecognized` and `subscription_canceled` revoke the card's saved method (as an unauthorized bank return does: `payment_method.revoked`, its series payments suspended); `product_not_received`, `duplicate`, `general` and the others only flag the sale.",
    },
    amount: money('What the processor disputes.'),
    evidenceDueBy: dateTime('When the evidence is due at the processor (`needs_response`).'),
    openedAt: dateTime('When the dispute was opened.'),
    closedAt: dateTime('When it was won or lost.'),
  },
} as const;

export const listDisputesQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: DISPUTE_STATUSES },
    pageSize: queryInt(MAX_PAGE_SIZE, `must be an integer 1-${MAX_PAGE_SIZE}`),
    pageToken: { type: 'string', minLength: 1, maxLength: 1000, pattern: NO_CONTROL_CHARACTERS },
  },
} as const;

export const listDisputesQueryDocs = {
  status: { description: 'Only disputes with this status now.' },
  ...pageQueryDocs('Disputes'),
} as const;

export const disputePageSchema = tokenPageSchema('Disputes', disputeSchema);

export type DisputeView = FromSchema<typeof disputeSchema>;
export type DisputeStatus = DisputeView['status'];
export type ListDisputesQuery = FromSchema<typeof listDisputesQuerySchema>;
export type DisputePage = FromSchema<typeof disputePageSchema>;
