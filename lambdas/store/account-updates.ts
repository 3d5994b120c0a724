/**
 * The account updater's items (core/account-updater.ts):
 * - a method is found by its processor token on GSI2 (`VAULT#<hash>`, store/payor-items.ts);
 * - an applied update leaves its mark `ACCOUNTUPDATE#<updateId>` / `METHOD#<methodId>`, written
 *   with `attribute_not_exists` in the one transaction that changes the method, announces
 *   `payment_method.account_updated` and queues the payor's e-mail: each update is applied once,
 *   however many runs meet it, one after another or at the same time;
 * - the job's cursor (`ACCOUNTUPDATER` / `CURSOR`): the time up to which updates were applied.
 */
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ServiceEvent } from '#domain/events';
import type { OutboxItem } from '#domain/notifications';
import type { SavedMethod } from '#domain/payors';
import { keys } from './keys';
import { READ_LIMITS } from './read-limits';
import { conditionOutcome, isConditionFailure } from '#shared/ddb';
import { containerStore, epoch } from './items';
import { eventPut } from './events';
import { outboxPut } from './outbox';
import { methodItem } from './payor-items';
import { atRevision } from './payors';

const appliedKey = (updateId: string, methodId: string) => ({
  pk: `ACCOUNTUPDATE#${updateId}`,
  sk: `METHOD#${methodId}`,
});
const CURSOR_KEY = { pk: 'ACCOUNTUPDATER', sk: 'CURSOR' };
/** An applied update's mark is kept 90 days (TTL). */
const MARK_TTL_SECONDS = 90 * 86_400;

/** `applied-before`: this update's mark exists; `changed`: the method was written since read (or went). */
type ApplyOutcome = 'ok' | 'applied-before' | 'changed';

export class AccountUpdateStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** The methods vaulted with this token (one, unless the acquirer reuses tokens). */
  async methodsOfToken(
    token: string,
  ): Promise<{ payorId: string; savedPaymentMethodId: string; merchantId: string }[]> {
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :p',
        ExpressionAttributeValues: { ':p': keys.vaultToken(token) },
        ProjectionExpression: 'payorId, savedPaymentMethodId, merchantId',
        Limit: READ_LIMITS.methodsOfToken,
      }),
    );
    return (out.Items ?? []).map((i) => ({
      payorId: i.payorId as string,
      savedPaymentMethodId: i.savedPaymentMethodId as string,
      merchantId: i.merchantId as string,
    }));
  }

  /** Whether the update was applied to the method already. */
  async isApplied(updateId: string, methodId: string): Promise<boolean> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: appliedKey(updateId, methodId),
        ConsistentRead: true,
      }),
    );
    return Item !== undefined;
  }

  /**
   * The update's mark, the method as changed (if still at the revision read: `next.revision - 1`),
   * its event and the payor's e-mail, all or nothing.
   */
  async apply(
    updateId: string,
    next: SavedMethod,
    event: ServiceEvent,
    outbox: OutboxItem | undefined,
    now: Date,
  ): Promise<ApplyOutcome> {
    const seen = atRevision((next.revision ?? 1) - 1);
    const items: object[] = [
      {
        Put: {
          TableName: this.tableName,
          Item: {
            ...appliedKey(updateId, next.savedPaymentMethodId),
            entity: 'account-update',
            updateId,
            payorId: next.payorId,
            savedPaymentMethodId: next.savedPaymentMethodId,
            merchantId: next.merchantId,
            appliedAt: now.toISOString(),
            // Kept well past every window a run reads (its cursor, an hour back; at first 30 days).
            expiresAt: epoch(now) + MARK_TTL_SECONDS,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Put: {
          TableName: this.tableName,
          Item: methodItem(next),
          ConditionExpression: `${seen.ConditionExpression} AND merchantId = :mid`,
          ExpressionAttributeValues: { ...seen.ExpressionAttributeValues, ':mid': next.merchantId },
        },
      },
      eventPut(this.tableName, event),
      ...(outbox ? [outboxPut(this.tableName, outbox)] : []),
    ];
    try {
      await this.db.send(new TransactWriteCommand({ TransactItems: items as never }));
      return 'ok';
    } catch (error) {
      return conditionOutcome<ApplyOutcome>(error, [
        [0, 'applied-before'],
        [1, 'changed'],
      ]);
    }
  }

  /** Where the next run starts: the time up to which updates were applied (absent: never run). */
  async cursor(): Promise<string | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: CURSOR_KEY, ConsistentRead: true }),
    );
    return Item?.until as string | undefined;
  }

  /** Moves the cursor forward to `until` (never back: a slower concurrent run leaves it). */
  async advance(until: string): Promise<void> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...CURSOR_KEY, entity: 'account-updater-cursor', until },
          ConditionExpression: 'attribute_not_exists(pk) OR #until < :until',
          ExpressionAttributeNames: { '#until': 'until' },
          ExpressionAttributeValues: { ':until': until },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
}

/** The container's store, on the configured table (made on first use). */
export const accountUpdateStore: () => AccountUpdateStore =
  /* @__PURE__ */ containerStore(AccountUpdateStore);
