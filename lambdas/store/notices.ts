/**
 * The notices' items (docs/architecture.md "Notices"; core/notices.ts):
 * - a notice's mark `NOTICE#<noticeId>` / `NOTICE`, written with `attribute_not_exists` in the one
 *   transaction that applies it (with its record's change and its event): each notice is applied
 *   once, however often and by however many callers it arrives. A notice that changes nothing
 *   (late, or for a record that is gone) is marked alone, so that a repeat is met as such;
 * - a notice kept until its record appears (`NOTICE#<id>` / `HOLD`, GSI2 `NOTICEHOLD` /
 *   `<retryAt>#<id>`), tried again by the backstop job;
 * - a notice's follow-up work (`NOTICE#<id>` / `FOLLOWUP`, GSI2 `NOTICEFX` / `<dueAt>#<id>`),
 *   written ahead in the notice's transaction and removed when done: what a crash after the
 *   transaction leaves is finished by the backstop job;
 * - the backstop's cursor per processor (`NOTICES` / `CURSOR#<processor>`).
 */
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { NoticeFollowUp, NoticeOutcomeKind, NoticeRef } from '#domain/notices';
import { keys } from './keys';
import { isConditionFailure } from '#shared/ddb';
import { containerStore, epoch, strip, updateIf } from './items';

/** A notice's mark is kept 400 days: longer than any processor re-sends or lists it. */
const MARK_TTL_SECONDS = 400 * 86_400;

/** A notice kept for its record. */
interface HeldNotice<N extends NoticeRef = NoticeRef> {
  notice: N;
  reason: string;
  heldAt: string;
  tries: number;
  retryAt: string;
}

/** A notice's follow-up work. */
interface FollowUpItem {
  noticeId: string;
  work: NoticeFollowUp;
  /** Further steps, done after `work` in order (absent: none). */
  also?: NoticeFollowUp[];
  dueAt: string;
  /** The backstop's passes that could not finish it (absent: none yet). */
  tries?: number;
}

