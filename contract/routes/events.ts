/** Events: what changed, for a merchant, newest first (docs/decisions.md "Events and webhooks"). */
import { EVENT_RETENTION_DAYS } from '../events';
import { MAX_FILTERED_PAGE_READ } from '../limits';
import { eventPageSchema, eventSchema, listEventsQueryDocs, listEventsQuerySchema } from '../schemas/events';
import { V1 } from './payors';
import { route } from './types';

const E = `${V1}/events` as const;

export const eventRoutes = {
  ListEvents: route({
    id: 'ListEvents',
    method: 'GET',
    path: E,
    handler: 'events/list-events',
    status: 200,
    summary: "List the merchant's events",
    description: `The merchant's events of the last ${EVENT_RETENTION_DAYS} days, newest first: every change the service announces (the event catalogue is in docs/integrating.md). Each is written together with its change, so an event exists exactly when its change does.

Filters combine: \`type\`, \`objectId\` (one object's events) and \`since\`. Pages: \`pageSize\` (default 25) and \`pageToken\` (the previous page's \`meta.nextPageToken\`, absent on the last page); with \`type\` or \`objectId\`, a page reads at most ${MAX_FILTERED_PAGE_READ.toLocaleString('en-US')} events, so it may hold fewer than \`pageSize\` (even none) and still have a next one. A month of a busy merchant's events is too many to count per request, so the envelope has no totals.`,
    query: { schema: listEventsQuerySchema, parameters: listEventsQueryDocs },
    response: { schema: eventPageSchema, description: 'A page of events, newest first.' },
  }),
  GetEvent: route({
    id: 'GetEvent',
    method: 'GET',
    path: `${E}/{EventID}`,
    handler: 'events/get-event',
    status: 200,
    summary: 'Get an event',
    description: `One event of this merchant, by id (the \`webhook-id\` of its deliveries), for ${EVENT_RETENTION_DAYS} days. Unknown, expired, or another merchant's: 404.`,
    response: { schema: eventSchema, description: 'The event.' },
  }),
};
