import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { getEndpoint } from '#core/webhooks';

/** GET /v1/rest/merchants/{MID}/webhook-endpoints/{WebhookEndpointID}: one endpoint, never its secret. */
export const handler = merchantRoute(routes.GetWebhookEndpoint, async ({ merchant, params }) => ({
  status: 200,
  body: await getEndpoint(merchant.merchantId, params.WebhookEndpointID),
}));
