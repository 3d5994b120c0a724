/**
 * Webhook endpoints as the API sees them (docs/decisions.md "Webhooks"): create (the URL checked,
 * a secret made and sealed, the limit kept by the store), read, change, delete, rotate the
 * secret, list the deliveries and start a replay. An endpoint of another merchant is not found,
 * exactly like a missing one. Secrets leave this module only in the create and rotate answers.
 */
import type { ListDeliveriesQuery, ReplayAcceptedView } from '#contract/schemas/webhooks';
import type {
  CreatedWebhookEndpointView,
  CreateWebhookEndpointInput,
  UpdateWebhookEndpointInput,
  WebhookDeliveryPageView,
  WebhookEndpointView,
} from '#contract/schemas/webhooks';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '#contract/limits';
import { EVENT_RETENTION_DAYS } from '#contract/events';
import { MAX_WEBHOOK_ENDPOINTS } from '#contract/webhooks';
import {
  deliveryView,
  endpointView,
  newSecret,
  previousSecretUntil,
  type DeliveryStatus,
  type WebhookEndpoint,
} from '#domain/webhooks';
import { clock } from '#shared/clock';
import { BadRequestError, NotFoundError, ServiceUnavailableError } from '#shared/errors';
import { newId } from '#shared/ids';
import { withOptimisticRetry } from '#shared/optimistic-concurrency';
import { secretBox } from '#shared/secret-box';
import { webhookQueue } from '#shared/webhook-queue';
import { decodePageToken, encodePageToken } from '#store/paging';
import { positionOf, webhookDeliveryList } from '#store/webhook-delivery-list';
import { webhookEndpointStore } from '#store/webhook-endpoints';
import { checkTarget } from './webhook-target';

class WebhookEndpointNotFoundError extends NotFoundError {
  constructor(endpointId: string) {
    super(`webhook endpoint ${endpointId} not found`);
  }
}

/** The context a secret is sealed with: it opens only for its own endpoint. */
export const secretContext = (e: Pick<WebhookEndpoint, 'merchantId' | 'webhookEndpointId'>) => ({
  merchantId: e.merchantId,
  webhookEndpointId: e.webhookEndpointId,
});

/** 400 naming `url` unless it may receive webhooks now. */
async function requireAllowedUrl(url: string): Promise<void> {
  const target = await checkTarget(url);
  if (!target.ok) throw new BadRequestError(`url ${target.reason}`);
}

async function requireEndpoint(merchantId: string, endpointId: string): Promise<WebhookEndpoint> {
  const found = await webhookEndpointStore().get(merchantId, endpointId);
  if (!found) throw new WebhookEndpointNotFoundError(endpointId);
  return found;
}

/**
 * What an idempotency record keeps of an answer with a secret (create, rotate): the endpoint's id,
 * never the secret, sealed or not. A replay answers the endpoint's secret as it is then, so that it
 * never hands out a secret a rotation has retired since (docs/decisions.md "A replay answers the
 * current secret").
 */
export interface KeptEndpoint {
  webhookEndpointId: string;
}

/** The endpoint's current secret, in the clear. */
const currentSecretOf = (endpoint: WebhookEndpoint): Promise<string> =>
  secretBox().open(endpoint.secret, secretContext(endpoint));

/** The endpoint as it is now with its current secret: a create's answer again (a replay, a resumed retry). */
export async function endpointWithSecret(
  merchantId: string,
  kept: KeptEndpoint,
): Promise<CreatedWebhookEndpointView> {
  const endpoint = await requireEndpoint(merchantId, kept.webhookEndpointId);
  return { ...endpointView(endpoint), secret: await currentSecretOf(endpoint) };
}

/** The endpoint's current secret: a rotation's answer again (a replay). */
export async function currentSecret(merchantId: string, kept: KeptEndpoint): Promise<{ secret: string }> {
  return { secret: await currentSecretOf(await requireEndpoint(merchantId, kept.webhookEndpointId)) };
}

/**
 * A new endpoint with a new secret. Keyed, the endpoint's id is the key's: a retry resuming a
 * create that died after its write answers that endpoint with its secret.
 */
export async function createEndpoint(
  merchantId: string,
  input: CreateWebhookEndpointInput,
  now: Date,
  keyed?: { resourceId: string; resumed: boolean },
): Promise<CreatedWebhookEndpointView> {
  if (keyed?.resumed) {
    const written = await webhookEndpointStore().get(merchantId, keyed.resourceId);
    if (written) return { ...endpointView(written), secret: await currentSecretOf(written) };
  }
  const began = clock.nowMs();
  await requireAllowedUrl(input.url);
  const webhookEndpointId = keyed?.resourceId ?? newId();
  const secret = newSecret();
  const sealed = await secretBox().seal(secret, secretContext({ merchantId, webhookEndpointId }));
  // Dated when it is written, after its URL's check (up to 3 s of DNS) and its seal: an event
  // created in between was fanned out without it, yet dated after a `dateCreated` taken earlier.
  const at = new Date(now.getTime() + Math.max(0, clock.nowMs() - began)).toISOString();
  const endpoint: WebhookEndpoint = {
    webhookEndpointId,
    merchantId,
    url: input.url,
    enabledEvents: [...(input.enabledEvents ?? ['*'])],
    description: input.description ?? '',
    status: 'enabled',
    dateCreated: at,
    lastUpdated: at,
    revision: 1,
    secret: sealed,
  };
  if ((await webhookEndpointStore().create(endpoint)) === 'limit')
    throw new BadRequestError(`a merchant can have at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints`);
  return { ...endpointView(endpoint), secret };
}

export const listEndpoints = async (merchantId: string): Promise<WebhookEndpointView[]> =>
  (await webhookEndpointStore().list(merchantId)).map(endpointView);

