/**
 * Group items in DynamoDB: creating a group with its payments, changing its settings, deleting
 * it, and a merchant's groups by slot (GSI1). Payment changes are in `payments.ts`, processing
 * claims in `claims.ts`, the due index in `due.ts`.
 */
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient, QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { cancellationCodes, isConditionFailure } from '#shared/ddb';
import { keys } from './keys';
import { withOptimisticRetry } from '#shared/optimistic-concurrency';
import type { ServiceEvent } from '#domain/events';
import { parseProfileId } from '#domain/payors';
import type { OutboxItem } from '#domain/notifications';
import { nextSequence } from '#domain/events';
import {
  groupEvent,
  slotOf,
  type Group,
  type GroupFilter,
  type Payment,
  type VoidOrRefundSummary,
} from '#domain/groups';
import { CREATING, createWrittenAhead, discardCreate, sweepAbandonedCreates } from './group-create';
import { containerStore, type Item, MAX_TRANSACTION_JSON_BYTES, strip } from './items';
import { announcedUpdate, eventPut, writeAnnounced } from './events';
import { distinctProfiles, methodUsable, MethodUnavailableError, usePut } from './method-uses';
import { outboxPut } from './outbox';
import { readAll, readPage, type Page } from './paging';
import { paymentItem } from './payments';
import { clock } from '#shared/clock';

/** A 503 after too many lost races names the group. */
const GROUP = { resource: 'this group' };

/**
 * One transaction holds at most 100 items: the group, its event, its payments with their method
 * uses, a check of each method they name, and their outbox items.
 */
export const MAX_TRANSACTION_ITEMS = 100;

export function groupItem(group: Group): Item {
  const slot = slotOf(group.scheduleDate, group.scheduleHour);
  return {
    ...keys.group(group.paymentGroupId),
    entity: 'group',
    ...group,
    gsi1pk: keys.merchantGroups(group.merchantId),
    gsi1sk: keys.merchantGroupSort(slot, group.paymentGroupId),
    ...(group.status === 'pending' && {
      gsi2pk: keys.dueShard(group.paymentGroupId),
      gsi2sk: keys.dueSort(slot, group.paymentGroupId),
    }),
  };
}

/** Writes of another object made in the same transaction as a group's create, for a table. */
export type AlsoWritten = (tableName: string) => object[];

export interface GroupStore {
  getGroup(groupId: string): Promise<Group | undefined>;
  /**
   * A new group with its payments and their outbox items, and the event announcing it: all of
   * them or none; with `also`, the writes it builds for the table too (an occurrence's group and
   * its series' advance: store/series.ts builds them, so that a group's functions never load the
   * series' time rules). A group of this id that exists already refuses the create.
   */
  createGroup(
    group: Group,
    payments: Payment[],
    outbox?: OutboxItem[],
    event?: ServiceEvent,
    also?: AlsoWritten,
  ): Promise<void>;
  /**
   * Removes creates abandoned half-way (write-ahead.ts: groups and series), none started after
   * `deadline` (epoch ms); the ids of those removed.
   */
  sweepAbandonedCreates(now: Date, deadline?: number): Promise<string[]>;
  /**
   * Removes this group if it was left `creating`, with what it wrote (group-create.ts);
   * CreateInProgressError while its write-ahead's lease runs at `now` (its writer may be writing).
   */
  discardCreate(groupId: string, now: Date): Promise<void>;
  /**
   * Writes a pending group's settings with the event announcing them, if the group is as it was
   * read (`previous`: no change announced since, same totals), so a lost update is impossible:
   * false when it changed or is no longer pending (the caller reads it again).
   */
  updateSettings(previous: Group, next: Group, event: ServiceEvent): Promise<boolean>;
  /** Marks a pending group deleted, with its event, if it is as read; false otherwise. */
  markDeleted(previous: Group, now: Date, event: ServiceEvent): Promise<boolean>;
  /** The merchant's groups that pass the filter, at most `max` of them. */
  listGroups(merchantId: string, filter: GroupFilter, max: number): Promise<Group[]>;
  pageGroups(merchantId: string, filter: GroupFilter, page: Page): Promise<{ items: Group[]; total: number }>;
  /**
   * Writes the group's background void-or-refund summary if the stored one is still of generation
   * `expected` (undefined: none yet); false otherwise. A new run claims generation n + 1 this way.
   */
  putVoidOrRefundSummary(
    groupId: string,
    summary: VoidOrRefundSummary,
    expected: number | undefined,
  ): Promise<boolean>;
  /** A request's void-or-refund of the group is done: announced by `group.void_or_refund_completed`. */
  announceVoidOrRefund(groupId: string, now: Date): Promise<void>;
}

/**
 * The group item, read strongly consistent by key (shared with the claim store): a change is
 * decided on the group as it is, never on a replica's older copy; a group still being created
 * (group-create.ts) does not exist yet.
 */
