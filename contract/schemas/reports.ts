/** A group's report (DESIGN section 5, "Group report"): its query and the JSON response. */
import type { FromSchema } from 'json-schema-to-ts';
import { count, dateTime, money, uuid } from './common';

/**
 * The columns of the report's files (CSV and .xlsx), in order: those of the first CSV, then what a
 * school's office asks for (the payor's customerAccountId, when the latest attempt was made, its
 * processor message, the bank's return code of a returned debit, the status of a disputed charge's dispute, the
 * payment's sponsorKey). New columns go at the end, so
 * that a reader by position keeps working.
 */
export const REPORT_COLUMNS = [
  'paymentId',
  'orderId',
  'profileId',
  'amount',
  'status',
  'responseCode',
  'declineCategory',
  'attempts',
  'approvedAmount',
  'refundedAmount',
  'voided',
  'customerAccountId',
  'processedAt',
  'responseMessage',
  'returnCode',
  'disputeStatus',
  'sponsorKey',
] as const;

export const groupReportQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    cursor: {
      type: 'string',
      pattern: '^[A-Za-z0-9_.-]{1,400}$',
      description: 'must be the cursor of the Link header of a CSV or spreadsheet page of this group',
    },
  },
} as const;

export const groupReportQueryDocs = {
  cursor: {
    description:
      'CSV and spreadsheet pages only (`Accept: text/csv` or the .xlsx type): the cursor of the previous page\'s `Link: <?cursor=…>; rel="next"` header; continues right after that page. Opaque and bound to this group (a CSV page\'s cursor continues a spreadsheet as well): any other value is 400.',
  },
} as const;

const amount = <D extends string>(description: D) => money(description);

export const groupReportSchema = {
  type: 'object',
  description:
    "A group's outcome at a glance. counts.payments and amounts.scheduled are the group's paymentCount and totalAmount; once processed, approved + returned + declined + failed = payments, and approved, partial, declined, failed, retryScheduled, recovered, returned, disputed and amounts.approved, amounts.returned and amounts.disputed are its processingSummary's (a return or a dispute reaches the summary right after it is applied; while a retry round of the group is charging, right after the round).",
  required: ['paymentGroupId', 'status', 'counts', 'amounts'],
  properties: {
    paymentGroupId: uuid,
    status: { type: 'string', enum: ['pending', 'processing', 'processed', 'deleted'] },
    executionArn: { type: 'string', description: 'The latest processing execution, once started.' },
    startedAt: dateTime('When processing was claimed, once it was.'),
    completedAt: dateTime('When processing (or the latest retry round) completed.'),
    counts: {
      type: 'object',
      required: [
        'payments',
        'deleted',
        'approved',
        'partial',
        'declined',
        'declinedCategory1',
        'declinedCategory2',
        'failed',
        'voided',
        'refunded',
        'retryScheduled',
        'recovered',
        'returned',
        'disputed',
      ],
      properties: {
        payments: count('Payments not deleted (the group’s paymentCount).'),
        deleted: count('Deleted payments (never charged).'),
        approved: count(
          'Approved by their latest attempt, partial approvals included; a bank debit returned since is not (returned).',
        ),
        partial: count('Approved for less than their amount (included in approved).'),
        declined: count('Declined by their latest attempt (duplicates included).'),
        declinedCategory1: count(
          'Declines of category 1 (do not retry). declinedCategory1 + declinedCategory2 = declined.',
        ),
        declinedCategory2: count('Declines of category 2 (may be retried).'),
        failed: count('Could not be charged (authResponse status Failed).'),
        voided: count('Approved payments whose sale was voided.'),
        refunded: count('Approved payments with a refund sent or scheduled (not failed).'),
        retryScheduled: count('Payments whose retry is scheduled.'),
        recovered: count('Payments approved by a retry.'),
        returned: count(
          'Payments whose approved bank debit (their latest attempt) was returned by the bank since: status returned, with its returnCode in the files.',
        ),
        disputed: count(
          'Approved payments whose card charge (their latest attempt) was disputed by the cardholder, whatever the dispute’s status since (included in approved): the dispute’s status in the files’ disputeStatus.',
        ),
      },
    },
    amounts: {
      type: 'object',
      required: ['scheduled', 'approved', 'declined', 'failed', 'voided', 'refunded', 'returned', 'disputed'],
      properties: {
        scheduled: amount('Sum of the payments not deleted (the group’s totalAmount).'),
        approved: amount(
          'Sum approved (the approvedAmount of partial approvals), returned debits not included.',
        ),
        declined: amount('Sum of the declined payments’ amounts.'),
        failed: amount('Sum of the failed payments’ amounts.'),
        voided: amount('Sum voided.'),
        refunded: amount('Sum refunded or scheduled for refund (not failed).'),
        returned: amount('Sum of the returned debits (what each had debited).'),
        disputed: amount('Sum disputed (each dispute’s amount; included in approved).'),
      },
    },
  },
} as const;

export type GroupReportView = FromSchema<typeof groupReportSchema>;
