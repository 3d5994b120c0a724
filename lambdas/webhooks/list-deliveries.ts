import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { listDeliveries } from '#core/webhooks';

/** GET .../webhook-endpoints/{WebhookEndpointID}/deliveries: newest event first, paged with tokens. */
export const handler = merchantRoute(routes.ListWebhookDeliveries, async ({ merchant, params, query }) => ({
  status: 200,
  body: await listDeliveries(merchant.merchantId, params.WebhookEndpointID, query),
}));
