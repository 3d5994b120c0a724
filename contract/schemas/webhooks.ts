/** Webhook endpoints, their deliveries and replays (docs/decisions.md "Webhooks"). */
import type { FromSchema } from 'json-schema-to-ts';
import { EVENT_PATTERN, EVENT_TYPES } from '../events';
import { MAX_PAGE_SIZE } from '../limits';
import { MAX_WEBHOOK_ENDPOINTS } from '../webhooks';
import { count, dateTime, freeText, NO_CONTROL_CHARACTERS, queryInt } from './common';
import { pageQueryDocs, tokenPageSchema } from './pages';

/** The URL's shape; where it may point is checked in code (docs/decisions.md "Where a webhook may go"). */
const url = {
  type: 'string',
  minLength: 1,
  maxLength: 2048,
  pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s\\u0000-\\u001F\\u007F]+$',
  // Its path and query are echoed, stored and sent with every delivery: no card number there,
  // percent-encoded or not.
  noCardNumber: true,
  description: 'must be an absolute https URL',
} as const;

const enabledEvents = {
  type: 'array',
  minItems: 1,
  maxItems: EVENT_TYPES.length + 1,
  uniqueItems: true,
  items: {
    type: 'string',
    pattern: EVENT_PATTERN,
    description: 'must be an event type, "*" or "<object>.*" (e.g. "group.*")',
  },
} as const;

const description = freeText(0, 500);

const status = { type: 'string', enum: ['enabled', 'disabled'] } as const;

export const createWebhookEndpointSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: { url, enabledEvents, description },
} as const;

export const updateWebhookEndpointSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: { url, enabledEvents, description, status },
} as const;

export const replayWebhookSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['since'],
  properties: { since: { type: 'string', format: 'date-time' } },
} as const;

const endpointProperties = {
  webhookEndpointId: { type: 'string', format: 'uuid', description: 'The endpoint id.' },
  url: { type: 'string', description: 'Where the events are POSTed.' },
  enabledEvents: {
    type: 'array',
    items: { type: 'string' },
    description: 'Event types sent to it: exact types, `*` (every type) or `<object>.*`.',
  },
  description: { type: 'string', description: 'The merchant\'s own words about it ("" when none).' },
  status: {
    type: 'string',
    enum: ['enabled', 'disabled'],
    description:
      'Only an enabled endpoint receives events. The service disables one that answered 410 Gone (`disabledReason`).',
  },
  disabledReason: {
    type: 'string',
    description: 'Why the service disabled it (absent when the merchant did, or when enabled).',
  },
  dateCreated: dateTime('When it was created; it receives the events created from then on.'),
  lastUpdated: dateTime('When it was last changed (its secret included).'),
} as const;

export const webhookEndpointSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'webhookEndpointId',
    'url',
    'enabledEvents',
    'description',
    'status',
    'dateCreated',
    'lastUpdated',
  ],
  properties: endpointProperties,
} as const;

const secret = {
  type: 'string',
  pattern: '^whsec_[A-Za-z0-9+/]{43}=$',
  description:
    'The signing secret: `whsec_` and the base64 of 32 random bytes. Shown only here: keep it like a password.',
} as const;

export const createdWebhookEndpointSchema = {
  type: 'object',
  additionalProperties: false,
  required: [...webhookEndpointSchema.required, 'secret'],
  properties: { ...endpointProperties, secret },
} as const;

export const webhookEndpointListSchema = {
  type: 'array',
  maxItems: MAX_WEBHOOK_ENDPOINTS,
  items: webhookEndpointSchema,
} as const;

export const webhookSecretSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['secret'],
  properties: { secret },
} as const;

export const webhookDeliverySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['eventId', 'type', 'objectId', 'sequence', 'createdAt', 'status', 'attempts'],
  properties: {
    eventId: { type: 'string', description: 'The event (the `webhook-id` of every attempt).' },
    type: { type: 'string', enum: EVENT_TYPES, description: "The event's type." },
    objectId: { type: 'string', description: 'The object the event is about.' },
    sequence: count("The event's sequence among its object's events.", 1),
    createdAt: dateTime('When the event was created.'),
    status: {
      type: 'string',
      enum: ['pending', 'delivered', 'failed'],
      description:
        '`pending`: on its way (waiting for an attempt, a retry, or an earlier event of the same object); `delivered`: answered 2xx; `failed`: given up (retries spent, 410, or the endpoint disabled or deleted).',
    },
    attempts: count('HTTP attempts made (of this replay, after a replay).'),
    lastStatusCode: {
      type: 'integer',
      minimum: 100,
      maximum: 599,
      description: "The last attempt's HTTP status, when it got one.",
    },
    lastError: {
      type: 'string',
      description: 'Why the last attempt failed: `HTTP <status>`, `timeout`, `connection refused`, ...',
    },
    lastAttemptAt: dateTime('When the last attempt was made.'),
    nextAttemptAt: dateTime('When the next attempt is due (pending only).'),
  },
} as const;

export const listDeliveriesQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
    pageSize: queryInt(MAX_PAGE_SIZE, `must be an integer 1-${MAX_PAGE_SIZE}`),
    pageToken: { type: 'string', minLength: 1, maxLength: 1000, pattern: NO_CONTROL_CHARACTERS },
  },
} as const;

export const listDeliveriesQueryDocs = {
  status: { description: 'Only deliveries in this status.' },
  ...pageQueryDocs('Deliveries'),
} as const;

export const webhookDeliveryPageSchema = tokenPageSchema('Deliveries', webhookDeliverySchema);

export const replayAcceptedSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['webhookEndpointId', 'since', 'status'],
  properties: {
    webhookEndpointId: { type: 'string', format: 'uuid', description: 'The endpoint.' },
    since: dateTime('Events created from this time on are sent again.'),
    status: { type: 'string', enum: ['accepted'], description: 'The replay runs in the background.' },
  },
} as const;

export type CreateWebhookEndpointInput = FromSchema<typeof createWebhookEndpointSchema>;
export type UpdateWebhookEndpointInput = FromSchema<typeof updateWebhookEndpointSchema>;
export type WebhookEndpointView = FromSchema<typeof webhookEndpointSchema>;
export type CreatedWebhookEndpointView = FromSchema<typeof createdWebhookEndpointSchema>;
export type WebhookDeliveryView = FromSchema<typeof webhookDeliverySchema>;
export type WebhookDeliveryPageView = FromSchema<typeof webhookDeliveryPageSchema>;
export type ListDeliveriesQuery = FromSchema<typeof listDeliveriesQuerySchema>;
export type ReplayAcceptedView = FromSchema<typeof replayAcceptedSchema>;
