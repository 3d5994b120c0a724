/** Series: request schemas, the list query, and the Series responses (seriesView). */
import type { FromSchema } from 'json-schema-to-ts';
import {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_NUMBER,
  MAX_PAGE_SIZE,
  MAX_PAYMENTS_PER_CREATE,
  SERIES_PUT_PAYMENTS,
} from '../limits';
import {
  DEFAULT_NOTICE_DAYS,
  MAX_NOTICE_DAYS,
  MAX_SERIES_INTERVAL,
  MAX_SERIES_OCCURRENCES,
  MAX_SERIES_START_YEARS,
  NEXT_OCCURRENCES_SHOWN,
  SERIES_PAYMENTS_PAGE,
} from '../series';
import { count, dateTime, idempotencyKey, money, numberedListing, profileId, queryInt, uuid } from './common';
import { customAttributesSchema, feeSchema, inlinePaymentSchema } from './payments';
import { retryPolicySchema, retryPolicyViewSchema } from './retries';

/**
 * An IANA time zone name, checked against the zone data the service runs with (the custom keyword
 * `ianaTimeZone`, lambdas/shared/time-zones.ts): an unknown name fails validation like any field.
 */
const timeZone = {
  type: 'string',
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z][A-Za-z0-9_+\\-/]*$',
  ianaTimeZone: true,
  description: 'must be an IANA time zone name, e.g. America/New_York',
} as const;

const localHour = {
  type: 'integer',
  minimum: 0,
  maximum: 23,
  description: 'must be an integer hour 0-23',
} as const;

const occurrenceCount = { type: 'integer', minimum: 1, maximum: MAX_SERIES_OCCURRENCES } as const;

const seriesSettings = {
  timeZone,
  localHour,
  count: occurrenceCount,
  endDate: { type: 'string', format: 'date' },
  locationId: { type: 'integer', minimum: 0, maximum: 2147483647 },
  transactionInitiator: { type: 'string', enum: ['Merchant', 'Consumer'] },
  surchargeCompliance: { type: 'boolean' },
  allowPartial: { type: 'boolean' },
  retryPolicy: retryPolicySchema,
  noticeDays: { type: 'integer', minimum: 0, maximum: MAX_NOTICE_DAYS },
} as const;

export const createSeriesSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['timeZone', 'localHour', 'startDate', 'frequency', 'interval', 'locationId', 'payments'],
  properties: {
    ...seriesSettings,
    startDate: {
      type: 'string',
      format: 'date',
      description: `must be a date (yyyy-MM-dd) at most ${MAX_SERIES_START_YEARS} years after today in timeZone`,
    },
    frequency: { type: 'string', enum: ['weekly', 'monthly'] },
    interval: { type: 'integer', minimum: 1, maximum: MAX_SERIES_INTERVAL },
    payments: { type: 'array', minItems: 1, maxItems: MAX_PAYMENTS_PER_CREATE, items: inlinePaymentSchema },
    idempotencyKey,
  },
} as const;

/** Series update: the fields present are changed (startDate, frequency and interval never). */
export const updateSeriesSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    seriesId: uuid,
    ...seriesSettings,
    status: { type: 'string', enum: ['active', 'paused'] },
    payments: {
      type: 'array',
      minItems: 1,
      maxItems: SERIES_PUT_PAYMENTS,
      description: `Payments of the series given a new saved method, at most ${SERIES_PUT_PAYMENTS} a request: each names a payment by its index and gives its profileId (a saved method of a payor of this merchant, usable and not being deleted; else 400). A payment suspended because its method was revoked is active again on the new method. The occurrences not created yet charge it; a created group is changed on its own.`,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['index', 'profileId'],
        properties: {
          index: {
            type: 'integer',
            minimum: 0,
            maximum: MAX_PAYMENTS_PER_CREATE - 1,
            description: "The payment's index in the series (GET .../series/{SeriesID} shows it).",
          },
          profileId,
        },
      },
    },
  },
} as const;

/** Query parameters of the series list. Values arrive as strings; ranges are checked in code. */
export const listSeriesQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: ['active', 'paused', 'canceled', 'completed'] },
    pageNumber: queryInt(MAX_PAGE_NUMBER, `must be an integer 1-${MAX_PAGE_NUMBER}`),
    pageSize: queryInt(MAX_PAGE_SIZE, `must be an integer 1-${MAX_PAGE_SIZE}`),
  },
} as const;

export const listSeriesQueryDocs = {
  status: { description: 'Only series with this status.' },
  pageNumber: {
    description: `1-based page. Given alone, pageSize is ${DEFAULT_PAGE_SIZE}; either paging parameter returns the paged envelope.`,
    schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_NUMBER },
  },
  pageSize: {
    description: `Items per page, 1-${MAX_PAGE_SIZE} (above: 400). Given alone, pageNumber is 1; either paging parameter returns the paged envelope.`,
    schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE },
  },
} as const;

