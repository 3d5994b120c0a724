/**
 * Request schemas: the one source for validation, request types and the OpenAPI document.
 * Limits are DESIGN.md's decisions (money <= 999999.99 with 2 decimals, up to 10,000 payments
 * in a group create, pageSize <= 500).
 */
import type { FromSchema } from 'json-schema-to-ts';

export const MAX_PAYMENTS_PER_CREATE = 10_000;
export const MAX_PAGE_SIZE = 500;
export const DEFAULT_PAGE_SIZE = 25;

const amount = {
  type: 'number',
  minimum: 0.01,
  maximum: 999999.99,
  maxDecimals: 2,
  description: 'Amount in the currency unit, > 0, at most 2 decimals.',
} as const;

const uuid = { type: 'string', format: 'uuid' } as const;

export const midPattern = '^\\d{8}(\\d{3})?$';

const paymentProperties = {
  profileId: {
    type: 'string',
    maxLength: 200,
    pattern: '^[A-Za-z0-9_-]{1,64}/[A-Za-z0-9_-]{1,64}$',
    description: 'must be of the form {payorId}/{savedPaymentMethodId}',
  },
  amount,
  orderId: { type: 'string', minLength: 1, maxLength: 100 },
  recurring: { type: 'boolean' },
  allowPartial: { type: 'boolean' },
  sendEmailReceipt: { type: 'boolean' },
  sendPaymentScheduledNotification: { type: 'boolean' },
  customAttributes: {
    type: 'object',
    maxProperties: 50,
    propertyNames: { maxLength: 100 },
    additionalProperties: {
      anyOf: [
        { type: 'string', maxLength: 1000 },
        // Numbers DynamoDB and JSON both keep exactly.
        { type: 'number', minimum: -1e15, maximum: 1e15, maxDecimals: 6 },
        { type: 'boolean' },
      ],
      description:
        'must be a string (up to 1000 characters), a number (|n| <= 1e15, up to 6 decimals) or a boolean',
    },
  },
  fees: {
    type: 'array',
    maxItems: 20,
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'amount'],
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 100 },
        amount: { type: 'number', minimum: 0, maximum: 999999.99, maxDecimals: 2 },
      },
    },
  },
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

export const updatePaymentSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['paymentId', 'paymentGroupId', 'profileId', 'amount'],
  properties: { paymentId: uuid, paymentGroupId: uuid, ...paymentProperties },
} as const;

const groupSettings = {
  scheduleDate: { type: 'string', format: 'date' },
  scheduleHour: { type: 'integer', minimum: 0, maximum: 23 },
  locationId: { type: 'integer', minimum: 0, maximum: 2147483647 },
  transactionInitiator: { type: 'string', enum: ['Merchant', 'Consumer'] },
  surchargeCompliance: { type: 'boolean' },
  allowPartial: { type: 'boolean' },
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
  },
} as const;

/** Group update: fields present are changed. `deleted` is refused before this schema runs. */
export const updateGroupSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { paymentGroupId: uuid, servicePayId, ...groupSettings },
} as const;

const queryInt = (max: number, description: string) =>
  ({ type: 'string', pattern: `^\\d{1,${String(max).length}}$`, description }) as const;

/** Query parameters of both group lists. Values arrive as strings; ranges are checked in code. */
export const listGroupsQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    date: { type: 'string', format: 'date' },
    time: queryInt(23, 'must be an integer hour 0-23'),
    locationID: queryInt(2147483647, 'must be an integer >= 0'),
    pageNumber: queryInt(999999999, 'must be an integer >= 1'),
    pageSize: queryInt(MAX_PAGE_SIZE, `must be an integer 1-${MAX_PAGE_SIZE}`),
  },
} as const;

export type InlinePaymentInput = FromSchema<typeof inlinePaymentSchema>;
export type AddPaymentInput = FromSchema<typeof addPaymentSchema>;
export type UpdatePaymentInput = FromSchema<typeof updatePaymentSchema>;
export type CreateGroupInput = FromSchema<typeof createGroupSchema>;
export type UpdateGroupInput = FromSchema<typeof updateGroupSchema>;
export type ListGroupsQuery = FromSchema<typeof listGroupsQuerySchema>;

// ---- Payors, saved payment methods, transactions (DESIGN.md 3) ----

export const MAX_METHODS_PER_PAYOR = 20;

const customerData = {
  type: 'object',
  maxProperties: 50,
  propertyNames: { maxLength: 100 },
  additionalProperties: { type: 'string', maxLength: 500 },
} as const;

const billingAddress = {
  type: 'object',
  additionalProperties: false,
  required: ['line1', 'city', 'state', 'postalCode', 'country'],
  properties: {
    line1: { type: 'string', minLength: 1, maxLength: 100 },
    line2: { type: 'string', maxLength: 100 },
    city: { type: 'string', minLength: 1, maxLength: 60 },
    state: { type: 'string', minLength: 1, maxLength: 50 },
    postalCode: { type: 'string', minLength: 1, maxLength: 20 },
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
    billingAddress,
    customerData,
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
    billingAddress,
    customerData,
    setAsDefault: { type: 'boolean' },
  },
} as const;

export const accountTypeSchema = {
  type: 'object',
  required: ['accountType'],
  properties: {
    accountType: { type: 'string', enum: ['VISA', 'MASTERCARD', 'AMEX', 'DISCOVER', 'CHECKING'] },
  },
} as const;

export const updateMethodSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    expiryMonth,
    expiryYear,
    billingAddress,
    customerData,
    setAsDefault: { type: 'boolean', enum: [true] },
  },
} as const;

const payorFields = {
  customerAccountId: { type: 'string', minLength: 1, maxLength: 50 },
  customerAccountType: { type: 'string', minLength: 1, maxLength: 50 },
  sponsorKey: { type: 'string', minLength: 1, maxLength: 8 },
  customerData,
  email: { type: 'string', format: 'email', maxLength: 254 },
} as const;

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

export const searchPayorsQuerySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['customerAccountId'],
  properties: { customerAccountId: { type: 'string', minLength: 1, maxLength: 50 } },
} as const;

const idempotencyKey = {
  type: 'string',
  pattern: '^[A-Za-z0-9_.:-]{1,100}$',
  description: 'must be 1-100 characters of letters, digits and _ . : -',
} as const;

export const saleSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['profileId', 'amount'],
  properties: {
    profileId: paymentProperties.profileId,
    amount,
    orderId: { type: 'string', minLength: 1, maxLength: 100 },
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

export type CardMethodInput = FromSchema<typeof cardMethodSchema>;
export type CheckingMethodInput = FromSchema<typeof checkingMethodSchema>;
export type MethodInput = CardMethodInput | CheckingMethodInput;
export type UpdateMethodInput = FromSchema<typeof updateMethodSchema>;
export type CreatePayorInput = FromSchema<typeof createPayorSchema>;
export type UpdatePayorInput = FromSchema<typeof updatePayorSchema>;
export type BulkSearchInput = FromSchema<typeof bulkSearchSchema>;
export type SearchPayorsQuery = FromSchema<typeof searchPayorsQuerySchema>;
export type SaleInput = FromSchema<typeof saleSchema>;
export type RefundInput = FromSchema<typeof refundSchema>;

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
    paymentIds: { type: 'array', minItems: 1, maxItems: 10000, items: { type: 'string', format: 'uuid' } },
  },
} as const;

export type TriggerMerchantInput = FromSchema<typeof triggerMerchantSchema>;
export type VoidOrRefundInput = FromSchema<typeof voidOrRefundSchema>;
