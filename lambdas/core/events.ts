/**
 * The merchant's events as the API shows them: one by id, or a page of the list (newest first)
 * continued with opaque page tokens (docs/decisions.md "Events and webhooks").
 */
import { fitting, tooLarge } from './answer-size';
import type { EventPageView, EventView, ListEventsQuery } from '#contract/schemas/events';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, MAX_RESPONSE_BYTES } from '#contract/limits';
import type { ServiceEvent } from '#domain/events';
import { EVENT_RETENTION_DAYS } from '#contract/events';
import { clock } from '#shared/clock';
import { BadRequestError, NotFoundError } from '#shared/errors';
import { eventPosition, eventStore } from '#store/events';
import { decodePageToken, encodePageToken } from '#store/paging';

export const eventView = (e: ServiceEvent): EventView => ({
  id: e.id,
  type: e.type,
  createdAt: e.createdAt,
  merchantId: e.merchantId,
  objectId: e.objectId,
  sequence: e.sequence,
  data: e.data as EventView['data'],
});

/**
 * The oldest moment the API shows an event of: EVENT_RETENTION_DAYS ago. DynamoDB's TTL removes
 * an expired event late (within days), so the reads leave out what it has not removed yet.
 */
const retainedFrom = (): string =>
  new Date(clock.now().getTime() - EVENT_RETENTION_DAYS * 86_400_000).toISOString();

export async function getEvent(eventId: string, merchantId: string): Promise<EventView> {
  const event = await eventStore().get(eventId, merchantId);
  if (!event || event.createdAt < retainedFrom()) throw new NotFoundError(`event ${eventId} not found`);
  return eventView(event);
}

/** A page token names the last event of the page before (and the filters it was made with). */
const scopeOf = (merchantId: string, q: ListEventsQuery) =>
  `events\n${merchantId}\n${q.type ?? ''}\n${q.objectId ?? ''}\n${q.since ?? ''}`;

export async function listEvents(merchantId: string, q: ListEventsQuery): Promise<EventPageView> {
  const pageSize = q.pageSize === undefined ? DEFAULT_PAGE_SIZE : Number(q.pageSize);
  if (!(pageSize >= 1 && pageSize <= MAX_PAGE_SIZE))
    throw new BadRequestError(`pageSize must be an integer 1-${MAX_PAGE_SIZE} (got ${q.pageSize})`);
  // Kept and compared as the moment it names, in UTC as events are: `…T12:00:00-05:00` is 17:00Z.
  const asked = q.since === undefined ? undefined : new Date(q.since).toISOString();
  const floor = retainedFrom();
  // A moment past the year 9999 (`+010000-…` in UTC) is kept as asked: it lists nothing below.
  const since = asked === undefined || (asked < floor && !asked.startsWith('+')) ? floor : asked;
  let start: Record<string, unknown> | undefined;
  if (q.pageToken !== undefined) {
    const cursor = decodePageToken(q.pageToken, scopeOf(merchantId, q));
    const [createdAt, id, extra] = cursor?.after.split('|') ?? [];
    // Refused too: a position the list could not have made (a token forged with a valid digest),
    // such as one before `since`, outside the query's range, which DynamoDB refuses.
    if (!createdAt || !id || extra !== undefined || (asked !== undefined && createdAt < asked))
      throw new BadRequestError('pageToken is not a token of this list (filters included)');
    // Reached the retention's end meanwhile: nothing older is shown.
    if (createdAt < since) return { meta: { pageSize }, items: [] };
    start = eventPosition(merchantId, createdAt, id);
  }
  // A moment past the year 9999 (its last day at an offset west of UTC) is `+010000-…` in UTC,
  // which as text sorts before every date: no event is that late.
  if (since?.startsWith('+')) return { meta: { pageSize }, items: [] };
  const filter = { type: q.type, objectId: q.objectId, since };
  // 500 events whose objects are large (custom attributes) can pass Lambda's response limit: the
  // reading stops once they do, and the answer is refused as it would be (no more is read).
  const advice = 'use a smaller pageSize';
  const read = await eventStore().page(merchantId, filter, pageSize, start, MAX_RESPONSE_BYTES);
  if (read.tooLarge) throw tooLarge(advice);
  const { events, next } = read;
  return fitting(
    {
      meta: {
        pageSize,
        ...(next && {
          nextPageToken: encodePageToken(
            { after: `${next.createdAt}|${next.id}`, offset: 0, total: 0, pageSize },
            scopeOf(merchantId, q),
          ),
        }),
      },
      items: events.map(eventView),
    },
    advice,
  );
}
