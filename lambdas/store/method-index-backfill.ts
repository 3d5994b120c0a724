/**
 * Migration: puts every saved method written before the method indexes existed on them:
 * the processor token's (GSI2, which the account updater finds a method by) and, for a card, its
 * merchant's expiry index (GSI1, `?expiringBefore=`). Every method write since puts them itself
 * (store/payor-items.ts).
 *
 * Run by the operator (`npm run admin -- backfill-method-indexes`), once per stage after deploying;
 * safe to run again at any time and beside live traffic:
 * - it reads the whole table (a Scan, filtered to method items: the old ones are on no index);
 * - it only adds the index attributes to a method that has none, conditionally (still there, still
 *   without them: a method written meanwhile has them, as written), touching nothing else of it
 *   (its revision stays: no change a merchant sees);
 * - a second run finds every method indexed and changes nothing.
 */
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SavedMethod } from '#domain/payors';
import { isConditionFailure } from '#shared/ddb';
import { scanPages } from './paging';
import { methodItem } from './payor-items';

interface MethodIndexBackfill {
  /** Methods that were on no index and now are. */
  indexed: number;
  /** Methods on the indexes already (written since, or by an earlier run). */
  alreadyIndexed: number;
}

export async function backfillMethodIndexes(
  db: DynamoDBDocumentClient,
  tableName: string,
): Promise<MethodIndexBackfill> {
  const result: MethodIndexBackfill = { indexed: 0, alreadyIndexed: 0 };
  const pages = scanPages(db, {
    TableName: tableName,
    FilterExpression: 'entity = :method',
    ExpressionAttributeValues: { ':method': 'method' },
    ProjectionExpression:
      'pk, sk, payorId, savedPaymentMethodId, merchantId, processorToken, expiryMonth, expiryYear, gsi2pk',
  });
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      if (item.gsi2pk !== undefined) result.alreadyIndexed++;
      else if (await index(db, tableName, item as unknown as SavedMethod & { pk: string; sk: string }))
        result.indexed++;
      else result.alreadyIndexed++;
    }
  }
  return result;
}

/** Indexes one method; false when it was written meanwhile (it has its indexes then) or is gone. */
async function index(
  db: DynamoDBDocumentClient,
  tableName: string,
  method: SavedMethod & { pk: string; sk: string },
): Promise<boolean> {
  const item = methodItem(method);
  const names = ['gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk'].filter((n) => item[n] !== undefined);
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { pk: method.pk, sk: method.sk },
        UpdateExpression: `SET ${names.map((n) => `${n} = :${n}`).join(', ')}`,
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(gsi2pk)',
        ExpressionAttributeValues: Object.fromEntries(names.map((n) => [`:${n}`, item[n]])),
      }),
    );
    return true;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return false;
  }
}
