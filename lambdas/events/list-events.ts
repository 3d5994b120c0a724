import * as routes from '#generated/validators';
import { listEvents } from '#core/events';
import { merchantRoute } from '#core/merchants';

/** GET /v1/rest/merchants/{MID}/events: the last 30 days, newest first, paged with tokens. */
export const handler = merchantRoute(routes.ListEvents, async ({ merchant, query }) => ({
  status: 200,
  body: await listEvents(merchant.merchantId, query),
}));
