/** Events: the event as the API shows it, the list's query and its page. */
import type { FromSchema } from 'json-schema-to-ts';
import { EVENT_TYPES } from '../events';
import { MAX_PAGE_SIZE } from '../limits';
import { count, dateTime, queryInt } from './common';
import { pageQueryDocs, tokenPageSchema } from './pages';

export const eventSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'createdAt', 'merchantId', 'objectId', 'sequence', 'data'],
  properties: {
    id: {
      type: 'string',
      pattern: '^evt_[0-9a-f]{32}$',
      description: 'The event id; the `webhook-id` of its deliveries.',
    },
    type: {
      type: 'string',
      enum: EVENT_TYPES,
      description: 'What happened (docs/integrating.md, "Event catalogue").',
    },
    createdAt: dateTime('When the change was made.'),
    merchantId: { type: 'string', description: 'The 11-digit MID of the merchant.' },
    objectId: {
      type: 'string',
      description:
        'The id of the object the event is about: a paymentGroupId, paymentId, transactionId, refundId, payorId, savedPaymentMethodId or seriesId.',
    },
    sequence: count(
      "This object's events counted from 1, without a gap: deliveries of one object arrive in this order.",
      1,
    ),
    data: {
      type: 'object',
      description: 'The object as the API shows it at that moment (the response of its GET).',
    },
  },
} as const;

export const listEventsQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    type: { type: 'string', enum: EVENT_TYPES },
    objectId: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[0-9A-Za-z_-]+$' },
    since: { type: 'string', format: 'date-time' },
    pageSize: queryInt(MAX_PAGE_SIZE, `must be an integer 1-${MAX_PAGE_SIZE}`),
    pageToken: { type: 'string', minLength: 1, maxLength: 1000 },
  },
} as const;

export const listEventsQueryDocs = {
  type: { description: 'Only events of this type.' },
  objectId: { description: 'Only the events of this object (its id), newest first.' },
  since: { description: 'Only events created at or after this time (ISO 8601).' },
  ...pageQueryDocs('Events'),
} as const;

export const eventPageSchema = tokenPageSchema('Events', eventSchema);

export type EventView = FromSchema<typeof eventSchema>;
export type ListEventsQuery = FromSchema<typeof listEventsQuerySchema>;
export type EventPageView = FromSchema<typeof eventPageSchema>;
