import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { createEndpoint } from '#core/webhooks';

/** POST /v1/rest/merchants/{MID}/webhook-endpoints: a new endpoint, with its secret (shown once). */
export const handler = merchantRoute(routes.CreateWebhookEndpoint, async ({ merchant, body, now }) => ({
  status: 201,
  body: await createEndpoint(merchant.merchantId, body, now),
}));
