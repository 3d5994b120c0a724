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
  exclusiveMinimum: 0,
  maximum: 999999.99,
  multipleOf: 0.01,
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
      anyOf: [{ type: 'string', maxLength: 1000 }, { type: 'number' }, { type: 'boolean' }],
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
        amount: { type: 'number', minimum: 0, maximum: 999999.99, multipleOf: 0.01 },
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
