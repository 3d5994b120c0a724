/**
 * Events (docs/decisions.md "Events and webhooks"): plain rules, no AWS. An event is written in
 * the same DynamoDB transaction as the change it announces (store/events.ts), so it exists exactly
 * when the change does; its `sequence` counts the events of its object from 1 without a gap (each
 * object item keeps `eventSeq`, the number of events it has had, and the change holds only if it
 * is still the number read).
 */
import { EVENT_ID_PREFIX, EVENT_RETENTION_DAYS, type EventType } from '#contract/events';
import { newId } from '#shared/ids';
import { clock } from '#shared/clock';

export interface ServiceEvent<D = unknown> {
  id: string;
  type: EventType;
  createdAt: string;
  merchantId: string;
  /** The id of the object the event is about (a group, payment, transaction, refund, payor, method, series). */
  objectId: string;
  /** This object's events counted from 1, without a gap. */
  sequence: number;
  /** The object as the API shows it at that moment. */
  data: D;
}

/** What a change announces; the store adds the id and the time. */
interface EventSpec<D = unknown> {
  type: EventType;
  merchantId: string;
  objectId: string;
  sequence: number;
  data: D;
}

/** `evt_` + a UUIDv7 without dashes: unique, and sorting by creation time. */
const newEventId = (): string => `${EVENT_ID_PREFIX}${newId().replace(/-/g, '')}`;

/**
 * The event of `spec`, made when its change is written: `now` is the change's time, but an attempt
 * that lost a race and is written later is stamped with the time of that attempt, so an object's
 * events also list in their order by time (a change that read another's result comes after it).
 */
export function newEvent<D>(spec: EventSpec<D>, now: Date, id = newEventId()): ServiceEvent<D> {
  return {
    id,
    type: spec.type,
    createdAt: new Date(Math.max(now.getTime(), clock.nowMs())).toISOString(),
    merchantId: spec.merchantId,
    objectId: spec.objectId,
    sequence: spec.sequence,
    data: spec.data,
  };
}

/** The sequence of an object's next event, from the count of its events so far (absent: none). */
export const nextSequence = (eventSeq: number | undefined): number => (eventSeq ?? 0) + 1;

/** When an event is removed by TTL: its time plus the retention (epoch seconds). */
export const eventExpiry = (createdAt: string): number =>
  Math.floor(Date.parse(createdAt) / 1000) + EVENT_RETENTION_DAYS * 86_400;

/**
 * True when an endpoint subscribed with `patterns` receives `type`: `*` is every type, `group.*`
 * every type of groups, anything else an exact type.
 */
export function eventEnabled(type: string, patterns: readonly string[]): boolean {
  const object = type.slice(0, type.indexOf('.'));
  return patterns.some((p) => p === '*' || p === type || p === `${object}.*`);
}
