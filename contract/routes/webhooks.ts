/** Webhook endpoints, their deliveries and replays (docs/decisions.md "Webhooks"). */
import { MAX_WEBHOOK_ENDPOINTS, RETRY_DELAYS_SECONDS, ROTATION_OVERLAP_HOURS } from '../webhooks';
import { EVENT_RETENTION_DAYS } from '../events';
import { MAX_FILTERED_PAGE_READ } from '../limits';
import {
  createdWebhookEndpointSchema,
  createWebhookEndpointSchema,
  listDeliveriesQueryDocs,
  listDeliveriesQuerySchema,
  replayAcceptedSchema,
  replayWebhookSchema,
  updateWebhookEndpointSchema,
  webhookDeliveryPageSchema,
  webhookEndpointListSchema,
  webhookEndpointSchema,
  webhookSecretSchema,
} from '../schemas/webhooks';
import { V1 } from './payors';
import { IDEMPOTENT, route } from './types';

const W = `${V1}/webhook-endpoints` as const;
const ONE = `${W}/{WebhookEndpointID}` as const;

const WHERE = `The URL must be \`https\` on a host name (no IP literal, no user or password) whose every address is public: a host that resolves to a loopback, private (10/8, 172.16/12, 192.168/16), carrier-grade NAT (100.64/10), link-local (169.254/16, the instance metadata address included; fe80::/10), unique-local (fc00::/7), unspecified, multicast or broadcast address (or the IPv4-mapped IPv6 form of one) is refused with 400 naming \`url\`. The address is checked again before every delivery, and the delivery connects to the address checked. Redirects are not followed. The local runtime also accepts \`http://127.0.0.1:<port>\` and \`http://localhost:<port>\`.`;

const DELIVERY = `Each event is POSTed as JSON (the event as \`GET .../events/{EventID}\` shows it) with the Standard Webhooks headers \`webhook-id\` (the event id), \`webhook-timestamp\` (Unix seconds) and \`webhook-signature\` (\`v1,\` and the base64 HMAC-SHA256 of \`{webhook-id}.{webhook-timestamp}.{body}\` keyed with the secret's bytes; two entries separated by a space for ${ROTATION_OVERLAP_HOURS} hours after a rotation). Any 2xx within 10 seconds is delivered; 410 disables the endpoint; anything else is retried after ${RETRY_DELAYS_SECONDS.map((s) => (s < 60 ? `${s} s` : s < 3600 ? `${s / 60} min` : `${s / 3600} h`)).join(', ')}, then the delivery is \`failed\`. Events of one object arrive in their \`sequence\` order: the next waits while an earlier one is on its way. Delivery is at least once: drop repeats by \`webhook-id\`.`;

