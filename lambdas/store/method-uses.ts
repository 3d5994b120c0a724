/**
 * Which pending payments use a saved method, without a scan (docs/architecture.md "Safe method
 * deletion"). Every payment that names a method has a use item in the method's partition
 * (`METHODUSE#<methodId>` / `PAYMENT#<groupId>#<paymentId>`), written and removed by the write
 * that changes what the payment names: its creation (in its transaction, or in a large create's
 * write-ahead), a change of its profileId, its deletion, a move to another method. A use stays
 * when its payment is answered or its group deleted: whether it is still pending is read from its
 * group (and, while the group is processing, from the payment) when the uses are listed, and the
 * uses found settled for good are pruned then. So no write of a group's status touches its
 * payments' uses, and a group of 100,000 payments is claimed, processed or deleted as before.
 *
 * The fence that keeps the list exact under concurrency: every write that gives a payment a
 * method checks, in the same transaction, that the method exists and carries no deletion mark
 * (`methodUsable`); a deletion writes its mark first and lists the uses after, both strongly
 * consistent. A payment that takes the method is therefore either listed or refused.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Payment } from '#domain/groups';
import { parseProfileId } from '#domain/payors';
import { keys } from './keys';
import { batchGet, batchWriteAll, type Item, strip } from './items';
import { isSeriesUse, pendingSeriesUses, type PendingSeriesUse } from './method-series-uses';
import { queryPages } from './paging';

/** What a use names: the payment and the method of its profileId. */
type Use = Pick<Payment, 'paymentGroupId' | 'paymentId' | 'profileId'>;

export const useKey = (use: Use) =>
  keys.methodUse(parseProfileId(use.profileId).savedPaymentMethodId, use.paymentGroupId, use.paymentId);

export const useItem = (use: Use & Pick<Payment, 'merchantId'>): Item => {
  const { payorId, savedPaymentMethodId } = parseProfileId(use.profileId);
  return {
    ...keys.methodUse(savedPaymentMethodId, use.paymentGroupId, use.paymentId),
    entity: 'method-use',
    merchantId: use.merchantId,
    payorId,
    savedPaymentMethodId,
    paymentGroupId: use.paymentGroupId,
    paymentId: use.paymentId,
  };
};

/** The transaction item that records a payment's use of its method. */
export const usePut = (tableName: string, use: Use & Pick<Payment, 'merchantId'>) => ({
  Put: { TableName: tableName, Item: useItem(use) },
});

/** The transaction item that removes a payment's use of its method. */
export const useDelete = (tableName: string, use: Use) => ({
  Delete: { TableName: tableName, Key: useKey(use) },
});

/** The condition that a method exists and no deletion of it has begun (the fence). */
const USABLE_METHOD = 'attribute_exists(pk) AND attribute_not_exists(deletion)';

/**
 * The fence of a series' payment: also not revoked. A revocation writes the method's status first
 * and then suspends the payments of the series it finds (core/notice-follow-ups.ts): a series that
 * took the method after that read would keep it unsuspended, its payment declined at every
 * occurrence instead of left out until it is given a new method.
 */
const SERIES_USABLE_METHOD = `${USABLE_METHOD} AND (attribute_not_exists(#status) OR #status <> :revoked)`;

/** The transaction item of the fence: the method a payment takes is there and not being deleted. */
export function methodUsable(tableName: string, profileId: string) {
  const { payorId, savedPaymentMethodId } = parseProfileId(profileId);
  return {
    ConditionCheck: {
      TableName: tableName,
      Key: keys.method(payorId, savedPaymentMethodId),
      ConditionExpression: USABLE_METHOD,
    },
  };
}

/** The fence of a series' payment (a new series, a payment given a new method): not revoked either. */
export function methodUsableForSeries(tableName: string, profileId: string) {
  const { ConditionCheck } = methodUsable(tableName, profileId);
  return {
    ConditionCheck: {
      ...ConditionCheck,
      ConditionExpression: SERIES_USABLE_METHOD,
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':revoked': 'revoked' },
    },
  };
}

