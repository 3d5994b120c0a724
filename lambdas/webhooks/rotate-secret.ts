import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { rotateSecret } from '#core/webhooks';

/** POST .../webhook-endpoints/{WebhookEndpointID}/rotate-secret: a new secret; the old one signs beside it for 24 h. */
export const handler = merchantRoute(routes.RotateWebhookSecret, async ({ merchant, params, now }) => ({
  status: 200,
  body: await rotateSecret(merchant.merchantId, params.WebhookEndpointID, now),
}));
