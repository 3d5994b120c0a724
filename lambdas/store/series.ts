/**
 * Series in DynamoDB: the series item (`SERIES#id` / `SERIES`) and its payments, items of its own
 * partition (`PAYMENT#<index>`, in their order), so that a series of 10,000 payments stays far
 * from an item's 400 KB. A series is written whole, each write holding only on the revision read;
 * it is listed per merchant on GSI1 (`SERIESLIST#<mid>`, by creation) and sits in the sparse due
 * index on GSI2 (`SERIESDUE` / `<dueAt>#<id>`) while the creation job has work for it. Each payment
 * has its method use (store/method-series-uses.ts), written with it under the deletion fence.
 */
import {
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { ServiceEvent } from '#domain/events';
import { dueAt, type Series, type SeriesPayment, type SeriesStatus } from '#domain/series';
import { parseProfileId } from '#domain/payors';
import { cancellationCodes, conditionOutcome } from '#shared/ddb';
import { keys } from './keys';
import { eventPut } from './events';
import { batchGet, containerStore, MAX_TRANSACTION_JSON_BYTES, strip, type Item } from './items';
import {
  seriesPaymentMoveItems,
  seriesUseItem,
  seriesUsesOf,
  type PendingSeriesUse,
} from './method-series-uses';
import {
  distinctProfiles,
  methodUsableForSeries,
  MethodUnavailableError,
  seriesFenceRefusal,
} from './method-uses';
import { readAll, readPage, type Page } from './paging';
import { CREATING, createWrittenAhead, discardCreate } from './write-ahead';

/** One transaction holds at most 100 items: the series, its event, and its payments with their uses and methods. */
const MAX_TRANSACTION_ITEMS = 100;

/** The series item: the record, its list entry, and its due-index entry while it has work. */
function seriesItem(series: Series): Item {
  const due = dueAt(series);
  return {
    ...keys.series(series.seriesId),
    entity: 'series',
    ...series,
    gsi1pk: keys.merchantSeries(series.merchantId),
    gsi1sk: keys.merchantSeriesSort(series.dateCreated, series.seriesId),
    ...(due !== undefined && {
      gsi2pk: keys.seriesDuePartition,
      gsi2sk: keys.seriesDueSort(due, series.seriesId),
    }),
  };
}

/** The largest position a payment's key spells (five digits): far above a series' 10,000 payments. */
const MAX_SERIES_PAYMENT_INDEX = 99_999;

const paymentItem = (seriesId: string, payment: SeriesPayment): Item => ({
  ...keys.seriesPayment(seriesId, payment.index),
  entity: 'series-payment',
  seriesId,
  ...payment,
});

/**
 * The transaction items that write `next` whole, if the stored series is still at `previous`'s
 * revision (absent: if there is none), with the event announcing the change. A group create adds
 * them to its own transaction when it is an occurrence's (the series' advance).
 */
export function seriesWriteItems(
  tableName: string,
  next: Series,
  previous: Pick<Series, 'revision'> | undefined,
  event?: ServiceEvent,
): object[] {
  return [
    {
      Put: {
        TableName: tableName,
        Item: seriesItem(next),
        ...(previous === undefined
          ? { ConditionExpression: 'attribute_not_exists(pk)' }
          : {
              ConditionExpression: 'revision = :revision',
              ExpressionAttributeValues: { ':revision': previous.revision },
            }),
      },
    },
    ...(event ? [eventPut(tableName, event)] : []),
  ];
}

interface SeriesFilter {
  status?: SeriesStatus;
}

interface SeriesStore {
  /** The series, read strongly consistent; one still being created does not exist yet. */
  get(seriesId: string): Promise<Series | undefined>;
  /**
   * A new series with its payments, their method uses and the event announcing it: all of them or
   * none. MethodUnavailableError when a method they name is gone, being deleted or revoked (the
   * fence: store/method-uses.ts methodUsableForSeries).
   */
  create(series: Series, payments: readonly SeriesPayment[], event: ServiceEvent): Promise<void>;
  /**
   * Removes a series left `creating` with the payments it wrote (an idempotent retry's first step);
   * CreateInProgressError while its write-ahead's lease runs at `now` (its writer may be writing).
   */
  discardCreate(seriesId: string, now: Date): Promise<void>;
  /** The series' payments, in their order (strongly consistent). */
  payments(seriesId: string): Promise<SeriesPayment[]>;
  /** Up to `limit` of its payments from position `from` on, in their order (strongly consistent). */
  paymentsFrom(seriesId: string, from: number, limit: number): Promise<SeriesPayment[]>;
  /** Writes `next` if the series is still at `previous`'s revision, with its event; false otherwise. */
  write(next: Series, previous: Series, event?: ServiceEvent): Promise<boolean>;
  /** The payments of active, paused or still-creating series that name the method. */
  usesOfMethod(methodId: string): Promise<PendingSeriesUse[]>;
  /**
   * Suspends these payments of the series (their method revoked) with the series' write (`next`,
   * at `previous`'s revision) and its event, each payment only if it still names the method it
   * was read with and is not suspended; false when anything changed since read.
   */
  suspendPayments(
    next: Series,
    previous: Series,
    payments: readonly SeriesPayment[],
    event: ServiceEvent,
  ): Promise<boolean>;
  /** These payments of the series that exist, by index (strongly consistent). */
  paymentsAt(seriesId: string, indices: readonly number[]): Promise<Map<number, SeriesPayment>>;
  /**
   * Gives these payments (as read) their new profileId, each active again, its method use moved,
   * with the series' write (`next`, at `previous`'s revision) and its event; each new method must
   * be there, not being deleted and not revoked (the fence). False when anything changed since read.
   */
  changeMethods(
    next: Series,
    previous: Series,
    moves: readonly { payment: SeriesPayment; to: string }[],
    event: ServiceEvent,
  ): Promise<boolean>;
  /** The merchant's series that pass the filter, at most `max` of them. */
  list(merchantId: string, filter: SeriesFilter, max: number): Promise<Series[]>;
  page(merchantId: string, filter: SeriesFilter, page: Page): Promise<{ items: Series[]; total: number }>;
  /**
   * The ids of the series the creation job has work for before `before` (ISO time), earliest
   * first, at most `limit` (from the eventually consistent index: read each again before acting).
   */
  due(before: string, limit: number): Promise<string[]>;
}

export class DynamoSeriesStore implements SeriesStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(seriesId: string): Promise<Series | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.series(seriesId), ConsistentRead: true }),
    );
    return Item?.entity === 'series' && Item.status !== CREATING ? strip<Series>(Item) : undefined;
  }

  /**
   * A small series (its items within one transaction): one transaction, each method its payments
   * name checked in it (the fence). More: the series is written ahead (invisible), then its
   * payments and their uses, then the methods are read again, then it is committed with its event
   * (write-ahead.ts), all or nothing even across a crash.
   */
  async create(series: Series, payments: readonly SeriesPayment[], event: ServiceEvent): Promise<void> {
    const { seriesId, merchantId } = series;
    const children = payments.flatMap((p) => [
      paymentItem(seriesId, p),
      seriesUseItem(seriesId, merchantId, p),
    ]);
    const profiles = distinctProfiles(payments);
    const items = [
      ...profiles.map((profileId) => methodUsableForSeries(this.tableName, profileId)),
      ...seriesWriteItems(this.tableName, series, undefined, event),
      ...children.map((Item) => ({ Put: { TableName: this.tableName, Item } })),
    ];
    // Few items, and within 4 MB (the largest customAttributes pass it in some 30 payments).
    if (
      items.length <= MAX_TRANSACTION_ITEMS &&
      Buffer.byteLength(JSON.stringify(items)) <= MAX_TRANSACTION_JSON_BYTES
    ) {
      try {
        await this.db.send(new TransactWriteCommand({ TransactItems: items as never }));
      } catch (error) {
        const codes = cancellationCodes(error) ?? [];
        const refused = profiles.filter((_, i) => codes[i] === 'ConditionalCheckFailed');
        if (refused.length > 0) {
          // Which were revoked (the 400 says so) and which gone or being deleted: read again.
          const ids = refused.map((id) => parseProfileId(id).savedPaymentMethodId);
          const again = await seriesFenceRefusal(this.db, this.tableName, refused);
          throw new MethodUnavailableError(ids, again?.revoked ?? []);
        }
        throw error;
      }
      return;
    }
    await createWrittenAhead(this.db, this.tableName, {
      committed: seriesItem(series),
      id: seriesId,
      children,
      // After the uses are written: a deletion that marked a method before this read is refused
      // here; one that marks it after finds these uses (store/method-uses.ts).
      fence: async () => {
        const refusal = await seriesFenceRefusal(this.db, this.tableName, profiles);
        if (refusal) throw refusal;
      },
      commitItems: [eventPut(this.tableName, event)],
      eventSeq: event.sequence,
    });
  }

  discardCreate(seriesId: string, now: Date): Promise<void> {
    return discardCreate(this.db, this.tableName, keys.series(seriesId), seriesId, now);
  }

  async payments(seriesId: string): Promise<SeriesPayment[]> {
    const items = await readAll(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :payment)',
      ExpressionAttributeValues: { ':pk': keys.series(seriesId).pk, ':payment': keys.paymentPrefix },
      ConsistentRead: true,
    });
    return items.map((item) => {
      const { seriesId: _, ...payment } = strip<SeriesPayment & { seriesId: string }>(item);
      return payment;
    });
  }

  async paymentsFrom(seriesId: string, from: number, limit: number): Promise<SeriesPayment[]> {
    const { Items = [] } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :last',
        ExpressionAttributeValues: {
          ':pk': keys.series(seriesId).pk,
          ':from': keys.seriesPayment(seriesId, from).sk,
          ':last': keys.seriesPayment(seriesId, MAX_SERIES_PAYMENT_INDEX).sk,
        },
        Limit: limit,
        ConsistentRead: true,
      }),
    );
    return Items.map((item) => {
      const { seriesId: _, ...payment } = strip<SeriesPayment & { seriesId: string }>(item);
      return payment;
    });
  }

  async write(next: Series, previous: Series, event?: ServiceEvent): Promise<boolean> {
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: seriesWriteItems(this.tableName, next, previous, event) as never,
        }),
      );
      return true;
    } catch (error) {
      return conditionOutcome(error, [[0, false]]);
    }
  }

  usesOfMethod(methodId: string): Promise<PendingSeriesUse[]> {
    return seriesUsesOf(this.db, this.tableName, methodId);
  }

  async suspendPayments(
    next: Series,
    previous: Series,
    payments: readonly SeriesPayment[],
    event: ServiceEvent,
  ): Promise<boolean> {
    const suspensions = payments.map((p) => ({
      Update: {
        TableName: this.tableName,
        Key: keys.seriesPayment(next.seriesId, p.index),
        UpdateExpression: 'SET #status = :suspended, suspendedReason = :reason',
        ConditionExpression: 'profileId = :profile AND attribute_not_exists(#status)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':suspended': 'suspended',
          ':reason': 'authorization_revoked',
          ':profile': p.profileId,
        },
      },
    }));
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            ...seriesWriteItems(this.tableName, next, previous, event),
            ...suspensions,
          ] as never,
        }),
      );
      return true;
    } catch (error) {
      return conditionOutcome(error, [['any', false]]);
    }
  }

  async paymentsAt(seriesId: string, indices: readonly number[]): Promise<Map<number, SeriesPayment>> {
    const items = await batchGet(
      this.db,
      this.tableName,
      [...new Set(indices)].map((i) => keys.seriesPayment(seriesId, i)),
    );
    return new Map(
      items.map((item) => {
        const { seriesId: _, ...payment } = strip<SeriesPayment & { seriesId: string }>(item);
        return [payment.index, payment];
      }),
    );
  }

  async changeMethods(
    next: Series,
    previous: Series,
    moves: readonly { payment: SeriesPayment; to: string }[],
    event: ServiceEvent,
  ): Promise<boolean> {
    const { seriesId, merchantId } = next;
    const items: object[] = [...seriesWriteItems(this.tableName, next, previous, event)];
    for (const { payment, to } of moves)
      items.push(...seriesPaymentMoveItems(this.tableName, seriesId, merchantId, payment, to));
    for (const to of distinctProfiles(moves.map((m) => ({ profileId: m.to }))))
      items.push(methodUsableForSeries(this.tableName, to));
    try {
      await this.db.send(new TransactWriteCommand({ TransactItems: items as never }));
      return true;
    } catch (error) {
      return conditionOutcome(error, [['any', false]]);
    }
  }

  private query(merchantId: string, filter: SeriesFilter): QueryCommandInput {
    return {
      TableName: this.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :m',
      ...(filter.status !== undefined && {
        FilterExpression: '#status = :status',
        ExpressionAttributeNames: { '#status': 'status' },
      }),
      ExpressionAttributeValues: {
        ':m': keys.merchantSeries(merchantId),
        ...(filter.status !== undefined && { ':status': filter.status }),
      },
    };
  }

  async list(merchantId: string, filter: SeriesFilter, max: number): Promise<Series[]> {
    return (await readAll(this.db, this.query(merchantId, filter), max)).map((i) => strip<Series>(i));
  }

  async page(
    merchantId: string,
    filter: SeriesFilter,
    page: Page,
  ): Promise<{ items: Series[]; total: number }> {
    const { items, total } = await readPage(this.db, this.query(merchantId, filter), page);
    return { items: items.map((i) => strip<Series>(i)), total };
  }

  async due(before: string, limit: number): Promise<string[]> {
    const items = await readAll(
      this.db,
      {
        TableName: this.tableName,
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :due AND gsi2sk < :before',
        ExpressionAttributeValues: { ':due': keys.seriesDuePartition, ':before': before },
        ProjectionExpression: 'seriesId',
      },
      limit,
    );
    return items.map((i) => String(i.seriesId));
  }
}

/** The container's store, on the configured table (made on first use). */
export const seriesStore: () => SeriesStore = /* @__PURE__ */ containerStore(DynamoSeriesStore);