/**
 * The fence as an update: the method is there and not being deleted, and its revision moves, so
 * that a deletion of it that read it before this transaction is refused and reads it again (a
 * replacement deleted while a deletion moves payments onto it: core/method-deletion.ts).
 */
export function methodUsableAndTouched(tableName: string, profileId: string) {
  const { payorId, savedPaymentMethodId } = parseProfileId(profileId);
  return {
    Update: {
      TableName: tableName,
      Key: keys.method(payorId, savedPaymentMethodId),
      UpdateExpression: 'ADD revision :one',
      ConditionExpression: USABLE_METHOD,
      ExpressionAttributeValues: { ':one': 1 },
    },
  };
}

/** The distinct methods (as profileIds) of these payments, each once: a transaction names an item once. */
export const distinctProfiles = (payments: readonly Pick<Payment, 'profileId'>[]): string[] => [
  ...new Map(
    payments.map((p) => {
      const ref = parseProfileId(p.profileId);
      return [ref.savedPaymentMethodId, `${ref.payorId}/${ref.savedPaymentMethodId}`] as const;
    }),
  ).values(),
];

/**
 * A write refused because a method it names is gone or being deleted (the fence), or, for a
 * series' payment, revoked (`revoked`: those of `methodIds`).
 */
export class MethodUnavailableError extends Error {
  constructor(
    readonly methodIds: readonly string[],
    readonly revoked: readonly string[] = [],
  ) {
    super(`saved payment method(s) gone, being deleted or revoked: ${methodIds.join(', ')}`);
    this.name = 'MethodUnavailableError';
  }
}

/**
 * The methods of `profileIds` as they are now (strongly consistent), by id, with what the fences
 * check: the deletion mark and the status; the ids, in order. A method gone is not in the map.
 */
async function fenceRead(
  db: DynamoDBDocumentClient,
  tableName: string,
  profileIds: readonly string[],
): Promise<{ ids: string[]; byId: Map<string, Item> }> {
  const refs = profileIds.map(parseProfileId);
  const found = await batchGet(
    db,
    tableName,
    refs.map((r) => keys.method(r.payorId, r.savedPaymentMethodId)),
    'savedPaymentMethodId, deletion, #status',
    { '#status': 'status' },
  );
  return {
    ids: refs.map((r) => r.savedPaymentMethodId),
    byId: new Map(found.map((i) => [String(i.savedPaymentMethodId), i])),
  };
}

/**
 * The methods among `profileIds` that are gone or carry a deletion mark, read strongly
 * consistent: what a large create checks after writing its uses and before its commit.
 */
export async function unavailableMethods(
  db: DynamoDBDocumentClient,
  tableName: string,
  profileIds: readonly string[],
): Promise<string[]> {
  const { ids, byId } = await fenceRead(db, tableName, profileIds);
  return ids.filter((id) => byId.get(id)?.deletion !== undefined || !byId.has(id));
}

/**
 * The series fence read again, strongly consistent: the refusal naming the methods among
 * `profileIds` that are gone, being deleted or revoked (`revoked`: the last), if any. What a large
 * series create checks after writing its uses, and what tells a small one's refusals apart.
 */
export async function seriesFenceRefusal(
  db: DynamoDBDocumentClient,
  tableName: string,
  profileIds: readonly string[],
): Promise<MethodUnavailableError | undefined> {
  const { ids, byId } = await fenceRead(db, tableName, profileIds);
  const revoked = (id: string) => byId.get(id)?.deletion === undefined && byId.get(id)?.status === 'revoked';
  const refused = ids.filter((id) => byId.get(id)?.deletion !== undefined || !byId.has(id) || revoked(id));
  return refused.length > 0 ? new MethodUnavailableError(refused, refused.filter(revoked)) : undefined;
}

