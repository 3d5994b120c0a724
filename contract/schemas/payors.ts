/** Payors and saved payment methods: request schemas and the Payor and SavedPaymentMethod responses. */
import type { FromSchema } from 'json-schema-to-ts';
import { accountType, dateTime, freeFormKeys, freeText, uuid } from './common';

export const customerDataSchema = {
  type: 'object',
  maxProperties: 50,
  propertyNames: freeFormKeys,
  additionalProperties: freeText(0, 500),
} as const;

export const billingAddressSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['line1', 'city', 'state', 'postalCode', 'country'],
  properties: {
    line1: freeText(1, 100),
    line2: freeText(0, 100),
    city: freeText(1, 60),
    state: freeText(1, 50),
    postalCode: freeText(1, 20),
    country: {
      type: 'string',
      pattern: '^[A-Z]{2}$',
      description: 'must be an ISO 3166-1 alpha-2 code like US',
    },
  },
} as const;

const expiryMonth = { type: 'integer', minimum: 1, maximum: 12 } as const;
const expiryYear = { type: 'integer', minimum: 2000, maximum: 2099 } as const;

/** Numbers are checked in code (Luhn, brand, ABA) so that no message ever echoes them. */
export const cardMethodSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['accountType', 'cardNumber', 'expiryMonth', 'expiryYear', 'billingAddress'],
  properties: {
    accountType: { type: 'string', enum: ['VISA', 'MASTERCARD', 'AMEX', 'DISCOVER'] },
    cardNumber: { type: 'string', maxLength: 19 },
    expiryMonth,
    expiryYear,
    billingAddress: billingAddressSchema,
    customerData: customerDataSchema,
    setAsDefault: { type: 'boolean' },
  },
} as const;

export const checkingMethodSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['accountType', 'routingNumber', 'accountNumber', 'billingAddress'],
  properties: {
    accountType: { type: 'string', enum: ['CHECKING'] },
    routingNumber: { type: 'string', maxLength: 9 },
    accountNumber: { type: 'string', maxLength: 17 },
    billingAddress: billingAddressSchema,
    customerData: customerDataSchema,
    setAsDefault: { type: 'boolean' },
  },
} as const;

/** A new saved method: a card or a bank account, told apart by `accountType`. */
export const newMethodSchemas = [cardMethodSchema, checkingMethodSchema] as const;

/** Picks the method schema before the full validation, so that messages speak of one kind. */
export const accountTypeSchema = {
  type: 'object',
  required: ['accountType'],
  properties: { accountType },
} as const;

export const updateMethodSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    expiryMonth,
    expiryYear,
    billingAddress: billingAddressSchema,
    customerData: customerDataSchema,
    setAsDefault: { type: 'boolean', enum: [true] },
  },
} as const;

const payorFields = {
  customerAccountId: freeText(1, 50),
  customerAccountType: freeText(1, 50),
  sponsorKey: freeText(1, 8),
  customerData: customerDataSchema,
  email: { type: 'string', format: 'email', maxLength: 254, noCardNumber: true },
} as const;

/** `paymentMethod` is validated in code against newMethodSchemas (see the route's body docs). */
export const createPayorSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['paymentMethod'],
  properties: { ...payorFields, paymentMethod: { type: 'object' } },
} as const;

export const updatePayorSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { ...payorFields, payorId: { type: 'string' } },
} as const;

export const bulkSearchSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['customerAccountIds'],
  properties: {
    customerAccountIds: {
      type: 'array',
      minItems: 1,
      maxItems: 100,
      items: { type: 'string', minLength: 1, maxLength: 50 },
    },
  },
} as const;

/** Exactly one of customerAccountId and expiringBefore (checked in code: one message names both). */
export const searchPayorsQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    customerAccountId: { type: 'string', minLength: 1, maxLength: 50 },
    expiringBefore: {
      type: 'string',
      pattern: '^[0-9]{4}-(0[1-9]|1[0-2])$',
      description: 'must be a month as yyyy-MM (e.g. 2027-03)',
    },
    pageToken: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      pattern: '^[A-Za-z0-9_-]+$',
      description: 'must be a pageToken from the Link header of an earlier expiringBefore answer',
    },
  },
} as const;

/** DELETE of a saved method: the method its pending payments move to. */
export const deleteMethodQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    replaceWith: {
      type: 'string',
      pattern: '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$',
      description: 'must be a savedPaymentMethodId (a UUID)',
    },
  },
} as const;

export type CardMethodInput = FromSchema<typeof cardMethodSchema>;
export type CheckingMethodInput = FromSchema<typeof checkingMethodSchema>;
export type MethodInput = CardMethodInput | CheckingMethodInput;
export type UpdateMethodInput = FromSchema<typeof updateMethodSchema>;
export type UpdatePayorInput = FromSchema<typeof updatePayorSchema>;