export const webhookRoutes = {
  CreateWebhookEndpoint: route({
    id: 'CreateWebhookEndpoint',
    method: 'POST',
    idempotency: IDEMPOTENT,
    path: W,
    handler: 'webhooks/create-endpoint',
    status: 201,
    summary: 'Create a webhook endpoint',
    description: `Registers a URL that receives this merchant's events, from now on. \`enabledEvents\` (default \`["*"]\`) lists exact event types, \`*\` or \`<object>.*\` (e.g. \`group.*\`). The answer holds the signing \`secret\`, shown only here and by rotate-secret. A replay of this request's \`Idempotency-Key\` answers the endpoint as it is then with its **current** secret: after a rotation, the rotation's secret, never the retired one (a deleted endpoint: 404). At most ${MAX_WEBHOOK_ENDPOINTS} endpoints per merchant (400 beyond).

${WHERE}

${DELIVERY}`,
    body: { schema: createWebhookEndpointSchema },
    response: {
      schema: createdWebhookEndpointSchema,
      description: 'The endpoint, with its secret (shown once).',
    },
  }),
  ListWebhookEndpoints: route({
    id: 'ListWebhookEndpoints',
    method: 'GET',
    path: W,
    handler: 'webhooks/list-endpoints',
    status: 200,
    summary: "List the merchant's webhook endpoints",
    description: `Every endpoint of this merchant (at most ${MAX_WEBHOOK_ENDPOINTS}), oldest first, without secrets.`,
    response: { schema: webhookEndpointListSchema, description: 'The endpoints.' },
  }),
  GetWebhookEndpoint: route({
    id: 'GetWebhookEndpoint',
    method: 'GET',
    path: ONE,
    handler: 'webhooks/get-endpoint',
    status: 200,
    summary: 'Get a webhook endpoint',
    description: "One endpoint, never its secret. Unknown or another merchant's: 404.",
    response: { schema: webhookEndpointSchema, description: 'The endpoint.' },
  }),
  UpdateWebhookEndpoint: route({
    id: 'UpdateWebhookEndpoint',
    method: 'PUT',
    path: ONE,
    handler: 'webhooks/update-endpoint',
    status: 200,
    summary: 'Update a webhook endpoint',
    description: `Changes the fields present: \`url\`, \`enabledEvents\`, \`description\`, \`status\` (\`enabled\` or \`disabled\`; enabling clears \`disabledReason\`). A disabled endpoint receives nothing; its pending deliveries end \`failed\` (replay them after enabling it). ${WHERE}`,
    body: { schema: updateWebhookEndpointSchema },
    response: { schema: webhookEndpointSchema, description: 'The endpoint as changed.' },
  }),
  DeleteWebhookEndpoint: route({
    id: 'DeleteWebhookEndpoint',
    method: 'DELETE',
    path: ONE,
    handler: 'webhooks/delete-endpoint',
    status: 204,
    summary: 'Delete a webhook endpoint',
    description: 'Removes the endpoint; nothing more is sent to it. Its deliveries expire with their events.',
  }),
  RotateWebhookSecret: route({
    id: 'RotateWebhookSecret',
    method: 'POST',
    idempotency: IDEMPOTENT,
    path: `${ONE}/rotate-secret`,
    handler: 'webhooks/rotate-secret',
    status: 200,
    summary: "Rotate a webhook endpoint's secret",
    description: `A new secret, shown once. For ${ROTATION_OVERLAP_HOURS} hours every delivery is signed with both (two \`v1,\` entries in \`webhook-signature\`), so a receiver can switch without losing a delivery; a second rotation within that time drops the oldest secret. No body. A replay of this request's \`Idempotency-Key\` rotates nothing and answers the secret current then: this rotation's, or a later rotation's once there has been one (never a retired secret).`,
    response: { schema: webhookSecretSchema, description: 'The new secret.' },
  }),
  ListWebhookDeliveries: route({
    id: 'ListWebhookDeliveries',
    method: 'GET',
    path: `${ONE}/deliveries`,
    handler: 'webhooks/list-deliveries',
    status: 200,
    summary: "List a webhook endpoint's deliveries",
    description: `One entry per event sent (or being sent) to this endpoint, newest event first, for ${EVENT_RETENTION_DAYS} days: its status, attempts, last HTTP status and the next attempt's time. Optional \`status\` filter. Pages: \`pageSize\` (default 25) and \`pageToken\` (the previous page's \`meta.nextPageToken\`, absent on the last page); with \`status\`, a page reads at most ${MAX_FILTERED_PAGE_READ.toLocaleString('en-US')} deliveries, so it may hold fewer than \`pageSize\` (even none) and still have a next one.`,
    query: { schema: listDeliveriesQuerySchema, parameters: listDeliveriesQueryDocs },
    response: { schema: webhookDeliveryPageSchema, description: 'A page of deliveries, newest first.' },
  }),
  ReplayWebhookEvents: route({
    id: 'ReplayWebhookEvents',
    method: 'POST',
    idempotency: IDEMPOTENT,
    path: `${ONE}/replay`,
    handler: 'webhooks/replay',
    status: 202,
    summary: 'Send events again to a webhook endpoint',
    description: `Sends again, in the background, every event created from \`since\` until now that the endpoint subscribes to (the last ${EVENT_RETENTION_DAYS} days at most, and none from before the endpoint was created), with the same ids and the same order rule; events already on their way are not sent twice. \`since\` in the future, or more than ${EVENT_RETENTION_DAYS} days ago: 400. The endpoint must be enabled (400).`,
    body: { schema: replayWebhookSchema },
    response: { schema: replayAcceptedSchema, description: 'The replay was accepted.' },
  }),
};