/** Where a use's group stands: payments of these groups may still be charged on the method. */
export type PendingGroupStatus = 'pending' | 'processing' | 'creating';

export interface PendingUse {
  paymentGroupId: string;
  paymentId: string;
  groupStatus: PendingGroupStatus;
  /** The payment as it is (absent only while its group is still being created). */
  payment?: Payment;
}

export interface PendingUses {
  /** Payments of groups. */
  uses: PendingUse[];
  /** Payments of series (store/method-series-uses.ts). */
  seriesUses: PendingSeriesUse[];
  /** False when the method has more uses than were read (`max`): list again after acting on these. */
  complete: boolean;
}

/**
 * The payments that still use the method: not deleted, not answered, of a group that is pending,
 * processing, or still being created (a large create may commit them); and the payments of series
 * that still name it (store/method-series-uses.ts). Read strongly consistent and in bounded
 * amounts (`max` uses of both kinds). Uses found settled for good (their group processed, deleted
 * or gone; their payment answered, deleted or moved; their series canceled or completed) are
 * removed. Called only while the
 * method carries a deletion mark: no payment can take the method meanwhile, so a use pruned here
 * cannot be one being written again.
 */
export async function pendingUses(
  db: DynamoDBDocumentClient,
  tableName: string,
  methodId: string,
  max: number,
): Promise<PendingUses> {
  const items: Item[] = [];
  // Up to one more than `max`: whether more uses follow (the read is then not complete).
  const pages = queryPages(db, () => ({
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': keys.methodUses(methodId) },
    ConsistentRead: true,
    Limit: max + 1 - items.length,
  }));
  for await (const out of pages) {
    items.push(...(out.Items ?? []));
    if (items.length > max) break;
  }
  const complete = items.length <= max;
  const series = await pendingSeriesUses(db, tableName, methodId, items.slice(0, max).filter(isSeriesUse));
  const read = items.slice(0, max).filter((u) => !isSeriesUse(u));

  const groupIds = [...new Set(read.map((u) => String(u.paymentGroupId)))];
  const groups = await batchGet(db, tableName, groupIds.map(keys.group));
  const statusOf = new Map(groups.map((g) => [String(g.paymentGroupId), String(g.status)]));
  const live = read.filter((u) => isPendingStatus(statusOf.get(String(u.paymentGroupId))));
  const payments = await batchGet(
    db,
    tableName,
    live.map((u) => keys.payment(String(u.paymentGroupId), String(u.paymentId))),
  );
  const paymentOf = new Map(payments.map((p) => [String(p.paymentId), strip<Payment>(p)]));

  const uses: PendingUse[] = [];
  const settled: Item[] = [
    ...series.settled,
    ...read.filter((u) => !isPendingStatus(statusOf.get(String(u.paymentGroupId)))),
  ];
  for (const use of live) {
    const groupStatus = statusOf.get(String(use.paymentGroupId)) as PendingGroupStatus;
    const payment = paymentOf.get(String(use.paymentId));
    const base = {
      paymentGroupId: String(use.paymentGroupId),
      paymentId: String(use.paymentId),
      groupStatus,
    };
    if (groupStatus === 'creating') {
      // Its payment may not be written yet (the create writes payments and uses in any order).
      uses.push({ ...base, ...(payment && { payment }) });
    } else if (
      payment &&
      !payment.deleted &&
      !payment.authResponse &&
      parseProfileId(payment.profileId).savedPaymentMethodId === methodId
    ) {
      uses.push({ ...base, payment });
    } else {
      settled.push(use);
    }
  }
  if (settled.length > 0) {
    await batchWriteAll(
      db,
      tableName,
      settled.map((u) => ({ DeleteRequest: { Key: { pk: u.pk, sk: u.sk } } })),
    );
  }
  return { uses, seriesUses: series.uses, complete };
}

const isPendingStatus = (status: string | undefined): boolean =>
  status === 'pending' || status === 'processing' || status === 'creating';
