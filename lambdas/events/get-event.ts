import * as routes from '#generated/validators';
import { getEvent } from '#core/events';
import { merchantRoute } from '#core/merchants';

/** GET /v1/rest/merchants/{MID}/events/{EventID}: one event of this merchant. */
export const handler = merchantRoute(routes.GetEvent, async ({ merchant, params }) => ({
  status: 200,
  body: await getEvent(params.EventID, merchant.merchantId),
}));
