/**
 * Saved payment methods in DynamoDB, in their payor's partition. Every change is one
 * transaction with the payor item:
 * - the default method is the payor's `defaultPaymentMethodId`, changed only together with a
 *   condition that the new default exists;
 * - `methodCount` < the limit is the condition for adding one.
 * Deleting a method (`methodCount` > 1 its condition, so the last one never goes) is written
 * ahead with the moves of its payments: method-deletions.ts.
 */
import { GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { MAX_METHODS_PER_PAYOR } from '#contract/limits';
import { keys } from './keys';
import type { ServiceEvent } from '#domain/events';
import type { SavedMethod } from '#domain/payors';
import { conditionOutcome } from '#shared/ddb';
import { batchGet, containerStore, strip } from './items';
import { eventPut } from './events';
import { methodItem } from './payor-items';
import { atRevision, readPayor } from './payors';

/**
 * What a scheduled payment needs of the method it names: its notice's mask and type, and whether
 * it may take payments (its status, its deletion mark).
 */
export type MethodRef = Pick<
  SavedMethod,
  'payorId' | 'savedPaymentMethodId' | 'maskedAccountNumber' | 'accountType' | 'status' | 'deletion'
>;

export interface MethodStore {
  findMethod(payorId: string, methodId: string, merchantId: string): Promise<SavedMethod | undefined>;
  /** The method and its payor's default method id (one consistent read of the payor's partition). */
  findWithDefault(
    payorId: string,
    methodId: string,
    merchantId: string,
  ): Promise<{ method: SavedMethod; defaultId: string } | undefined>;
  /** The merchant's methods these references name, keyed `payorId/methodId`. */
  methodsByRef(
    refs: { payorId: string; savedPaymentMethodId: string }[],
    merchantId: string,
  ): Promise<Map<string, MethodRef>>;
  /** `limit-reached`: the payor holds MAX_METHODS_PER_PAYOR already. */
  addMethod(
    method: SavedMethod,
    setAsDefault: boolean,
    now: Date,
    event: ServiceEvent,
  ): Promise<'ok' | 'payor-not-found' | 'limit-reached'>;
  /**
   * Writes a method's new fields if it is still at the revision read (`next.revision - 1`);
   * `changed` when another update came between (the caller reads it again).
   */
  updateMethod(
    next: SavedMethod,
    setAsDefault: boolean,
    event: ServiceEvent,
  ): Promise<'ok' | 'changed' | 'method-not-found' | 'payor-not-found'>;
}

export class DynamoMethodStore implements MethodStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** A saved method (with its payor's default id) if it is this merchant's. */
  async findMethod(payorId: string, methodId: string, merchantId: string): Promise<SavedMethod | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.method(payorId, methodId),
        // Changes are decided on the method as it is, never on a replica's older copy.
        ConsistentRead: true,
      }),
    );
    return Item?.entity === 'method' && Item.merchantId === merchantId ? strip<SavedMethod>(Item) : undefined;
  }

  async findWithDefault(
    payorId: string,
    methodId: string,
    merchantId: string,
  ): Promise<{ method: SavedMethod; defaultId: string } | undefined> {
    const found = await readPayor(this.db, this.tableName, payorId, merchantId);
    const method = found?.methods.find((m) => m.savedPaymentMethodId === methodId);
    return found && method ? { method, defaultId: found.payor.defaultPaymentMethodId } : undefined;
  }

  /**
   * The saved methods (mask and type only) these `{payorId}/{methodId}` references name among the
   * merchant's, keyed `payorId/methodId`; a reference not in the result names none.
   */
  async methodsByRef(
    refs: { payorId: string; savedPaymentMethodId: string }[],
    merchantId: string,
  ): Promise<Map<string, MethodRef>> {
    const unique = [...new Map(refs.map((r) => [`${r.payorId}/${r.savedPaymentMethodId}`, r])).values()];
    const items = await batchGet(
      this.db,
      this.tableName,
      unique.map((r) => keys.method(r.payorId, r.savedPaymentMethodId)),
      'payorId, savedPaymentMethodId, merchantId, maskedAccountNumber, accountType, #status, deletion',
      { '#status': 'status' },
    );
    const found = new Map<string, MethodRef>();
    for (const item of items) {
      if (item.merchantId !== merchantId) continue;
      const method = strip<SavedMethod>(item);
      found.set(`${method.payorId}/${method.savedPaymentMethodId}`, method);
    }
    return found;
  }

  /** Adds a method; it becomes the default only when `setAsDefault`. */
  async addMethod(
    method: SavedMethod,
    setAsDefault: boolean,
    now: Date,
    event: ServiceEvent,
  ): Promise<'ok' | 'payor-not-found' | 'limit-reached'> {
    const update = setAsDefault
      ? 'ADD methodCount :one, revision :one SET lastUpdated = :now, defaultPaymentMethodId = :m'
      : 'ADD methodCount :one, revision :one SET lastUpdated = :now';
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.tableName,
                Item: methodItem({ ...method, eventSeq: event.sequence }),
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            {
              Update: {
                TableName: this.tableName,
                Key: keys.payor(method.payorId),
                UpdateExpression: update,
                ConditionExpression: 'merchantId = :mid AND methodCount < :max',
                ExpressionAttributeValues: {
                  ':one': 1,
                  ':now': now.toISOString(),
                  ':mid': method.merchantId,
                  ':max': MAX_METHODS_PER_PAYOR,
                  ...(setAsDefault && { ':m': method.savedPaymentMethodId }),
                },
              },
            },
            eventPut(this.tableName, event),
          ],
        }),
      );
      return 'ok';
    } catch (error) {
      // The payor refused it: full, or gone.
      conditionOutcome(error, [[1, 'refused']]);
      const found = await readPayor(this.db, this.tableName, method.payorId, method.merchantId);
      return found ? 'limit-reached' : 'payor-not-found';
    }
  }

  /** Replaces a method's mutable fields and, with `setAsDefault`, makes it the default: one transaction. */
  async updateMethod(
    next: SavedMethod,
    setAsDefault: boolean,
    event: ServiceEvent,
  ): Promise<'ok' | 'changed' | 'method-not-found' | 'payor-not-found'> {
    const seen = atRevision((next.revision ?? 1) - 1);
    const items: object[] = [
      {
        Put: {
          TableName: this.tableName,
          Item: methodItem(next),
          ConditionExpression: `${seen.ConditionExpression} AND merchantId = :mid`,
          ExpressionAttributeValues: { ...seen.ExpressionAttributeValues, ':mid': next.merchantId },
        },
      },
    ];
    if (setAsDefault) {
      items.push({
        Update: {
          TableName: this.tableName,
          Key: keys.payor(next.payorId),
          UpdateExpression: 'SET defaultPaymentMethodId = :m, lastUpdated = :now ADD revision :one',
          ConditionExpression: 'merchantId = :mid',
          ExpressionAttributeValues: {
            ':m': next.savedPaymentMethodId,
            ':now': next.lastUpdated,
            ':mid': next.merchantId,
            ':one': 1,
          },
        },
      });
    }
    items.push(eventPut(this.tableName, event));
    try {
      await this.db.send(new TransactWriteCommand({ TransactItems: items as never }));
      return 'ok';
    } catch (error) {
      const outcome = conditionOutcome(error, [
        [0, 'method-changed' as const],
        [1, 'payor-not-found' as const],
      ]);
      if (outcome !== 'method-changed') return outcome;
      // Gone, or changed since read (its revision): the caller reads it again.
      const current = await this.findMethod(next.payorId, next.savedPaymentMethodId, next.merchantId);
      return current ? 'changed' : 'method-not-found';
    }
  }
}

/** The container's store, on the configured table (made on first use). */
export const methodStore: () => MethodStore = /* @__PURE__ */ containerStore(DynamoMethodStore);
