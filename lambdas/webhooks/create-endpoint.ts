import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { createEndpoint, endpointWithSecret, type KeptEndpoint } from '#core/webhooks';
import type { CreatedWebhookEndpointView } from '#contract/schemas/webhooks';

/**
 * POST /v1/rest/merchants/{MID}/webhook-endpoints: a new endpoint, with its secret (shown here, and
 * by a replay of this request's Idempotency-Key, which answers the endpoint's secret current then:
 * its record keeps the endpoint's id, never a secret).
 */
export const handler = merchantRoute(
  routes.CreateWebhookEndpoint,
  async ({ merchant, body, now, idempotency }) => ({
    status: 201,
    body: await createEndpoint(merchant.merchantId, body, now, idempotency),
  }),
  {
    keep: {
      record: ({ body }): KeptEndpoint => ({
        webhookEndpointId: (body as CreatedWebhookEndpointView).webhookEndpointId,
      }),
      replay: async (kept, { merchant }) => ({
        status: 201,
        body: await endpointWithSecret(merchant.merchantId, kept as KeptEndpoint),
      }),
    },
  },
);
