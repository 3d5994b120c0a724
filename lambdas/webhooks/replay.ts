import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { replay } from '#core/webhooks';

/** POST .../webhook-endpoints/{WebhookEndpointID}/replay: the events since `since`, sent again in the background. */
export const handler = merchantRoute(routes.ReplayWebhookEvents, async ({ merchant, params, body, now }) => ({
  status: 202,
  body: await replay(merchant.merchantId, params.WebhookEndpointID, body.since, now),
}));