/** Query parameters of a series' GET: the page of its payments it shows. Values arrive as strings. */
export const getSeriesQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    paymentsFrom: queryInt(
      MAX_PAYMENTS_PER_CREATE,
      `must be an integer 0-${MAX_PAYMENTS_PER_CREATE} (a payment's index)`,
    ),
    paymentsPageSize: queryInt(MAX_PAGE_SIZE, `must be an integer 1-${MAX_PAGE_SIZE}`),
  },
} as const;

export const getSeriesQueryDocs = {
  paymentsFrom: {
    description:
      'The index of the first payment shown (default 0): `paymentsNext` of the previous answer. Past the last payment: `payments: []`.',
    schema: { type: 'integer', minimum: 0, maximum: MAX_PAYMENTS_PER_CREATE },
  },
  paymentsPageSize: {
    description: `Payments shown at most, 1-${MAX_PAGE_SIZE} (default ${SERIES_PAYMENTS_PAGE.defaultSize}; above: 400). Fewer when they are large: an answer's payments stay under ${SERIES_PAYMENTS_PAGE.maxBytes / 1024 / 1024} MB.`,
    schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE },
  },
} as const;

export type CreateSeriesInput = FromSchema<typeof createSeriesSchema>;
export type UpdateSeriesInput = FromSchema<typeof updateSeriesSchema>;
export type ListSeriesQuery = FromSchema<typeof listSeriesQuerySchema>;
export type GetSeriesQuery = FromSchema<typeof getSeriesQuerySchema>;

// ---- Responses ----

const slotProperties = {
  occurrence: count('The occurrence number, from 1.', 1),
  localDate: { type: 'string', format: 'date', description: 'The local date (yyyy-MM-dd) in timeZone.' },
  localTime: {
    type: 'string',
    description:
      'The slot as a local date and time with its UTC offset (ISO 8601, e.g. `2030-03-10T03:00-04:00`): the local hour, or the next one that exists when a daylight-saving change skips it.',
  },
  scheduleDate: { type: 'string', format: 'date', description: 'The UTC date of its group (yyyy-MM-dd).' },
  scheduleHour: { type: 'integer', minimum: 0, maximum: 23, description: 'The UTC hour of its group.' },
} as const;

export const nextOccurrenceSchema = {
  type: 'object',
  description: 'An occurrence whose group is not created yet, with its UTC slot under the current rules.',
  required: ['occurrence', 'localDate', 'localTime', 'scheduleDate', 'scheduleHour', 'createAt'],
  properties: {
    ...slotProperties,
    createAt: dateTime(
      'When its group is created: noticeDays days before the slot (the daily job makes it up to a day earlier). In the past: within a minute.',
    ),
  },
} as const;

export const pastOccurrenceSchema = {
  type: 'object',
  description: 'An occurrence whose turn has come: its group created, or skipped.',
  required: ['occurrence', 'status', 'localDate', 'localTime', 'scheduleDate', 'scheduleHour'],
  properties: {
    ...slotProperties,
    status: {
      type: 'string',
      enum: ['created', 'skipped'],
      description:
        '`created`: its group exists (or existed: a group of a series can be changed or deleted on its own). `skipped`: its slot had passed before its group could be created (the series was paused, or the service could not run), so it is never charged.',
    },
    paymentGroupId: { ...uuid, description: 'The group of a created occurrence.' },
    createdAt: dateTime('When its group was created, or when it was skipped.'),
    paymentsLeftOut: count(
      "Payments of the series left out of the group because their saved method no longer existed (absent when none); the series' later occurrences try them again.",
    ),
  },
} as const;

export const seriesPaymentSchema = {
  type: 'object',
  description:
    "A payment of the series: what each occurrence's group charges (a copy of it with `recurring: true`).",
  required: [
    'index',
    'profileId',
    'amount',
    'status',
    'sendEmailReceipt',
    'sendPaymentScheduledNotification',
    'sendDeclineNotification',
  ],
  properties: {
    index: count(
      "Its position in the series, from 0: each occurrence's group lists the payments in this order.",
    ),
    profileId: {
      type: 'string',
      description:
        '`{payorId}/{savedPaymentMethodId}`: the saved method each occurrence charges (after a DELETE of a method with `replaceWith`, the replacement).',
    },
    amount: money('Charged by each occurrence.', 0.01),
    status: {
      type: 'string',
      enum: ['active', 'suspended'],
      description:
        "`active`: each occurrence's group created from now on charges it. `suspended`: left out of the occurrences' groups (`suspendedReason`) until it is given a new method (a DELETE of the method with `replaceWith`, or a PUT of the series); the series goes on for its other payments.",
    },
    suspendedReason: {
      type: 'string',
      enum: ['authorization_revoked'],
      description:
        '`authorization_revoked`: its method was revoked (the payor disputed a debit as unauthorized, or a card charge as fraud).',
    },
    orderId: { type: 'string', description: 'Present when given.' },
    allowPartial: {
      type: 'boolean',
      description: "Present when given; otherwise the series' setting applies.",
    },
    sendEmailReceipt: { type: 'boolean' },
    sendPaymentScheduledNotification: { type: 'boolean' },
    sendDeclineNotification: {
      type: 'boolean',
      description: "Given to each occurrence's payment: the payor is e-mailed after each declined attempt.",
    },
    customAttributes: customAttributesSchema,
    fees: { type: 'array', items: feeSchema, description: 'Present when given.' },
  },
} as const;

