import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { deleteEndpoint } from '#core/webhooks';

/** DELETE /v1/rest/merchants/{MID}/webhook-endpoints/{WebhookEndpointID}: nothing more is sent to it. */
export const handler = merchantRoute(routes.DeleteWebhookEndpoint, async ({ merchant, params }) => {
  await deleteEndpoint(merchant.merchantId, params.WebhookEndpointID);
  return { status: 204 };
});
