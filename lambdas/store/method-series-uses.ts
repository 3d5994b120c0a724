/**
 * Which series would charge a saved method (docs/architecture.md "Safe method deletion"): the
 * series' side of the method uses of store/method-uses.ts. Every payment of a series that names a
 * method has a use item in the method's partition (`METHODUSE#<methodId>` /
 * `SERIES#<seriesId>#<index>`), written with the series (in its transaction, or in its
 * write-ahead, under the same fence as a group's payments) and moved with the payment by a
 * deletion's `replaceWith`. A use stays when its series is canceled or completed: whether it still
 * counts is read from the series (and its payment) when the uses are listed, and the settled ones
 * are pruned then.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { parseProfileId } from '#domain/payors';
import type { SeriesPayment } from '#domain/series';
import { keys } from './keys';
import { batchGet, type Item, strip } from './items';
import { readAll } from './paging';

/** What a series use names: the series and its payment's position and method. */
type SeriesUse = Pick<SeriesPayment, 'index' | 'profileId'>;

export const seriesUseKey = (seriesId: string, payment: SeriesUse) =>
  keys.methodSeriesUse(parseProfileId(payment.profileId).savedPaymentMethodId, seriesId, payment.index);

export const seriesUseItem = (seriesId: string, merchantId: string, payment: SeriesUse): Item => {
  const { payorId, savedPaymentMethodId } = parseProfileId(payment.profileId);
  return {
    ...seriesUseKey(seriesId, payment),
    entity: 'series-method-use',
    merchantId,
    payorId,
    savedPaymentMethodId,
    seriesId,
    index: payment.index,
  };
};

/** The transaction item that records a series payment's use of its method. */
const seriesUsePut = (tableName: string, seriesId: string, merchantId: string, payment: SeriesUse) => ({
  Put: { TableName: tableName, Item: seriesUseItem(seriesId, merchantId, payment) },
});

/** The transaction item that removes a series payment's use of its method. */
const seriesUseDelete = (tableName: string, seriesId: string, payment: SeriesUse) => ({
  Delete: { TableName: tableName, Key: seriesUseKey(seriesId, payment) },
});

/**
 * The transaction items that move a series' payment (as read: its profileId) to the method `to`:
 * the payment, active again on it (a suspension lifted), only if it still names what it was read
 * with, and its use moved to the new method (kept when the method is the same).
 */
export function seriesPaymentMoveItems(
  tableName: string,
  seriesId: string,
  merchantId: string,
  payment: SeriesUse,
  to: string,
): object[] {
  const update = {
    Update: {
      TableName: tableName,
      Key: keys.seriesPayment(seriesId, payment.index),
      UpdateExpression: 'SET profileId = :to REMOVE #status, suspendedReason',
      ConditionExpression: 'profileId = :from',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':to': to, ':from': payment.profileId },
    },
  };
  if (parseProfileId(payment.profileId).savedPaymentMethodId === parseProfileId(to).savedPaymentMethodId)
    return [update];
  return [
    update,
    seriesUseDelete(tableName, seriesId, payment),
    seriesUsePut(tableName, seriesId, merchantId, { index: payment.index, profileId: to }),
  ];
}

/** True for a use item of a series' payment (the others are of groups' payments). */
export const isSeriesUse = (item: Item): boolean => String(item.sk).startsWith('SERIES#');

/** Where a use's series stands: its later occurrences may still charge the method. */
export type PendingSeriesStatus = 'active' | 'paused' | 'creating';

export interface PendingSeriesUse {
  seriesId: string;
  index: number;
  seriesStatus: PendingSeriesStatus;
  merchantId: string;
  /** The series' payment as it is (absent only while the series is still being created). */
  payment?: SeriesPayment;
}

const isPendingSeries = (status: unknown): status is PendingSeriesStatus =>
  status === 'active' || status === 'paused' || status === 'creating';

/**
 * Of these use items of a method's series payments, those that still count: of a series active,
 * paused (it may be resumed) or still being created, whose payment still names the method. The
 * others (the series canceled, completed or gone; the payment moved) are returned as `settled`,
 * for the caller to prune. Read strongly consistent.
 */
export async function pendingSeriesUses(
  db: DynamoDBDocumentClient,
  tableName: string,
  methodId: string,
  read: readonly Item[],
): Promise<{ uses: PendingSeriesUse[]; settled: Item[] }> {
  if (read.length === 0) return { uses: [], settled: [] };
  const seriesIds = [...new Set(read.map((u) => String(u.seriesId)))];
  const found = await batchGet(db, tableName, seriesIds.map(keys.series), 'seriesId, merchantId, #status', {
    '#status': 'status',
  });
  const statusOf = new Map(found.map((s) => [String(s.seriesId), s.status]));
  const live = read.filter((u) => isPendingSeries(statusOf.get(String(u.seriesId))));
  const payments = await batchGet(
    db,
    tableName,
    live.map((u) => keys.seriesPayment(String(u.seriesId), Number(u.index))),
  );
  const paymentOf = new Map(
    payments.map((p) => {
      const { seriesId, ...payment } = strip<SeriesPayment & { seriesId: string }>(p);
      return [`${seriesId}#${payment.index}`, payment] as const;
    }),
  );
  const uses: PendingSeriesUse[] = [];
  const settled = read.filter((u) => !isPendingSeries(statusOf.get(String(u.seriesId))));
  for (const use of live) {
    const seriesStatus = statusOf.get(String(use.seriesId)) as PendingSeriesStatus;
    const payment = paymentOf.get(`${String(use.seriesId)}#${Number(use.index)}`);
    const base = {
      seriesId: String(use.seriesId),
      index: Number(use.index),
      seriesStatus,
      merchantId: String(use.merchantId),
    };
    if (seriesStatus === 'creating') {
      // Its payment may not be written yet (a large create writes payments and uses in any order).
      uses.push({ ...base, ...(payment && { payment }) });
    } else if (payment && parseProfileId(payment.profileId).savedPaymentMethodId === methodId) {
      uses.push({ ...base, payment });
    } else {
      settled.push(use);
    }
  }
  return { uses, settled };
}

/**
 * The payments of series that still name the method (pendingSeriesUses), read without pruning:
 * for a change of the method that carries no deletion mark (a revocation suspends them).
 */
export async function seriesUsesOf(
  db: DynamoDBDocumentClient,
  tableName: string,
  methodId: string,
): Promise<PendingSeriesUse[]> {
  const read = await readAll(db, {
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :series)',
    ExpressionAttributeValues: { ':pk': keys.methodUses(methodId), ':series': 'SERIES#' },
    ConsistentRead: true,
  });
  return (await pendingSeriesUses(db, tableName, methodId, read)).uses;
}
