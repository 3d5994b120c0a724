/**
 * Building blocks of the request and response schemas. Schemas are plain JSON Schema (`as const`):
 * ajv validates requests with them, json-schema-to-ts derives the request and view types from
 * them, and the OpenAPI builder (lib/openapi) translates them, e.g. the ajv keyword
 * `maxDecimals: 2` into `multipleOf: 0.01`.
 */

export const MONEY_MAX = 999999.99;

/** A request amount: > 0, at most 2 decimals. */
export const amount = {
  type: 'number',
  minimum: 0.01,
  maximum: MONEY_MAX,
  maxDecimals: 2,
  description: 'Amount in the currency unit, > 0, at most 2 decimals.',
} as const;

export const uuid = { type: 'string', format: 'uuid' } as const;

/**
 * Names of Object.prototype (and `prototype`): refused as keys of free-form objects
 * (customAttributes, customerData), which code reads as plain JavaScript objects
 * (docs/decisions.md "Reserved keys").
 */
const RESERVED_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'toLocaleString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
] as const;

/**
 * The key rule of a free-form object: 1 to 100 characters (DynamoDB takes no empty attribute
 * name), no reserved name, no card number (a
 * key is stored, echoed and exported like a value; docs/decisions.md "Card numbers in free text").
 */
export const freeFormKeys = {
  minLength: 1,
  maxLength: 100,
  not: { enum: RESERVED_KEYS },
  noCardNumber: true,
} as const;

/** No C0 control character (U+0000-U+001F, so no CR, LF or tab) and no DEL (U+007F). */
export const NO_CONTROL_CHARACTERS = '^[^\\u0000-\\u001F\\u007F]*$';

/**
 * Merchant free text (docs/decisions.md "Free text"): it reaches e-mails, reports and logs, so it
 * holds no control characters, and no full card number (`noCardNumber`: a Luhn-valid 13-19 digit
 * run with a card brand's prefix, however its groups are separated, lambdas/shared/card-number.ts;
 * docs/decisions.md "Card numbers in free text").
 */
export const freeText = <Min extends number, Max extends number>(minLength: Min, maxLength: Max) =>
  ({
    type: 'string',
    minLength,
    maxLength,
    pattern: NO_CONTROL_CHARACTERS,
    noCardNumber: true,
    description: 'must not contain control characters or a card number',
  }) as const;

export const midPattern = '^\\d{8}(\\d{3})?$';

/** A query parameter holding a whole number: values arrive as strings; ranges are checked in code. */
export const queryInt = (max: number, description: string) =>
  ({ type: 'string', pattern: `^\\d{1,${String(max).length}}$`, description }) as const;

/** A request's key; one holding a card number is refused (it is echoed in 409s and 422s). */
export const idempotencyKey = {
  type: 'string',
  pattern: '^[A-Za-z0-9_.:-]{1,100}$',
  noCardNumber: true,
  description: 'must be 1-100 characters of letters, digits and _ . : -, and no card number',
} as const;

export const profileId = {
  type: 'string',
  maxLength: 200,
  pattern: '^[A-Za-z0-9_-]{1,64}/[A-Za-z0-9_-]{1,64}$',
  description: 'must be of the form {payorId}/{savedPaymentMethodId}',
} as const;

// ---- Response building blocks (the words the document shows) ----

const MONEY_NOTE = 'A JSON number with at most 2 decimals (integer cents inside the service).';

/** A response amount, >= 0 (or >= 0.01 where zero cannot happen). */
export const money = <D extends string, M extends number = 0>(description: D, minimum?: M) =>
  ({
    type: 'number',
    minimum: (minimum ?? 0) as M,
    maxDecimals: 2,
    description: `${description} ${MONEY_NOTE}` as `${D} ${typeof MONEY_NOTE}`,
  }) as const;

export const responseUuid = <D extends string>(description: D) =>
  ({ type: 'string', format: 'uuid', description }) as const;

export const dateTime = <D extends string>(description: D) =>
  ({
    type: 'string',
    format: 'date-time',
    description: `${description} UTC (ISO 8601, \`Z\`).` as `${D} UTC (ISO 8601, \`Z\`).`,
  }) as const;

export const count = <D extends string, M extends number = 0>(description: D, minimum?: M) =>
  ({ type: 'integer', minimum: (minimum ?? 0) as M, description }) as const;

export const accountType = {
  type: 'string',
  enum: ['VISA', 'MASTERCARD', 'AMEX', 'DISCOVER', 'CHECKING', 'SAVINGS'],
} as const;

/** The bank account types: a debit goes to either (a bank's notification of change may correct one to the other). */
export const BANK_ACCOUNT_TYPES = ['CHECKING', 'SAVINGS'] as const;

/** The body of every error response. */
export const errorSchema = {
  type: 'object',
  description: 'The body of every error response.',
  required: ['message', 'responseCode'],
  properties: {
    message: {
      type: 'string',
      description:
        'What was wrong, naming the field (e.g. `payments[3].amount must have at most 2 decimal places`).',
    },
    responseCode: { type: 'integer', description: 'The HTTP status, repeated.', example: 400 },
    errors: {
      type: 'array',
      maxItems: 100,
      description:
        'A 400 for a body or query that failed its schema only: every problem found (at most 100), the first being `message`.',
      items: {
        type: 'object',
        required: ['field', 'message'],
        properties: {
          field: { type: 'string', description: 'The field by path, e.g. `payments[3].amount`.' },
          message: { type: 'string', description: 'The problem, naming the field.' },
        },
      },
    },
  },
} as const;

/**
 * Both answers of a list that pages by number (`pageNumber`, `pageSize`): without paging
 * parameters every matching item (`list`), with them a page (`page`: `meta` counts the pages).
 * `one` and `many` name an item and the items in the descriptions ("group", "groups").
 */
export const numberedListing = <S extends object, O extends string, N extends string>(
  items: S,
  one: O,
  many: N,
) => {
  const list = {
    type: 'array',
    items,
    description:
      `Without paging parameters: every matching ${one}.` as `Without paging parameters: every matching ${O}.`,
  } as const;
  const page = {
    type: 'object',
    description: 'The paged envelope: with pageNumber and/or pageSize.',
    required: ['meta', 'items'],
    properties: {
      meta: {
        type: 'object',
        required: ['page', 'pageSize', 'totalItems', 'totalPages'],
        properties: {
          page: count('The page returned (pageNumber).', 1),
          pageSize: count('Items per page.', 1),
          totalItems: count(`Matching ${many} in all pages.` as `Matching ${N} in all pages.`),
          totalPages: count('ceil(totalItems / pageSize); 0 when nothing matches.'),
        },
      },
      items: { type: 'array', items, description: 'This page; [] for a page past the end.' },
    },
  } as const;
  return { list, page, listing: { oneOf: [list, page] } as const };
};
