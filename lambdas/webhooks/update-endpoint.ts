import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { updateEndpoint } from '#core/webhooks';

/** PUT /v1/rest/merchants/{MID}/webhook-endpoints/{WebhookEndpointID}: the fields present change. */
export const handler = merchantRoute(
  routes.UpdateWebhookEndpoint,
  async ({ merchant, params, body, now }) => ({
    status: 200,
    body: await updateEndpoint(merchant.merchantId, params.WebhookEndpointID, body, now),
  }),
);
