/**
 * Migration: lists on GSI1 `MERCHANTS` every merchant registered before the
 * registry wrote that entry. The reconciliation reads every merchant's groups from that list
 * (store/reconciliation.ts), so a merchant registered before it existed was never reconciled
 * until registered again.
 *
 * Run by the operator (`npm run admin -- backfill-merchant-list`, README "Deploy"), once per stage
 * after deploying; safe to run again at any time and beside live traffic:
 * - it reads the whole table (a Scan, filtered to registry items: the old items are on no index);
 * - it only adds the listing to an 11-digit registry item that has none, conditionally (still
 *   that merchant, still unlisted), touching nothing else of it; the 8-digit forms stay unlisted,
 *   as the registry writes them;
 * - a second run, or a run racing a registration, finds every merchant listed and changes nothing.
 */
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys';
import { isConditionFailure } from '#shared/ddb';
import { scanPages } from './paging';

interface MerchantListBackfill {
  /** 11-digit registry items that were not listed and now are. */
  added: string[];
  /** 11-digit registry items listed already (registered since, or by an earlier run). */
  alreadyListed: number;
}

export async function backfillMerchantList(
  db: DynamoDBDocumentClient,
  tableName: string,
): Promise<MerchantListBackfill> {
  const result: MerchantListBackfill = { added: [], alreadyListed: 0 };
  const pages = scanPages(db, {
    TableName: tableName,
    FilterExpression: 'entity = :merchant AND sk = :sk',
    ExpressionAttributeValues: { ':merchant': 'merchant', ':sk': keys.merchant('').sk },
    ProjectionExpression: 'pk, merchantId, gsi1pk',
  });
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      const merchantId = String(item.merchantId);
      // The 8-digit form's item names the 11-digit merchant too: only the 11-digit item is listed.
      if (item.pk !== keys.merchant(merchantId).pk) continue;
      if (item.gsi1pk === keys.merchantList) {
        result.alreadyListed++;
        continue;
      }
      if (await list(db, tableName, merchantId)) result.added.push(merchantId);
      else result.alreadyListed++;
    }
  }
  return result;
}

/** Lists one merchant; false when it was listed meanwhile (a registration, another run). */
async function list(db: DynamoDBDocumentClient, tableName: string, merchantId: string): Promise<boolean> {
  try {
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.merchant(merchantId),
        UpdateExpression: 'SET gsi1pk = :list, gsi1sk = :mid',
        ConditionExpression: 'merchantId = :mid AND attribute_not_exists(gsi1pk)',
        ExpressionAttributeValues: { ':list': keys.merchantList, ':mid': merchantId },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