export class NoticeStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** The transaction item that marks a notice applied (fails its condition when it is). */
  markPut(notice: NoticeRef, result: NoticeOutcomeKind, now: Date) {
    return {
      Put: {
        TableName: this.tableName,
        Item: {
          ...keys.notice(notice.noticeId),
          entity: 'notice',
          noticeId: notice.noticeId,
          kind: notice.kind,
          merchantId: notice.merchantId,
          objectId: notice.objectId,
          sequence: notice.sequence,
          result,
          appliedAt: now.toISOString(),
          expiresAt: epoch(now) + MARK_TTL_SECONDS,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
  }

  /** Marks a notice that changes nothing (`stale`, `skipped`): false when it was marked before. */
  async markOnly(notice: NoticeRef, result: NoticeOutcomeKind, now: Date): Promise<boolean> {
    try {
      await this.db.send(new PutCommand(this.markPut(notice, result, now).Put));
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** Whether the notice is marked (applied, or met and found to change nothing). */
  async isMarked(noticeId: string): Promise<boolean> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.notice(noticeId), ConsistentRead: true }),
    );
    return Item !== undefined;
  }

  /**
   * Keeps a notice for its record, to be tried again at `retryAt` (a notice kept before keeps its
   * first `heldAt` and counts one more try).
   */
  async hold<N extends NoticeRef>(
    notice: N,
    reason: string,
    now: Date,
    retryAt: string,
  ): Promise<HeldNotice<N>> {
    const { Attributes } = await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.noticeHold(notice.noticeId),
        UpdateExpression:
          'SET entity = :e, notice = if_not_exists(notice, :n), reason = :r, heldAt = if_not_exists(heldAt, :now), ' +
          'retryAt = :at, gsi2pk = :p, gsi2sk = :s ADD tries :one',
        ExpressionAttributeValues: {
          ':e': 'notice-hold',
          ':n': notice,
          ':r': reason,
          ':now': now.toISOString(),
          ':at': retryAt,
          ':p': keys.noticeHoldPartition,
          ':s': keys.noticeDueSort(retryAt, notice.noticeId),
          ':one': 1,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return strip<HeldNotice<N>>(Attributes!);
  }

  /** A notice kept for its record, if it is. */
  async held<N extends NoticeRef>(noticeId: string): Promise<HeldNotice<N> | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.noticeHold(noticeId), ConsistentRead: true }),
    );
    return Item ? strip<HeldNotice<N>>(Item) : undefined;
  }

  /** The held notices due by `before`, oldest first, at most `limit`. */
  async dueHolds<N extends NoticeRef>(before: string, limit: number): Promise<HeldNotice<N>[]> {
    const { Items } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :p AND gsi2sk < :before',
        ExpressionAttributeValues: { ':p': keys.noticeHoldPartition, ':before': `${before}~` },
        Limit: limit,
      }),
    );
    return (Items ?? []).map((i) => strip<HeldNotice<N>>(i));
  }

  /** A held notice is applied (or given up): it is no longer kept. */
  async dropHold(noticeId: string): Promise<void> {
    await this.db.send(new DeleteCommand({ TableName: this.tableName, Key: keys.noticeHold(noticeId) }));
  }

  /** The transaction item that writes a notice's follow-up work ahead (and its further steps), due at once. */
  followUpPut(noticeId: string, work: NoticeFollowUp, now: Date, also: readonly NoticeFollowUp[] = []) {
    const dueAt = now.toISOString();
    return {
      Put: {
        TableName: this.tableName,
        Item: {
          ...keys.noticeFollowUp(noticeId),
          gsi2pk: keys.noticeFollowUpPartition,
          gsi2sk: keys.noticeDueSort(dueAt, noticeId),
          entity: 'notice-follow-up',
          noticeId,
          work,
          ...(also.length > 0 && { also }),
          dueAt,
        },
      },
    };
  }

  /** A notice's follow-up work, if it is not done yet. */
  async followUp(noticeId: string): Promise<FollowUpItem | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.noticeFollowUp(noticeId), ConsistentRead: true }),
    );
    return Item ? strip<FollowUpItem>(Item) : undefined;
  }

  /** Follow-up work written before `before` and not done, oldest first, at most `limit`. */
  async dueFollowUps(before: string, limit: number): Promise<FollowUpItem[]> {
    const { Items } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :p AND gsi2sk < :before',
        ExpressionAttributeValues: { ':p': keys.noticeFollowUpPartition, ':before': before },
        Limit: limit,
      }),
    );
    return (Items ?? []).map((i) => strip<FollowUpItem>(i));
  }

  /**
   * A pass could not finish the follow-up: it is due again from `dueAt`, its tries counted (false:
   * it was done meanwhile). Its place among the due work moves with it (behind what is due before).
   */
  async followUpLater(noticeId: string, dueAt: string): Promise<boolean> {
    return updateIf(this.db, {
      TableName: this.tableName,
      Key: keys.noticeFollowUp(noticeId),
      UpdateExpression: 'SET dueAt = :due, gsi2sk = :sort ADD tries :one',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':due': dueAt, ':sort': keys.noticeDueSort(dueAt, noticeId), ':one': 1 },
    });
  }

  /** The follow-up work is done (every step of it is idempotent, so a repeat is harmless). */
  async followUpDone(noticeId: string): Promise<void> {
    await this.db.send(new DeleteCommand({ TableName: this.tableName, Key: keys.noticeFollowUp(noticeId) }));
  }

  /** The backstop's cursor for a processor (absent: never run). */
  async cursor(processor: string): Promise<string | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.noticeCursor(processor), ConsistentRead: true }),
    );
    return Item?.cursor as string | undefined;
  }

  /**
   * Moves the cursor from `read` (what the run started from; absent: none) to `next`: a run that
   * lost to a concurrent one leaves the other's (both applied the same notices, each once).
   */
  async advanceCursor(processor: string, read: string | undefined, next: string): Promise<boolean> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...keys.noticeCursor(processor), entity: 'notice-cursor', cursor: next },
          ConditionExpression: read === undefined ? 'attribute_not_exists(pk)' : '#cursor = :read',
          ...(read !== undefined && {
            ExpressionAttributeNames: { '#cursor': 'cursor' },
            ExpressionAttributeValues: { ':read': read },
          }),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}

/** The container's store, on the configured table (made on first use). */
export const noticeStore: () => NoticeStore = /* @__PURE__ */ containerStore(NoticeStore);
