/**
 * An endpoint's deliveries, listed for `GET /webhook-endpoints/{id}/deliveries`: each delivery
 * item (webhook-deliveries.ts) is also on GSI1 (`WHDELIVERIES#<endpoint>` /
 * `<createdAt>#<eventId>`), newest event first; a page token continues after a delivery's
 * position there.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DeliveryStatus, WebhookDelivery } from '#domain/webhooks';
import { keys } from './keys';
import { containerStore, strip } from './items';
import { queryPages } from './paging';
import { READ_LIMITS } from './read-limits';

interface DeliveryPage {
  deliveries: WebhookDelivery[];
  next?: Record<string, unknown>;
}

/** A delivery's place on the endpoint's list (GSI1), written with the delivery. */
export const listedAt = (d: Pick<WebhookDelivery, 'webhookEndpointId' | 'createdAt' | 'eventId'>) => ({
  gsi1pk: keys.endpointDeliveries(d.webhookEndpointId),
  gsi1sk: `${d.createdAt}#${d.eventId}`,
});

/** The GSI1 position of a delivery (a page token continues after it). */
const pagePosition = (d: WebhookDelivery): Record<string, unknown> => ({
  ...keys.webhookDelivery(d.webhookEndpointId, d.objectId, d.sequence),
  ...listedAt(d),
});

/**
 * The position a page token names, if it is one of this endpoint's list (a token's digest is not
 * a signature: its position is checked before DynamoDB reads from it).
 */
export function positionOf(endpointId: string, value: unknown): Record<string, unknown> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { pk, sk, gsi1pk, gsi1sk, ...rest } = value as Record<string, unknown>;
  const ok =
    Object.keys(rest).length === 0 &&
    gsi1pk === keys.endpointDeliveries(endpointId) &&
    typeof pk === 'string' &&
    pk.startsWith(`WHLANE#${endpointId}#`) &&
    typeof sk === 'string' &&
    /^SEQ#\d{10}$/.test(sk) &&
    typeof gsi1sk === 'string' &&
    gsi1sk.length > 0;
  return ok ? { pk, sk, gsi1pk, gsi1sk } : undefined;
}

class DynamoWebhookDeliveryList {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Up to `limit` of an endpoint's deliveries, newest event first, after `start`. */
  async page(
    endpointId: string,
    status: DeliveryStatus | undefined,
    limit: number,
    start?: Record<string, unknown>,
  ): Promise<DeliveryPage> {
    const deliveries: WebhookDelivery[] = [];
    const request = () => ({
      TableName: this.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ...(status !== undefined && {
        FilterExpression: '#status = :status',
        ExpressionAttributeNames: { '#status': 'status' },
      }),
      ExpressionAttributeValues: {
        ':pk': keys.endpointDeliveries(endpointId),
        ...(status && { ':status': status }),
      },
      ScanIndexForward: false,
      // One more than the page: whether another follows (none after a page that ends the list).
      Limit: status === undefined ? limit + 1 - deliveries.length : READ_LIMITS.filteredPage,
    });
    // With a filter: read on until the page is full, the list ends, or READ_LIMITS.filteredRead
    // were read (the page then ends short, after the last read).
    let read = 0;
    for await (const out of queryPages(this.db, request, start)) {
      for (const item of out.Items ?? []) {
        if (deliveries.length > limit) break;
        deliveries.push(strip<WebhookDelivery>(item));
      }
      if (deliveries.length > limit) {
        deliveries.pop();
        const last = deliveries[deliveries.length - 1]!;
        return { deliveries, next: pagePosition(last) };
      }
      read += out.ScannedCount ?? 0;
      if (read >= READ_LIMITS.filteredRead && out.LastEvaluatedKey)
        return { deliveries, next: out.LastEvaluatedKey };
    }
    return { deliveries };
  }
}

/** The container's list, on the configured table (made on first use). */
export const webhookDeliveryList: () => DynamoWebhookDeliveryList =
  /* @__PURE__ */ containerStore(DynamoWebhookDeliveryList);
