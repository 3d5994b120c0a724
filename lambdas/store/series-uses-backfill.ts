/**
 * Migration: writes the method uses of series' payments (store/method-series-uses.ts) for the
 * series created before those uses existed, so that a method they name is not deleted from under
 * them (a deletion answers 409 naming the series, or `replaceWith` moves their payments).
 *
 * Run by the operator with the groups' migration (`npm run admin -- backfill-method-uses`,
 * docs/operating.md "Migrations after a deploy"), once per stage right after deploying; safe to run
 * again at any time and beside live traffic:
 * - it reads every merchant's series (the merchant list, then each merchant's series list: never a
 *   Scan) and, of those active or paused, their payments;
 * - it writes each payment's use (a Put of the same item: a repeat changes nothing);
 * - then, as a create does (the fence), it reads every method they name again, strongly
 *   consistent: a method gone or being deleted at that moment may have been listed before the use
 *   was written, and its payments are reported (`atRisk`): an occurrence leaves such a payment out
 *   (`paymentsLeftOut`), so none is charged on a deleted method.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { parseProfileId } from '#domain/payors';
import type { SeriesPayment } from '#domain/series';
import { keys } from './keys';
import { batchWriteAll } from './items';
import { readAll } from './paging';
import { seriesUseItem } from './method-series-uses';
import { distinctProfiles, unavailableMethods } from './method-uses';

/** How long the writes of one series' uses may take before the run fails (and is run again). */
const BACKFILL_SERIES_BUDGET_MS = 10 * 60_000;

interface SeriesUsesBackfill {
  /** Series read (active or paused). */
  series: number;
  /** Uses written (one per payment of those series). */
  written: number;
  /** Payments whose method was gone or being deleted when read again: `seriesId#index`. */
  atRisk: string[];
}

export async function backfillSeriesMethodUses(
  db: DynamoDBDocumentClient,
  tableName: string,
): Promise<SeriesUsesBackfill> {
  const result: SeriesUsesBackfill = { series: 0, written: 0, atRisk: [] };
  const merchants = await readAll(db, {
    TableName: tableName,
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :m',
    ExpressionAttributeValues: { ':m': keys.merchantList },
  });
  for (const merchant of merchants) {
    const merchantId = String(merchant.merchantId);
    const series = await readAll(db, {
      TableName: tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :s',
      FilterExpression: '#status IN (:active, :paused)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':s': keys.merchantSeries(merchantId),
        ':active': 'active',
        ':paused': 'paused',
      },
      ProjectionExpression: 'seriesId',
    });
    for (const { seriesId } of series) {
      result.series++;
      const id = String(seriesId);
      const payments = (await readAll(db, {
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :payment)',
        ExpressionAttributeValues: { ':pk': keys.series(id).pk, ':payment': keys.paymentPrefix },
        ProjectionExpression: '#index, profileId',
        ExpressionAttributeNames: { '#index': 'index' },
        ConsistentRead: true,
      })) as unknown as Pick<SeriesPayment, 'index' | 'profileId'>[];
      if (payments.length === 0) continue;
      await batchWriteAll(
        db,
        tableName,
        payments.map((p) => ({ PutRequest: { Item: seriesUseItem(id, merchantId, p) } })),
        BACKFILL_SERIES_BUDGET_MS,
      );
      result.written += payments.length;
      const unavailable = new Set(await unavailableMethods(db, tableName, distinctProfiles(payments)));
      for (const p of payments) {
        if (unavailable.has(parseProfileId(p.profileId).savedPaymentMethodId))
          result.atRisk.push(`${id}#${p.index}`);
      }
    }
  }
  return result;
}
