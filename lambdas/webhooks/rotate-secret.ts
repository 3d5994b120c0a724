import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { currentSecret, rotateSecret, type KeptEndpoint } from '#core/webhooks';

/**
 * POST .../webhook-endpoints/{WebhookEndpointID}/rotate-secret: a new secret; the old one signs
 * beside it for 24 h. A replay of its Idempotency-Key rotates nothing and answers the secret current
 * then (this rotation's, or a later one's): its record keeps the endpoint's id, never a secret.
 */
export const handler = merchantRoute(
  routes.RotateWebhookSecret,
  async ({ merchant, params, now, idempotency }) => ({
    status: 200,
    body: await rotateSecret(merchant.merchantId, params.WebhookEndpointID, now, idempotency?.resourceId),
  }),
  {
    keep: {
      record: (_result, { params }): KeptEndpoint => ({ webhookEndpointId: params.WebhookEndpointID }),
      replay: async (kept, { merchant }) => ({
        status: 200,
        body: await currentSecret(merchant.merchantId, kept as KeptEndpoint),
      }),
    },
  },
);