export const seriesSchema = {
  type: 'object',
  description:
    'A series (seriesView): a group created for each occurrence of a recurrence in the merchant’s time zone. Lists leave out `occurrences`.',
  required: [
    'seriesId',
    'servicePayId',
    'status',
    'timeZone',
    'localHour',
    'startDate',
    'frequency',
    'interval',
    'occurrenceCount',
    'locationId',
    'transactionInitiator',
    'surchargeCompliance',
    'allowPartial',
    'noticeDays',
    'paymentCount',
    'totalAmount',
    'createdCount',
    'nextOccurrences',
    'dateCreated',
    'lastUpdated',
  ],
  properties: {
    seriesId: uuid,
    servicePayId: {
      type: 'string',
      pattern: '^\\d{11}$',
      description: 'The 11-digit merchant ID (also when the path used the 8-digit form).',
    },
    status: {
      type: 'string',
      enum: ['active', 'paused', 'canceled', 'completed'],
      description:
        '`active`: groups are created; `paused`: none are (PUT `active` resumes); `canceled` (DELETE): none will be, and its pending groups were deleted; `completed`: the last occurrence’s group is created.',
    },
    timeZone: { type: 'string', description: 'The IANA time zone of localHour, startDate and endDate.' },
    localHour: {
      type: 'integer',
      minimum: 0,
      maximum: 23,
      description: 'The local hour of every occurrence.',
    },
    startDate: { type: 'string', format: 'date', description: 'The local date of the first occurrence.' },
    frequency: { type: 'string', enum: ['weekly', 'monthly'] },
    interval: { type: 'integer', minimum: 1, maximum: MAX_SERIES_INTERVAL },
    count: { ...occurrenceCount, description: 'Present when the series was given a count.' },
    endDate: {
      type: 'string',
      format: 'date',
      description:
        'Present when the series was given an end date: the last local date an occurrence may fall on.',
    },
    occurrenceCount: count('Occurrences in all: count, or those on or before endDate.', 1),
    locationId: { type: 'integer', minimum: 0 },
    transactionInitiator: { type: 'string', enum: ['Merchant', 'Consumer'] },
    surchargeCompliance: { type: 'boolean' },
    allowPartial: { type: 'boolean' },
    retryPolicy: {
      ...retryPolicyViewSchema,
      description: `Present when given: the retry policy of each group the series creates from now on (without one, its groups follow the merchant's). ${retryPolicySchema.description}`,
    },
    noticeDays: count(
      `Days before its slot an occurrence’s group is created (default ${DEFAULT_NOTICE_DAYS}).`,
    ),
    paymentCount: count('Payments of every occurrence.'),
    totalAmount: money('Sum of the payments of one occurrence, exact.'),
    createdCount: count('Occurrences whose group has been created.'),
    nextOccurrences: {
      type: 'array',
      maxItems: NEXT_OCCURRENCES_SHOWN,
      items: nextOccurrenceSchema,
      description: `The next ${NEXT_OCCURRENCES_SHOWN} occurrences whose group is not created yet (fewer near the end; none once canceled or completed).`,
    },
    occurrences: {
      type: 'array',
      maxItems: MAX_SERIES_OCCURRENCES,
      items: pastOccurrenceSchema,
      description: 'Every occurrence whose turn has come, oldest first (one series only: not in lists).',
    },
    payments: {
      type: 'array',
      maxItems: MAX_PAGE_SIZE,
      items: seriesPaymentSchema,
      description: `The series' payments in their order, a page of them: from \`paymentsFrom\` (default 0), at most \`paymentsPageSize\` (default ${SERIES_PAYMENTS_PAGE.defaultSize}), fewer when they are large (an answer's payments stay under ${SERIES_PAYMENTS_PAGE.maxBytes / 1024 / 1024} MB). One series only (GET, create and change answers): not in lists (they show paymentCount) nor in events.`,
    },
    paymentsNext: count(
      'Present when more payments follow this page: the index of the next one. GET the series with `?paymentsFrom=` it for them.',
      1,
    ),
    dateCreated: dateTime('Creation time.'),
    lastUpdated: dateTime('Last change of its settings or status.'),
  },
} as const;

const seriesListing = numberedListing(seriesSchema, 'series', 'series');
export const seriesListSchema = seriesListing.list;
export const seriesPageSchema = seriesListing.page;
/** Either list answer: every series, or a page of them. */
export const seriesListingSchema = seriesListing.listing;

export type SeriesView = FromSchema<typeof seriesSchema>;
export type NextOccurrenceView = FromSchema<typeof nextOccurrenceSchema>;
export type PastOccurrenceView = FromSchema<typeof pastOccurrenceSchema>;
export type SeriesPaymentView = FromSchema<typeof seriesPaymentSchema>;