// ---- Responses ----

export const savedMethodSchema = {
  type: 'object',
  description: 'A saved payment method (methodView).',
  required: [
    'savedPaymentMethodId',
    'payorId',
    'accountType',
    'maskedAccountNumber',
    'billingAddress',
    'isDefault',
    'customerData',
    'status',
    'dateCreated',
    'lastUpdated',
  ],
  properties: {
    savedPaymentMethodId: uuid,
    payorId: uuid,
    accountType,
    maskedAccountNumber: {
      type: 'string',
      pattern: '^\\**[0-9]{4}$',
      description: 'All but the last four digits masked with `*`. Full numbers are never returned.',
      example: '************1111',
    },
    expiryMonth: { type: 'integer', minimum: 1, maximum: 12, description: 'Cards only.' },
    expiryYear: { type: 'integer', minimum: 2000, maximum: 2099, description: 'Cards only.' },
    billingAddress: billingAddressSchema,
    isDefault: { type: 'boolean', description: 'Exactly one method of a payor is the default.' },
    customerData: customerDataSchema,
    status: {
      type: 'string',
      enum: ['active', 'closed', 'contact_cardholder'],
      description:
        'What the account updater last learnt of the account. A `closed` or `contact_cardholder` method is never charged: its scheduled payments and sales are declined `R2` (category 1) without asking the processor, and no new payment may name it. Add a new method and move the payments to it (DELETE with `replaceWith`).',
    },
    updatedBy: {
      type: 'string',
      enum: ['merchant', 'account_updater'],
      description:
        'Who last changed the account details (number, expiry or status): `account_updater` when the card network sent an update. Absent until one of them did.',
    },
    dateCreated: dateTime('Creation time.'),
    lastUpdated: dateTime('Last update time.'),
  },
} as const;

export const payorSchema = {
  type: 'object',
  description: 'A payor (payorView): a customer payment profile with one or more saved methods.',
  required: [
    'payorId',
    'customerAccountId',
    'customerAccountType',
    'sponsorKey',
    'customerData',
    'email',
    'defaultPaymentMethodId',
    'savedPaymentMethods',
    'dateCreated',
    'lastUpdated',
  ],
  properties: {
    payorId: uuid,
    customerAccountId: {
      type: 'string',
      maxLength: 50,
      nullable: true,
      description: "The integrator's customer ID, unique per merchant; null when not set.",
    },
    customerAccountType: { type: 'string', maxLength: 50, nullable: true },
    sponsorKey: { type: 'string', maxLength: 8, nullable: true },
    customerData: customerDataSchema,
    email: {
      type: 'string',
      format: 'email',
      nullable: true,
      description: 'Where notices and receipts go; null when not set.',
    },
    defaultPaymentMethodId: { type: 'string', format: 'uuid', description: 'The one default saved method.' },
    savedPaymentMethods: { type: 'array', minItems: 1, items: savedMethodSchema },
    dateCreated: dateTime('Creation time.'),
    lastUpdated: dateTime('Last update time.'),
  },
} as const;

export type SavedMethodView = FromSchema<typeof savedMethodSchema>;
export type PayorView = FromSchema<typeof payorSchema>;

/** The 409 of a method (or payor) that pending payments, or series, still use. */
export const methodInUseSchema = {
  type: 'object',
  description:
    'The method (or a method of the payor) is used by payments of groups not yet processed, or by the payments of series that will still create groups: they are listed (at most 100 of each).',
  required: ['message', 'responseCode', 'payments', 'series'],
  properties: {
    message: { type: 'string' },
    responseCode: { type: 'integer', enum: [409] },
    payments: {
      type: 'array',
      maxItems: 100,
      description:
        'Payments that use the method: not deleted, not yet charged, of a group pending or being processed. Empty when the 409 is for another reason (a deletion already under way).',
      items: {
        type: 'object',
        required: ['paymentGroupId', 'paymentId'],
        properties: { paymentGroupId: uuid, paymentId: uuid },
      },
    },
    series: {
      type: 'array',
      maxItems: 100,
      description:
        'Series with a payment on the method: active or paused (a paused series may be resumed), or still being created; their later occurrences would charge it. Empty when none (or when the 409 is for another reason).',
      items: {
        type: 'object',
        required: ['seriesId'],
        properties: { seriesId: uuid },
      },
    },
  },
} as const;

/** The 202 of a deletion whose payments still move in the background. */
export const methodDeletionAcceptedSchema = {
  type: 'object',
  required: ['savedPaymentMethodId', 'status', 'movedCount'],
  properties: {
    savedPaymentMethodId: uuid,
    status: { type: 'string', enum: ['deleting'] },
    movedCount: {
      type: 'integer',
      minimum: 0,
      description: "Payments moved to the replacement within this request (groups' and series' payments).",
    },
  },
} as const;
