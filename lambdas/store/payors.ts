/**
 * Payors and their saved methods in DynamoDB. A payor and its methods share a partition
 * (`PAYOR#id`), so one Query reads a payor whole. Every change is one transaction with
 * conditions:
 * - `customerAccountId` is unique per merchant through a `CUSTOMER#mid#id` item written with
 *   attribute_not_exists in the same transaction as the payor (two racing creates: one wins);
 * - the default method is the payor's `defaultPaymentMethodId`, changed only together with a
 *   condition that the new default exists;
 * - `methodCount` > 1 is the condition for deleting a method, so the last one never goes.
 */
import {
  BatchGetCommand,
  GetCommand,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { config } from '#shared/config';
import { cancellationCodes, ddb } from '#shared/ddb';
import { BadRequestError, NotFoundError, ServiceUnavailableError } from '#shared/errors';
import { keys } from '#shared/keys';
import { MAX_METHODS_PER_PAYOR } from '#contract/limits';
import type { Payor, SavedMethod } from '#domain/payors';
import { queryAll, strip, type Item } from './items';

export class PayorNotFoundError extends NotFoundError {
  constructor(payorId: string) {
    super(`payor ${payorId} not found`);
  }
}

export class MethodNotFoundError extends NotFoundError {
  constructor(methodId: string) {
    super(`saved payment method ${methodId} not found`);
  }
}

export class DuplicateCustomerAccountIdError extends BadRequestError {
  constructor(customerAccountId: string) {
    super(`customerAccountId ${customerAccountId} already belongs to another payor of this merchant`);
  }
}

export interface PayorWithMethods {
  payor: Payor;
  methods: SavedMethod[];
}

export class PayorStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  private payorItem = (p: Payor): Item => ({ ...keys.payor(p.payorId), entity: 'payor', ...p });
  private methodItem = (m: SavedMethod): Item => ({
    ...keys.method(m.payorId, m.savedPaymentMethodId),
    entity: 'method',
    ...m,
  });
  private customerPut(p: Payor) {
    return {
      Put: {
        TableName: this.tableName,
        Item: {
          ...keys.customer(p.merchantId, p.customerAccountId!),
          entity: 'customer',
          payorId: p.payorId,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
  }

  async create(payor: Payor, method: SavedMethod): Promise<void> {
    const items: object[] = [
      {
        Put: {
          TableName: this.tableName,
          Item: this.payorItem(payor),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Put: {
          TableName: this.tableName,
          Item: this.methodItem(method),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ];
    if (payor.customerAccountId !== undefined) items.push(this.customerPut(payor));
    try {
      await this.db.send(new TransactWriteCommand({ TransactItems: items as never }));
    } catch (error) {
      if (cancellationCodes(error)?.[2] === 'ConditionalCheckFailed') {
        throw new DuplicateCustomerAccountIdError(payor.customerAccountId!);
      }
      throw error;
    }
  }

  /** The payor with its methods, if it exists and belongs to the merchant. */
  async find(payorId: string, merchantId: string): Promise<PayorWithMethods | undefined> {
    const items = await queryAll(this.db, {
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.payor(payorId).pk },
      ConsistentRead: true,
    });
    const payorItem = items.find((i) => i.entity === 'payor');
    if (!payorItem || payorItem.merchantId !== merchantId) return undefined;
    return {
      payor: strip<Payor>(payorItem),
      methods: items.filter((i) => i.entity === 'method').map((i) => strip<SavedMethod>(i)),
    };
  }

  async require(payorId: string, merchantId: string): Promise<PayorWithMethods> {
    const found = await this.find(payorId, merchantId);
    if (!found) throw new PayorNotFoundError(payorId);
    return found;
  }

  /** A saved method (with its payor's default id) if it is this merchant's. */
  async findMethod(payorId: string, methodId: string, merchantId: string): Promise<SavedMethod | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.method(payorId, methodId) }),
    );
    return Item?.entity === 'method' && Item.merchantId === merchantId ? strip<SavedMethod>(Item) : undefined;
  }

  /**
   * The saved methods (mask and type only) these `{payorId}/{methodId}` references name among the
   * merchant's, keyed `payorId/methodId`; a reference not in the result names none.
   */
  async methodsByRef(
    refs: { payorId: string; savedPaymentMethodId: string }[],
    merchantId: string,
  ): Promise<
    Map<string, Pick<SavedMethod, 'payorId' | 'savedPaymentMethodId' | 'maskedAccountNumber' | 'accountType'>>
  > {
    const unique = [...new Map(refs.map((r) => [`${r.payorId}/${r.savedPaymentMethodId}`, r])).values()];
    const items = await this.batchGet(
      unique.map((r) => keys.method(r.payorId, r.savedPaymentMethodId)),
      'payorId, savedPaymentMethodId, merchantId, maskedAccountNumber, accountType',
    );
    const found = new Map<
      string,
      Pick<SavedMethod, 'payorId' | 'savedPaymentMethodId' | 'maskedAccountNumber' | 'accountType'>
    >();
    for (const item of items) {
      if (item.merchantId !== merchantId) continue;
      const method = strip<SavedMethod>(item);
      found.set(`${method.payorId}/${method.savedPaymentMethodId}`, method);
    }
    return found;
  }

  /** E-mail addresses of these payors of the merchant (payors without one are left out). */
  async emailsOf(payorIds: string[], merchantId: string): Promise<Map<string, string>> {
    const items = await this.batchGet(
      [...new Set(payorIds)].map((id) => keys.payor(id)),
      'payorId, merchantId, email',
    );
    return new Map(
      items
        .filter((i) => i.merchantId === merchantId && typeof i.email === 'string')
        .map((i) => [i.payorId as string, i.email as string]),
    );
  }

  /** BatchGet in chunks of 100, asking again (with backoff, bounded) for unprocessed keys. */
  private async batchGet(keyList: Item[], projection: string): Promise<Item[]> {
    const found: Item[] = [];
    for (let i = 0; i < keyList.length; i += 100) {
      let request: Record<string, { Keys: Item[]; ProjectionExpression?: string }> | undefined = {
        [this.tableName]: { Keys: keyList.slice(i, i + 100), ProjectionExpression: projection },
      };
      for (let attempt = 0; request && Object.keys(request).length > 0; attempt++) {
        if (attempt > 8)
          throw new ServiceUnavailableError('could not read the saved payment methods; retry the request');
        if (attempt > 0) await new Promise((r) => setTimeout(r, 2 ** attempt * 10));
        const out = await this.db.send(new BatchGetCommand({ RequestItems: request }));
        found.push(...(out.Responses?.[this.tableName] ?? []));
        request = out.UnprocessedKeys as typeof request;
      }
    }
    return found;
  }

  async payorIdByCustomer(merchantId: string, customerAccountId: string): Promise<string | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.customer(merchantId, customerAccountId) }),
    );
    return Item?.payorId as string | undefined;
  }

  /** Writes changed payor fields if the payor is unchanged since read; moves the uniqueness item. */
  async update(previous: Payor, next: Payor): Promise<boolean> {
    const items: object[] = [
      {
        Put: {
          TableName: this.tableName,
          Item: this.payorItem(next),
          ConditionExpression: 'lastUpdated = :lu AND defaultPaymentMethodId = :d AND methodCount = :n',
          ExpressionAttributeValues: {
            ':lu': previous.lastUpdated,
            ':d': previous.defaultPaymentMethodId,
            ':n': previous.methodCount,
          },
        },
      },
    ];
    if (previous.customerAccountId !== next.customerAccountId) {
      if (next.customerAccountId !== undefined) items.push(this.customerPut(next));
      if (previous.customerAccountId !== undefined) {
        items.push({
          Delete: {
            TableName: this.tableName,
            Key: keys.customer(previous.merchantId, previous.customerAccountId),
            ConditionExpression: 'payorId = :me',
            ExpressionAttributeValues: { ':me': previous.payorId },
          },
        });
      }
    }
    try {
      await this.db.send(new TransactWriteCommand({ TransactItems: items as never }));
      return true;
    } catch (error) {
      const codes = cancellationCodes(error);
      if (
        next.customerAccountId !== undefined &&
        codes?.[1] === 'ConditionalCheckFailed' &&
        previous.customerAccountId !== next.customerAccountId
      ) {
        throw new DuplicateCustomerAccountIdError(next.customerAccountId);
      }
      if (codes?.[0] === 'ConditionalCheckFailed') return false;
      throw error;
    }
  }

  /** Deletes a payor, all its methods and its customerAccountId entry, if unchanged since read. */
  async delete(found: PayorWithMethods): Promise<boolean> {
    const { payor, methods } = found;
    const items: object[] = [
      {
        Delete: {
          TableName: this.tableName,
          Key: keys.payor(payor.payorId),
          ConditionExpression: 'methodCount = :n AND lastUpdated = :lu',
          ExpressionAttributeValues: { ':n': methods.length, ':lu': payor.lastUpdated },
        },
      },
      ...methods.map((m) => ({
        Delete: { TableName: this.tableName, Key: keys.method(m.payorId, m.savedPaymentMethodId) },
      })),
    ];
    if (payor.customerAccountId !== undefined) {
      items.push({
        Delete: { TableName: this.tableName, Key: keys.customer(payor.merchantId, payor.customerAccountId) },
      });
    }
    try {
      await this.db.send(new TransactWriteCommand({ TransactItems: items as never }));
      return true;
    } catch (error) {
      if (cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') return false;
      throw error;
    }
  }

  /** Adds a method; it becomes the default only when `setAsDefault`. */
  async addMethod(method: SavedMethod, setAsDefault: boolean, now: Date): Promise<void> {
    const update = setAsDefault
      ? 'ADD methodCount :one SET lastUpdated = :now, defaultPaymentMethodId = :m'
      : 'ADD methodCount :one SET lastUpdated = :now';
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.tableName,
                Item: this.methodItem(method),
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
          ],
        }),
      );
    } catch (error) {
      if (cancellationCodes(error)?.[1] === 'ConditionalCheckFailed') {
        const found = await this.find(method.payorId, method.merchantId);
        if (!found) throw new PayorNotFoundError(method.payorId);
        throw new BadRequestError(`a payor can have at most ${MAX_METHODS_PER_PAYOR} saved payment methods`);
      }
      throw error;
    }
  }

  /** Replaces a method's mutable fields and, with `setAsDefault`, makes it the default: one transaction. */
  async updateMethod(next: SavedMethod, setAsDefault: boolean): Promise<void> {
    const items: object[] = [
      {
        Put: {
          TableName: this.tableName,
          Item: this.methodItem(next),
          ConditionExpression: 'attribute_exists(pk) AND merchantId = :mid',
          ExpressionAttributeValues: { ':mid': next.merchantId },
        },
      },
    ];
    if (setAsDefault) {
      items.push({
        Update: {
          TableName: this.tableName,
          Key: keys.payor(next.payorId),
          UpdateExpression: 'SET defaultPaymentMethodId = :m, lastUpdated = :now',
          ConditionExpression: 'merchantId = :mid',
          ExpressionAttributeValues: {
            ':m': next.savedPaymentMethodId,
            ':now': next.lastUpdated,
            ':mid': next.merchantId,
          },
        },
      });
    }
    try {
      await this.db.send(new TransactWriteCommand({ TransactItems: items as never }));
    } catch (error) {
      const codes = cancellationCodes(error);
      if (codes?.[0] === 'ConditionalCheckFailed') throw new MethodNotFoundError(next.savedPaymentMethodId);
      if (codes?.[1] === 'ConditionalCheckFailed') throw new PayorNotFoundError(next.payorId);
      throw error;
    }
  }

  /**
   * Deletes a method. Refused (400) when it is the only one. When it is the default, the
   * replacement becomes default in the same transaction, on the condition that the payor still
   * names the deleted method as default and the replacement still exists. Returns false when the
   * payor changed since read (the caller re-reads and retries).
   */
  async deleteMethod(payor: Payor, methodId: string, replacement: string | undefined): Promise<boolean> {
    const isDefault = payor.defaultPaymentMethodId === methodId;
    const items: object[] = [
      {
        Delete: {
          TableName: this.tableName,
          Key: keys.method(payor.payorId, methodId),
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
      {
        Update: {
          TableName: this.tableName,
          Key: keys.payor(payor.payorId),
          UpdateExpression: isDefault
            ? 'ADD methodCount :minus SET defaultPaymentMethodId = :r, lastUpdated = :now'
            : 'ADD methodCount :minus SET lastUpdated = :now',
          ConditionExpression: isDefault
            ? 'methodCount > :one AND defaultPaymentMethodId = :m'
            : 'methodCount > :one AND defaultPaymentMethodId <> :m',
          ExpressionAttributeValues: {
            ':minus': -1,
            ':one': 1,
            ':m': methodId,
            ':now': new Date().toISOString(),
            ...(isDefault && { ':r': replacement }),
          },
        },
      },
    ];
    if (isDefault) {
      if (!replacement)
        throw new BadRequestError('the only saved payment method of a payor cannot be deleted');
      items.push({
        ConditionCheck: {
          TableName: this.tableName,
          Key: keys.method(payor.payorId, replacement),
          ConditionExpression: 'attribute_exists(pk)',
        },
      });
    }
    try {
      await this.db.send(new TransactWriteCommand({ TransactItems: items as never }));
      return true;
    } catch (error) {
      const codes = cancellationCodes(error);
      if (codes?.[0] === 'ConditionalCheckFailed') throw new MethodNotFoundError(methodId);
      if (codes?.some((c) => c === 'ConditionalCheckFailed')) return false;
      throw error;
    }
  }
}

let store: PayorStore | undefined;
export function payorStore(): PayorStore {
  store ??= new PayorStore(ddb(), config().tableName);
  return store;
}
