/** Payment groups: request schemas, the list query, and the Group responses (groupView). */
import type { FromSchema } from 'json-schema-to-ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_NUMBER, MAX_PAGE_SIZE, MAX_PAYMENTS_PER_CREATE } from '../limits';
import {
  count,
  dateTime,
  idempotencyKey,
  midPattern,
  money,
  numberedListing,
  queryInt,
  uuid,
} from './common';
import { inlinePaymentSchema, paymentSchema } from './payments';
import { processingSummarySchema, voidOrRefundSummarySchema } from './processing';
import { retryPolicySchema, retryPolicyViewSchema } from './retries';

const groupSettings = {
  scheduleDate: { type: 'string', format: 'date' },
  scheduleHour: { type: 'integer', minimum: 0, maximum: 23 },
  locationId: { type: 'integer', minimum: 0, maximum: 2147483647 },
  transactionInitiator: { type: 'string', enum: ['Merchant', 'Consumer'] },
  surchargeCompliance: { type: 'boolean' },
  allowPartial: { type: 'boolean' },
  retryPolicy: retryPolicySchema,
} as const;

const servicePayId = {
  type: 'string',
  pattern: midPattern,
  description: 'must be an 8 or 11 digit merchant ID',
} as const;

export const createGroupSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['servicePayId', 'scheduleDate', 'scheduleHour', 'locationId'],
  properties: {
    servicePayId,
    ...groupSettings,
    payments: { type: 'array', maxItems: MAX_PAYMENTS_PER_CREATE, items: inlinePaymentSchema },
    idempotencyKey,
  },
} as const;

/** Group update: fields present are changed. `deleted` is refused before this schema runs. */
export const updateGroupSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { paymentGroupId: uuid, servicePayId, ...groupSettings },
} as const;

/** Query parameters of both group lists. Values arrive as strings; ranges are checked in code. */
export const listGroupsQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    date: { type: 'string', format: 'date' },
    time: queryInt(23, 'must be an integer hour 0-23'),
    locationID: queryInt(2147483647, 'must be an integer >= 0'),
    pageNumber: queryInt(MAX_PAGE_NUMBER, `must be an integer 1-${MAX_PAGE_NUMBER}`),
    pageSize: queryInt(MAX_PAGE_SIZE, `must be an integer 1-${MAX_PAGE_SIZE}`),
  },
} as const;

/** What the document shows for each list parameter (the validator sees strings). */
export const listGroupsQueryDocs = {
  date: { description: 'Only groups scheduled on this UTC date (yyyy-MM-dd).' },
  time: {
    description: 'Only groups scheduled at this UTC hour (0-23).',
    schema: { type: 'integer', minimum: 0, maximum: 23 },
  },
  locationID: {
    description: 'Only groups of this location.',
    schema: { type: 'integer', minimum: 0, maximum: 2147483647 },
  },
  pageNumber: {
    description: `1-based page. Given alone, pageSize is ${DEFAULT_PAGE_SIZE}; either paging parameter returns the paged envelope.`,
    schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_NUMBER },
  },
  pageSize: {
    description: `Items per page, 1-${MAX_PAGE_SIZE} (above: 400). Given alone, pageNumber is 1; either paging parameter returns the paged envelope.`,
    schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE },
  },
} as const;

export type CreateGroupInput = FromSchema<typeof createGroupSchema>;
export type UpdateGroupInput = FromSchema<typeof updateGroupSchema>;
export type ListGroupsQuery = FromSchema<typeof listGroupsQuerySchema>;

// ---- Responses ----

export const groupSchema = {
  type: 'object',
  description:
    'A payment group (groupView). transactionInitiator, surchargeCompliance, allowPartial, dateCreated and lastUpdated are always present in this service, but SPEC.md lets list items omit them: readers must tolerate their absence.',
  required: [
    'paymentGroupId',
    'servicePayId',
    'scheduleDate',
    'scheduleHour',
    'locationId',
    'status',
    'deleted',
    'paymentCount',
    'totalAmount',
  ],
  properties: {
    paymentGroupId: uuid,
    servicePayId: {
      type: 'string',
      pattern: '^\\d{11}$',
      description: 'The 11-digit merchant ID (also when the path used the 8-digit form).',
    },
    scheduleDate: { type: 'string', format: 'date', description: 'UTC date of processing (yyyy-MM-dd).' },
    scheduleHour: { type: 'integer', minimum: 0, maximum: 23, description: 'UTC hour of processing.' },
    locationId: { type: 'integer', minimum: 0 },
    transactionInitiator: { type: 'string', enum: ['Merchant', 'Consumer'] },
    surchargeCompliance: { type: 'boolean' },
    allowPartial: { type: 'boolean' },
    status: {
      type: 'string',
      enum: ['pending', 'processing', 'processed', 'deleted'],
      description:
        'pending → processing → processed; deleted after DELETE (a soft delete: the group stays readable).',
    },
    deleted: { type: 'boolean', description: 'true exactly when status is deleted. Set only by DELETE.' },
    paymentCount: count('Number of non-deleted payments.'),
    totalAmount: money('Sum of the non-deleted payments, exact.'),
    dateCreated: dateTime('Creation time.'),
    lastUpdated: dateTime('Last update time.'),
    processingSummary: processingSummarySchema,
    executionArn: {
      type: 'string',
      description:
        'The processing execution (Step Functions) of the latest attempt; present once processing has started. A re-driven group names its new execution.',
    },
    voidOrRefundSummary: voidOrRefundSummarySchema,
    seriesId: {
      type: 'string',
      format: 'uuid',
      description: 'Present on the group of a series’ occurrence: the series.',
    },
    occurrence: {
      type: 'integer',
      minimum: 1,
      description: 'Present on the group of a series’ occurrence: which occurrence (from 1).',
    },
    retryPolicy: {
      ...retryPolicyViewSchema,
      description:
        "The group's own retry policy, when it has one (else the merchant's settings apply, whose default is no retries).",
    },
  },
} as const;

export const groupWithPaymentsSchema = {
  allOf: [
    groupSchema,
    {
      type: 'object',
      required: ['payments'],
      properties: {
        payments: {
          type: 'array',
          items: paymentSchema,
          description: 'The payments created, each with its paymentId.',
        },
      },
    },
  ],
} as const;

const groupListing = numberedListing(groupSchema, 'group', 'groups');
export const groupListSchema = groupListing.list;
export const groupPageSchema = groupListing.page;
/** Either list answer: every group, or a page of them. */
export const groupListingSchema = groupListing.listing;

export type GroupView = FromSchema<typeof groupSchema>;
