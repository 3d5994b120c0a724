/**
 * Events in DynamoDB (docs/decisions.md "Events and webhooks"). An event item is written by the
 * transaction of the change it announces (`eventPut`), with the object's `eventSeq` moved on in the
 * same transaction (`sequenced`), so an event exists exactly when its change does and an object's
 * sequence has no gap. Events are listed per merchant, newest first, on GSI1 (`EVENTS#<mid>` /
 * `<createdAt>#<eventId>`), and expire by TTL after EVENT_RETENTION_DAYS. The table's stream
 * hands each new event to the webhook fan-out.
 */
import { GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EventType } from '#contract/events';
import { eventExpiry, type ServiceEvent } from '#domain/events';
import { keys } from './keys';
import { conditionOutcome } from '#shared/ddb';
import { batchGet, containerStore, strip, type Item } from './items';
import { queryPages } from './paging';
import { READ_LIMITS } from './read-limits';

export const eventItem = (event: ServiceEvent): Item => ({
  ...keys.event(event.id),
  entity: 'event',
  gsi1pk: keys.merchantEvents(event.merchantId),
  gsi1sk: `${event.createdAt}#${event.id}`,
  expiresAt: eventExpiry(event.createdAt),
  ...event,
});

/** The transaction item that writes an event once. */
export const eventPut = (tableName: string, event: ServiceEvent) => ({
  Put: { TableName: tableName, Item: eventItem(event), ConditionExpression: 'attribute_not_exists(pk)' },
});

/**
 * The condition and update of an object's event count for a change that announces one event: the
 * object must still have had `seen` events (absent is 0), and has `seen + 1` after. Merge the
 * parts into the object's own Update (or Put: write `eventSeq: seen + 1` in the item).
 */
export function sequenced(
  seen: number | undefined,
  /** Events the change announces (each the next sequence). */
  count = 1,
): {
  condition: string;
  /** The condition's values (a Put writes `eventSeq` in its item and needs only these). */
  conditionValues: Record<string, number>;
  set: string;
  values: Record<string, number>;
} {
  const n = seen ?? 0;
  const conditionValues: Record<string, number> = n === 0 ? {} : { ':seenSeq': n };
  return {
    condition: n === 0 ? 'attribute_not_exists(eventSeq)' : 'eventSeq = :seenSeq',
    conditionValues,
    set: 'eventSeq = :nextSeq',
    values: { ...conditionValues, ':nextSeq': n + count },
  };
}

/** An object's change (an Update of its item) that one event announces. */
interface AnnouncedUpdate {
  Key: Record<string, string>;
  /** The SET clause's assignments, without `SET` (the event count is added). */
  set: string;
  /** A REMOVE clause's attributes, without `REMOVE`. */
  remove?: string;
  /** The change's own condition, besides the event count's. */
  condition?: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

/**
 * The transaction items of a change announced by `event`: the object's Update, on its own
 * condition and on its event count still being `seen` (then `seen + 1`), and the event's Put.
 * A change announced by several events (a payment declined and its retry scheduled) passes them
 * in order, with sequences `seen + 1`, `seen + 2`, ...
 */
export function announcedUpdate(
  tableName: string,
  change: AnnouncedUpdate,
  seen: number | undefined,
  event: ServiceEvent | readonly ServiceEvent[],
): object[] {
  const events = Array.isArray(event) ? (event as readonly ServiceEvent[]) : [event as ServiceEvent];
  const seq = sequenced(seen, events.length);
  return [
    {
      Update: {
        TableName: tableName,
        Key: change.Key,
        UpdateExpression: `SET ${change.set}, ${seq.set}${change.remove ? ` REMOVE ${change.remove}` : ''}`,
        ConditionExpression: change.condition ? `(${change.condition}) AND ${seq.condition}` : seq.condition,
        ...(change.names && { ExpressionAttributeNames: change.names }),
        ExpressionAttributeValues: { ...change.values, ...seq.values },
      },
    },
    ...events.map((e) => eventPut(tableName, e)),
  ];
}

/**
 * Writes `items` in one transaction: true when written, false when item `refusedAt` (the
 * object's change) failed its condition (the caller reads again). Anything else is thrown.
 */
export async function writeAnnounced(
  db: DynamoDBDocumentClient,
  items: object[],
  refusedAt = 0,
): Promise<boolean> {
  try {
    await db.send(new TransactWriteCommand({ TransactItems: items as never }));
    return true;
  } catch (error) {
    return conditionOutcome(error, [[refusedAt, false]]);
  }
}

interface EventFilter {
  type?: EventType;
  objectId?: string;
  /** Only events created at or after this time (ISO-8601). */
  since?: string;
}

interface EventPage {
  events: ServiceEvent[];
  /**
   * The position to continue after (an event's), absent on the last page: the page's last event,
   * or with a filter the last event read, when READ_LIMITS.filteredRead were read before the page
   * was full.
   */
  next?: EventPositionRef;
  /** Set when the events read passed `maxBytes` (as JSON): the reading stopped there. */
  tooLarge?: true;
}

interface EventStore {
  /** The event if it exists and is the merchant's. */
  get(eventId: string, merchantId: string): Promise<ServiceEvent | undefined>;
  /** Several events in one request: those that exist and are their merchant's, by id. */
  getMany(refs: readonly { eventId: string; merchantId: string }[]): Promise<Map<string, ServiceEvent>>;
  /** Up to `limit` of the merchant's events, newest first, after `start` (a page's `next`). */
  page(
    merchantId: string,
    filter: EventFilter,
    limit: number,
    start?: Record<string, unknown>,
    maxBytes?: number,
  ): Promise<EventPage>;
}

class DynamoEventStore implements EventStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async getMany(
    refs: readonly { eventId: string; merchantId: string }[],
  ): Promise<Map<string, ServiceEvent>> {
    const ids = [...new Set(refs.map((r) => r.eventId))];
    const owner = new Map(refs.map((r) => [r.eventId, r.merchantId]));
    const items = await batchGet(
      this.db,
      this.tableName,
      ids.map((id) => keys.event(id)),
    );
    const found = new Map<string, ServiceEvent>();
    for (const item of items)
      if (item.entity === 'event' && item.merchantId === owner.get(item.id as string))
        found.set(item.id as string, strip<ServiceEvent>(item));
    return found;
  }

