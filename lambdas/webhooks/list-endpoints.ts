import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { listEndpoints } from '#core/webhooks';

/** GET /v1/rest/merchants/{MID}/webhook-endpoints: every endpoint, oldest first, no secrets. */
export const handler = merchantRoute(routes.ListWebhookEndpoints, async ({ merchant }) => ({
  status: 200,
  body: await listEndpoints(merchant.merchantId),
}));
