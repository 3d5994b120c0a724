/**
 * The items of a payor's partition (`PAYOR#id`): the payor, its saved methods, and the
 * `CUSTOMER#mid#id` item that keeps customerAccountId unique per merchant. Shared by the payor
 * and method stores.
 */
import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '#shared/keys';
import type { Payor, SavedMethod } from '#domain/payors';
import type { Item } from './items';

export const payorItem = (p: Payor): Item => ({ ...keys.payor(p.payorId), entity: 'payor', ...p });

export const methodItem = (m: SavedMethod): Item => ({
  ...keys.method(m.payorId, m.savedPaymentMethodId),
  entity: 'method',
  ...m,
});

/** The uniqueness item of a payor's customerAccountId: written only if no payor holds it. */
export function customerPut(tableName: string, p: Payor) {
  return {
    Put: {
      TableName: tableName,
      Item: {
        ...keys.customer(p.merchantId, p.customerAccountId!),
        entity: 'customer',
        payorId: p.payorId,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** DynamoDB still left keys unprocessed after the retries (throttling): the read is incomplete. */
export class IncompleteReadError extends Error {
  constructor() {
    super('batch read: unprocessed keys after retries');
    this.name = 'IncompleteReadError';
  }
}

/** BatchGet in chunks of 100, asking again (with backoff, bounded) for unprocessed keys. */
export async function batchGet(
  db: DynamoDBDocumentClient,
  tableName: string,
  keyList: Item[],
  projection: string,
): Promise<Item[]> {
  const found: Item[] = [];
  for (let i = 0; i < keyList.length; i += 100) {
    let request: Record<string, { Keys: Item[]; ProjectionExpression?: string }> | undefined = {
      [tableName]: { Keys: keyList.slice(i, i + 100), ProjectionExpression: projection },
    };
    for (let attempt = 0; request && Object.keys(request).length > 0; attempt++) {
      if (attempt > 8) throw new IncompleteReadError();
      if (attempt > 0) await new Promise((r) => setTimeout(r, 2 ** attempt * 10));
      const out = await db.send(new BatchGetCommand({ RequestItems: request }));
      found.push(...(out.Responses?.[tableName] ?? []));
      request = out.UnprocessedKeys as typeof request;
    }
  }
  return found;
}