  async get(eventId: string, merchantId: string): Promise<ServiceEvent | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.event(eventId) }),
    );
    return Item?.entity === 'event' && Item.merchantId === merchantId ? strip<ServiceEvent>(Item) : undefined;
  }

  async page(
    merchantId: string,
    filter: EventFilter,
    limit: number,
    start?: Record<string, unknown>,
    maxBytes = Number.POSITIVE_INFINITY,
  ): Promise<EventPage> {
    const filters: string[] = [];
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':m': keys.merchantEvents(merchantId) };
    let keyCondition = 'gsi1pk = :m';
    if (filter.since !== undefined) {
      keyCondition += ' AND gsi1sk >= :since';
      values[':since'] = filter.since;
    }
    if (filter.type !== undefined) {
      filters.push('#type = :type');
      names['#type'] = 'type';
      values[':type'] = filter.type;
    }
    if (filter.objectId !== undefined) {
      filters.push('objectId = :o');
      values[':o'] = filter.objectId;
    }
    const events: ServiceEvent[] = [];
    const request = () => ({
      TableName: this.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: keyCondition,
      ...(filters.length > 0 && { FilterExpression: filters.join(' AND ') }),
      ...(Object.keys(names).length > 0 && { ExpressionAttributeNames: names }),
      ExpressionAttributeValues: values,
      ScanIndexForward: false,
      // One more than the page: whether another follows (none after a page that ends the range).
      Limit: filters.length > 0 ? READ_LIMITS.filteredPage : limit + 1 - events.length,
    });
    // A filter can leave reads empty: read on until the page is full, the range ends, or
    // READ_LIMITS.filteredRead events were read (the page then ends short, after the last read).
    let read = 0;
    let bytes = 0;
    for await (const out of queryPages(this.db, request, start)) {
      for (const item of out.Items ?? []) {
        if (events.length > limit) break;
        events.push(strip<ServiceEvent>(item));
        bytes += Buffer.byteLength(JSON.stringify(item));
      }
      // An answer of them could not be sent: no more is read.
      if (bytes > maxBytes) return { events: [], tooLarge: true };
      if (events.length > limit) {
        // Full, and more: continue after the last event taken (not after the read).
        events.pop();
        const last = events[events.length - 1]!;
        return { events, next: { createdAt: last.createdAt, id: last.id } };
      }
      read += out.ScannedCount ?? 0;
      const reached = out.LastEvaluatedKey?.gsi1sk;
      if (read >= READ_LIMITS.filteredRead && typeof reached === 'string')
        return { events, next: positionOf(reached) };
    }
    return { events };
  }
}

/** The GSI1 position of an event (a page token continues after it). */
export const eventPosition = (merchantId: string, createdAt: string, eventId: string) => ({
  ...keys.event(eventId),
  gsi1pk: keys.merchantEvents(merchantId),
  gsi1sk: `${createdAt}#${eventId}`,
});

/** Where a page ends: the event it ends after, by its creation time and id. */
interface EventPositionRef {
  createdAt: string;
  id: string;
}

/** The position a GSI1 sort key (`<createdAt>#<eventId>`) names. */
function positionOf(gsi1sk: string): EventPositionRef {
  const at = gsi1sk.lastIndexOf('#');
  return { createdAt: gsi1sk.slice(0, at), id: gsi1sk.slice(at + 1) };
}

/** The container's store, on the configured table (made on first use). */
export const eventStore: () => EventStore = /* @__PURE__ */ containerStore(DynamoEventStore);
