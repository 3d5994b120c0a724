/**
 * Events (docs/decisions.md "Events and webhooks"): what the service announces, the one list both
 * the functions (which write them) and the document (which lists them) read. An event is
 * `{id, type, createdAt, merchantId, objectId, sequence, data}`: `sequence` counts the events of
 * `objectId` from 1 without a gap, and `data` is the object as the API shows it at that moment.
 */

/** Every event type, by the object it is about. */
export const EVENT_TYPES = [
  'group.created',
  'group.updated',
  'group.deleted',
  'group.processing',
  'group.processed',
  'group.void_or_refund_completed',
  'payment.created',
  'payment.updated',
  'payment.deleted',
  'payment.approved',
  'payment.declined',
  'payment.failed',
  'payment.retry_scheduled',
  'payment.voided',
  'payment.refunded',
  'transaction.approved',
  'transaction.declined',
  'transaction.voided',
  'refund.completed',
  'refund.failed',
  'payor.created',
  'payor.updated',
  'payor.deleted',
  'payment_method.created',
  'payment_method.updated',
  'payment_method.deleted',
  'payment_method.account_updated',
  'series.created',
  'series.updated',
  'series.canceled',
  'dispute.created',
  'dispute.updated',
  'dispute.closed',
  'merchant.return_rates_changed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

const EVENT_OBJECTS = [...new Set(EVENT_TYPES.map((t) => t.split('.')[0]!))] as readonly string[];

/** How long events are kept (and listed): 30 days, then DynamoDB's TTL removes them. */
export const EVENT_RETENTION_DAYS = 30;

/** The prefix of every event id (`evt_` + a unique id). */
export const EVENT_ID_PREFIX = 'evt_';

/**
 * An `enabledEvents` entry: an exact type, `*` (every type) or `<object>.*` (every type of one
 * object, e.g. `group.*`).
 */
export const EVENT_PATTERN = `^(\\*|(${EVENT_OBJECTS.join('|')})\\.\\*|${EVENT_TYPES.map((t) => t.replace('.', '\\.')).join('|')})$`;