async function readGroup(
  db: DynamoDBDocumentClient,
  tableName: string,
  groupId: string,
): Promise<Group | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName, Key: keys.group(groupId), ConsistentRead: true }),
  );
  return Item?.entity === 'group' && Item.status !== CREATING ? strip<Group>(Item) : undefined;
}

export class DynamoGroupStore implements GroupStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  getGroup(groupId: string): Promise<Group | undefined> {
    return readGroup(this.db, this.tableName, groupId);
  }

  /**
   * Up to 99 payments (100 items with notices, 3 MB as JSON): one transaction. More: written ahead
   * and committed by one conditional write (group-create.ts), all or nothing across a crash.
   */
  async createGroup(
    group: Group,
    payments: Payment[],
    outbox: OutboxItem[] = [],
    event?: ServiceEvent,
    alsoWritten?: AlsoWritten,
  ): Promise<void> {
    const item = groupItem(group);
    const also = alsoWritten ? alsoWritten(this.tableName) : [];
    // Each payment with its method use; each method it names checked once (the fence).
    const profiles = distinctProfiles(payments);
    const many =
      2 + 2 * payments.length + profiles.length + outbox.length + also.length > MAX_TRANSACTION_ITEMS;
    const transactItems = many
      ? []
      : [
          ...profiles.map((profileId) => methodUsable(this.tableName, profileId)),
          {
            Put: { TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' },
          },
          ...payments.flatMap((p) => [
            {
              Put: {
                TableName: this.tableName,
                Item: paymentItem(p),
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            usePut(this.tableName, p),
          ]),
          ...outbox.map((o) => outboxPut(this.tableName, o)),
          ...(event ? [eventPut(this.tableName, event)] : []),
          ...also,
        ];
    if (many || Buffer.byteLength(JSON.stringify(transactItems)) > MAX_TRANSACTION_JSON_BYTES) {
      await createWrittenAhead(this.db, this.tableName, item, group, payments, outbox, event, also);
      return;
    }
    try {
      await this.db.send(new TransactWriteCommand({ TransactItems: transactItems as never }));
    } catch (error) {
      const codes = cancellationCodes(error) ?? [];
      const refused = profiles.filter((_, i) => codes[i] === 'ConditionalCheckFailed');
      if (refused.length > 0)
        throw new MethodUnavailableError(refused.map((id) => parseProfileId(id).savedPaymentMethodId));
      throw error;
    }
  }

  sweepAbandonedCreates(now: Date, deadline?: number): Promise<string[]> {
    return sweepAbandonedCreates(this.db, this.tableName, now, deadline);
  }

  discardCreate(groupId: string, now: Date): Promise<void> {
    return discardCreate(this.db, this.tableName, groupId, now);
  }

  /** Changes a pending group's settings (never its totals or status), as read, with its event. */
  async updateSettings(previous: Group, next: Group, event: ServiceEvent): Promise<boolean> {
    const slot = slotOf(next.scheduleDate, next.scheduleHour);
    return writeAnnounced(
      this.db,
      announcedUpdate(
        this.tableName,
        {
          Key: keys.group(next.paymentGroupId),
          set:
            'scheduleDate = :d, scheduleHour = :h, locationId = :l, transactionInitiator = :ti, ' +
            'surchargeCompliance = :sc, allowPartial = :ap, lastUpdated = :lu, gsi1sk = :g1, gsi2sk = :g2' +
            (next.retryPolicy !== undefined ? ', retryPolicy = :rp' : ''),
          // The event shows the group as written: its totals as read too.
          condition: '#status = :pending AND paymentCount = :pc AND totalCents = :tc',
          names: { '#status': 'status' },
          values: {
            ':d': next.scheduleDate,
            ':h': next.scheduleHour,
            ':l': next.locationId,
            ':ti': next.transactionInitiator,
            ':sc': next.surchargeCompliance,
            ':ap': next.allowPartial,
            ...(next.retryPolicy !== undefined && { ':rp': next.retryPolicy }),
            ':lu': next.lastUpdated,
            ':g1': keys.merchantGroupSort(slot, next.paymentGroupId),
            ':g2': keys.dueSort(slot, next.paymentGroupId),
            ':pending': 'pending',
            ':pc': previous.paymentCount,
            ':tc': previous.totalCents,
          },
        },
        previous.eventSeq,
        event,
      ),
    );
  }

  /** Marks a pending group deleted and takes it out of the due index, with its event. */
  async markDeleted(previous: Group, now: Date, event: ServiceEvent): Promise<boolean> {
    return writeAnnounced(
      this.db,
      announcedUpdate(
        this.tableName,
        {
          Key: keys.group(previous.paymentGroupId),
          set: '#status = :deleted, lastUpdated = :now',
          remove: 'gsi2pk, gsi2sk',
          condition: '#status = :pending AND paymentCount = :pc AND totalCents = :tc',
          names: { '#status': 'status' },
          values: {
            ':deleted': 'deleted',
            ':pending': 'pending',
            ':now': now.toISOString(),
            ':pc': previous.paymentCount,
            ':tc': previous.totalCents,
          },
        },
        previous.eventSeq,
        event,
      ),
    );
  }

  async putVoidOrRefundSummary(
    groupId: string,
    summary: VoidOrRefundSummary,
    expected: number | undefined,
  ): Promise<boolean> {
    if (summary.status === 'done') return this.putFinalSummary(groupId, summary, expected);
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.group(groupId),
          UpdateExpression: 'SET voidOrRefundSummary = :s',
          ConditionExpression:
            expected === undefined
              ? 'attribute_exists(pk) AND attribute_not_exists(voidOrRefundSummary)'
              : 'voidOrRefundSummary.generation = :g',
          ExpressionAttributeValues: { ':s': summary, ...(expected !== undefined && { ':g': expected }) },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /**
   * A background run's final summary, announced by `group.void_or_refund_completed` in the same
   * transaction (read first for the group's event count; a change announced meanwhile is read again).
   */
  private async putFinalSummary(
    groupId: string,
    summary: VoidOrRefundSummary,
    expected: number | undefined,
  ): Promise<boolean> {
    // A lost race (a change announced between read and write) reads again; so many that the
    // attempts run out is a 503 of the background task, which Step Functions retries.
    return withOptimisticRetry(async () => {
      const group = await this.getGroup(groupId);
      const current = group?.voidOrRefundSummary;
      if (!group || current?.generation !== expected || current?.status === 'done') return false;
      const done: Group = { ...group, voidOrRefundSummary: summary, eventSeq: nextSequence(group.eventSeq) };
      const written = await writeAnnounced(
        this.db,
        announcedUpdate(
          this.tableName,
          {
            Key: keys.group(groupId),
            set: 'voidOrRefundSummary = :s',
            condition: 'voidOrRefundSummary.generation = :g',
            values: { ':s': summary, ':g': expected },
          },
          group.eventSeq,
          groupEvent('group.void_or_refund_completed', done, clock.now()),
        ),
      );
      return written || undefined;
    }, GROUP);
  }

  /**
   * Announces a void-or-refund request's end. Racing requests each announce once, in turn: every
   * lost race reads the group again, so ten at once all finish within withOptimisticRetry's attempts.
   */
  async announceVoidOrRefund(groupId: string, now: Date): Promise<void> {
    await withOptimisticRetry(async () => {
      const group = await this.getGroup(groupId);
      if (!group) return true;
      const announced: Group = { ...group, eventSeq: nextSequence(group.eventSeq) };
      const written = await writeAnnounced(
        this.db,
        announcedUpdate(
          this.tableName,
          { Key: keys.group(groupId), set: 'lastReversedAt = :now', values: { ':now': now.toISOString() } },
          group.eventSeq,
          groupEvent('group.void_or_refund_completed', announced, now),
        ),
      );
      return written || undefined;
    }, GROUP);
  }

  /** A merchant's groups by slot (GSI1): one Query, filters on the key where they can be. */
  private groupQuery(merchantId: string, filter: GroupFilter): QueryCommandInput {
    const values: Record<string, unknown> = { ':m': keys.merchantGroups(merchantId) };
    const names: Record<string, string> = {};
    let keyCondition = 'gsi1pk = :m';
    if (filter.date !== undefined) {
      keyCondition += ' AND begins_with(gsi1sk, :slot)';
      values[':slot'] =
        filter.hour !== undefined ? `${slotOf(filter.date, filter.hour)}#` : `${filter.date}T`;
    }
    const filters: string[] = [];
    if (filter.hour !== undefined && filter.date === undefined) {
      filters.push('scheduleHour = :h');
      values[':h'] = filter.hour;
    }
    if (filter.locationId !== undefined) {
      filters.push('locationId = :l');
      values[':l'] = filter.locationId;
    }
    if (filter.pendingOnly) {
      filters.push(filter.startable ? '#status = :pending' : '#status IN (:pending, :processing)');
      names['#status'] = 'status';
      values[':pending'] = 'pending';
      if (!filter.startable) values[':processing'] = 'processing';
    }
    return {
      TableName: this.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: keyCondition,
      ...(filters.length > 0 && { FilterExpression: filters.join(' AND ') }),
      ...(Object.keys(names).length > 0 && { ExpressionAttributeNames: names }),
      ExpressionAttributeValues: values,
    };
  }

  async listGroups(merchantId: string, filter: GroupFilter, max: number): Promise<Group[]> {
    const items = await readAll(this.db, this.groupQuery(merchantId, filter), max);
    return items.map((i) => strip<Group>(i));
  }

  /** One page of a merchant's groups and the total count of the filtered range. */
  async pageGroups(
    merchantId: string,
    filter: GroupFilter,
    page: Page,
  ): Promise<{ items: Group[]; total: number }> {
    const { items, total } = await readPage(this.db, this.groupQuery(merchantId, filter), page);
    return { items: items.map((i) => strip<Group>(i)), total };
  }
}

/** The container's store, on the configured table (made on first use). */
export const groupStore: () => GroupStore = /* @__PURE__ */ containerStore(DynamoGroupStore);
