import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { keepSecret, openKeptSecret, rotateSecret, type KeptSecret } from '#core/webhooks';

/**
 * POST .../webhook-endpoints/{WebhookEndpointID}/rotate-secret: a new secret; the old one signs
 * beside it for 24 h. A replay of its Idempotency-Key answers the same secret (kept sealed).
 */
export const handler = merchantRoute(
  routes.RotateWebhookSecret,
  async ({ merchant, params, now, idempotency }) => ({
    status: 200,
    body: await rotateSecret(merchant.merchantId, params.WebhookEndpointID, now, idempotency?.resourceId),
  }),
  {
    keep: {
      record: ({ body }, { merchant, params }) =>
        keepSecret(merchant.merchantId, params.WebhookEndpointID, (body as { secret: string }).secret),
      replay: async (kept, { merchant }) => ({
        status: 200,
        body: { secret: await openKeptSecret(merchant.merchantId, kept as KeptSecret) },
      }),
    },
  },
);
