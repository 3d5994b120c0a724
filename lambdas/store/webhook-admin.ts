/**
 * Operator's view of webhooks (`npm run admin -- webhooks --failing`): the endpoints whose
 * deliveries failed for good, or are being retried after failed attempts, or whose breaker is open,
 * with counts and the last error. Reads the whole table once (an operator's tool, as the outbox
 * listing is); the functions never call it.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { WebhookDelivery, WebhookEndpoint } from '#domain/webhooks';
import { strip } from './items';
import { scanPages } from './paging';

interface FailingEndpoint {
  webhookEndpointId: string;
  merchantId: string;
  url: string;
  status: string;
  disabledReason?: string;
  /** Failed attempts in a row now (the breaker opens at 5). */
  failuresInARow: number;
  /** Deliveries given up. */
  failed: number;
  /** Pending deliveries with at least one failed attempt (being retried). */
  retrying: number;
  lastError?: string;
  lastAttemptAt?: string;
}

export async function failingEndpoints(
  db: DynamoDBDocumentClient,
  tableName: string,
): Promise<FailingEndpoint[]> {
  const endpoints = new Map<string, WebhookEndpoint>();
  const deliveries: WebhookDelivery[] = [];
  const pages = scanPages(db, {
    TableName: tableName,
    FilterExpression: 'entity = :endpoint OR entity = :delivery',
    ExpressionAttributeValues: { ':endpoint': 'webhook-endpoint', ':delivery': 'webhook-delivery' },
  });
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      if (item.entity === 'webhook-endpoint') {
        const e = strip<WebhookEndpoint>(item);
        endpoints.set(e.webhookEndpointId, e);
      } else deliveries.push(strip<WebhookDelivery>(item));
    }
  }
  const rows = new Map<string, FailingEndpoint>();
  const row = (e: WebhookEndpoint): FailingEndpoint => {
    let r = rows.get(e.webhookEndpointId);
    if (!r) {
      r = {
        webhookEndpointId: e.webhookEndpointId,
        merchantId: e.merchantId,
        url: e.url,
        status: e.status,
        ...(e.disabledReason !== undefined && { disabledReason: e.disabledReason }),
        failuresInARow: e.failures ?? 0,
        failed: 0,
        retrying: 0,
      };
      rows.set(e.webhookEndpointId, r);
    }
    return r;
  };
  for (const e of endpoints.values()) if ((e.failures ?? 0) > 0 || e.disabledReason !== undefined) row(e);
  for (const d of deliveries) {
    const e = endpoints.get(d.webhookEndpointId);
    if (!e) continue; // deleted endpoint: its deliveries expire with their events
    const failing = d.status === 'failed' || (d.status === 'pending' && d.lastError !== undefined);
    if (!failing) continue;
    const r = row(e);
    if (d.status === 'failed') r.failed++;
    else r.retrying++;
    if (
      d.lastAttemptAt !== undefined &&
      (r.lastAttemptAt === undefined || d.lastAttemptAt > r.lastAttemptAt)
    ) {
      r.lastAttemptAt = d.lastAttemptAt;
      r.lastError = d.lastError;
    } else if (r.lastError === undefined) r.lastError = d.lastError;
  }
  return [...rows.values()].sort((a, b) => b.failed + b.retrying - (a.failed + a.retrying));
}