export const getEndpoint = async (merchantId: string, endpointId: string): Promise<WebhookEndpointView> =>
  endpointView(await requireEndpoint(merchantId, endpointId));

/** Changes the fields present; the write holds only on the revision read (else read again). */
export async function updateEndpoint(
  merchantId: string,
  endpointId: string,
  input: UpdateWebhookEndpointInput,
  now: Date,
): Promise<WebhookEndpointView> {
  if (input.url !== undefined) await requireAllowedUrl(input.url);
  const store = webhookEndpointStore();
  return withOptimisticRetry(async () => {
    const endpoint = await requireEndpoint(merchantId, endpointId);
    const status = input.status ?? endpoint.status;
    const next: WebhookEndpoint = {
      ...endpoint,
      url: input.url ?? endpoint.url,
      enabledEvents: input.enabledEvents ? [...input.enabledEvents] : endpoint.enabledEvents,
      description: input.description ?? endpoint.description,
      status,
      // The service's reason goes when the merchant enables it again (or disables it themselves).
      disabledReason: input.status === undefined ? endpoint.disabledReason : undefined,
      lastUpdated: now.toISOString(),
      revision: endpoint.revision + 1,
    };
    return (await store.update(endpoint, next)) ? endpointView(next) : undefined;
  });
}

export async function deleteEndpoint(merchantId: string, endpointId: string): Promise<void> {
  if (!(await webhookEndpointStore().delete(merchantId, endpointId)))
    throw new WebhookEndpointNotFoundError(endpointId);
}

/**
 * A new secret; the current one becomes the previous, signing beside it for 24 hours. Keyed, the
 * rotation is named by the key's resource id: a retry resuming a rotation that died after its
 * write answers that secret instead of rotating again (which would drop the secret still in use).
 */
export async function rotateSecret(
  merchantId: string,
  endpointId: string,
  now: Date,
  rotationId?: string,
): Promise<{ secret: string }> {
  const store = webhookEndpointStore();
  const secret = newSecret();
  return withOptimisticRetry(async () => {
    const endpoint = await requireEndpoint(merchantId, endpointId);
    if (rotationId !== undefined && endpoint.rotationId === rotationId)
      return { secret: await currentSecretOf(endpoint) };
    const next: WebhookEndpoint = {
      ...endpoint,
      secret: await secretBox().seal(secret, secretContext(endpoint)),
      previousSecret: endpoint.secret,
      previousSecretUntil: previousSecretUntil(now),
      rotationId,
      lastUpdated: now.toISOString(),
      revision: endpoint.revision + 1,
    };
    return (await store.update(endpoint, next)) ? { secret } : undefined;
  });
}

/** JSON's value, or undefined for text that is not JSON. */
function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const deliveriesScope = (merchantId: string, endpointId: string, status: string | undefined) =>
  `webhook-deliveries\n${merchantId}\n${endpointId}\n${status ?? ''}`;

export async function listDeliveries(
  merchantId: string,
  endpointId: string,
  q: ListDeliveriesQuery,
): Promise<WebhookDeliveryPageView> {
  await requireEndpoint(merchantId, endpointId);
  const pageSize = q.pageSize === undefined ? DEFAULT_PAGE_SIZE : Number(q.pageSize);
  if (!(pageSize >= 1 && pageSize <= MAX_PAGE_SIZE))
    throw new BadRequestError(`pageSize must be an integer 1-${MAX_PAGE_SIZE} (got ${q.pageSize})`);
  const scope = deliveriesScope(merchantId, endpointId, q.status);
  let start: Record<string, unknown> | undefined;
  if (q.pageToken !== undefined) {
    const cursor = decodePageToken(q.pageToken, scope);
    start = cursor && positionOf(endpointId, parsedOrUndefined(cursor.after));
    if (!start) throw new BadRequestError('pageToken is not a token of this list (filters included)');
  }
  const status = q.status as DeliveryStatus | undefined;
  const { deliveries, next } = await webhookDeliveryList().page(endpointId, status, pageSize, start);
  return {
    meta: {
      pageSize,
      ...(next && {
        nextPageToken: encodePageToken({ after: JSON.stringify(next), offset: 0, total: 0, pageSize }, scope),
      }),
    },
    items: deliveries.map(deliveryView),
  };
}

/**
 * Starts a replay of the endpoint's events since `since`: the first page runs on the queue like
 * every later one (docs/decisions.md "Replay").
 */
export async function replay(
  merchantId: string,
  endpointId: string,
  since: string,
  now: Date,
): Promise<ReplayAcceptedView> {
  const endpoint = await requireEndpoint(merchantId, endpointId);
  const from = Date.parse(since);
  if (Number.isNaN(from)) throw new BadRequestError('since must be a date-time with a time zone');
  if (from > now.getTime()) throw new BadRequestError('since must not be in the future');
  if (from < now.getTime() - EVENT_RETENTION_DAYS * 86_400_000)
    throw new BadRequestError(`since must be within the last ${EVENT_RETENTION_DAYS} days`);
  if (endpoint.status !== 'enabled')
    throw new BadRequestError('the webhook endpoint is disabled: enable it first');
  const sinceIso = new Date(from).toISOString();
  const failed = await webhookQueue().send([
    {
      message: {
        kind: 'replay',
        webhookEndpointId: endpointId,
        merchantId,
        since: sinceIso,
        until: now.toISOString(),
      },
      delaySeconds: 0,
    },
  ]);
  if (failed.length > 0)
    throw new ServiceUnavailableError('the replay could not be queued; retry the request');
  return { webhookEndpointId: endpointId, since: sinceIso, status: 'accepted' };
}
