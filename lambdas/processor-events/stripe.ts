/**
 * `POST /processor-events/stripe`: Stripe's webhooks, on a stage whose processor is Stripe
 * (contract/notices.ts PROCESSOR_EVENTS; core/processor-webhooks.ts).
 */
import { PROCESSOR_EVENTS } from '#contract/notices';
import { receiveProcessorWebhook } from '#core/processor-webhooks';
import { inboundRoute } from '#shared/http';

export const handler = inboundRoute(PROCESSOR_EVENTS.stripe.maxBodyBytes, async ({ body, headers, now }) => ({
  status: 200,
  body: await receiveProcessorWebhook({ body, headers }, now),
}));
