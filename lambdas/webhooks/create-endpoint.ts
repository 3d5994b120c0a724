import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { createdEndpoint, createEndpoint, keepSecret, type KeptSecret } from '#core/webhooks';
import type { CreatedWebhookEndpointView } from '#contract/schemas/webhooks';

/**
 * POST /v1/rest/merchants/{MID}/webhook-endpoints: a new endpoint, with its secret (shown once, and
 * again only by a replay of this request's Idempotency-Key, whose record keeps it sealed).
 */
export const handler = merchantRoute(
  routes.CreateWebhookEndpoint,
  async ({ merchant, body, now, idempotency }) => ({
    status: 201,
    body: await createEndpoint(merchant.merchantId, body, now, idempotency),
  }),
  {
    keep: {
      record: ({ body }, { merchant }) => {
        const created = body as CreatedWebhookEndpointView;
        return keepSecret(merchant.merchantId, created.webhookEndpointId, created.secret);
      },
      replay: async (kept, { merchant }) => ({
        status: 201,
        body: await createdEndpoint(merchant.merchantId, kept as KeptSecret),
      }),
    },
  },
);
