/**
 * Payors in DynamoDB (their saved methods: `methods.ts`). A payor and its methods share a
 * partition (`PAYOR#id`), so one Query reads a payor whole. Every change is one transaction with
 * conditions; `customerAccountId` is unique per merchant through a `CUSTOMER#mid#id` item written
 * with attribute_not_exists in the same transaction as the payor (two racing creates: one wins).
 */
import { GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys';
import type { ServiceEvent } from '#domain/events';
import { payorEvent, type Payor, type SavedMethod } from '#domain/payors';
import { conditionOutcome } from '#shared/ddb';
import { batchGet, containerStore, strip } from './items';
import { readAll } from './paging';
import { eventPut } from './events';
import { customerPut, methodItem, payorItem } from './payor-items';

/** A write refused because the customerAccountId belongs to another payor of the merchant. */
export type DuplicateCustomer = 'duplicate-customer';

export interface PayorWithMethods {
  payor: Payor;
  methods: SavedMethod[];
}

/** The payor with its methods, if it exists and belongs to the merchant (one Query). */
export async function readPayor(
  db: DynamoDBDocumentClient,
  tableName: string,
  payorId: string,
  merchantId: string,
): Promise<PayorWithMethods | undefined> {
  const items = await readAll(db, {
    TableName: tableName,
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

/** A payor's fields its payments' records copy: its e-mail address (notices) and sponsorKey. */
export interface PayorCopy {
  email?: string;
  sponsorKey?: string;
}

export interface PayorStore {
  /**
   * A new payor with its first method (and customerAccountId entry) and the `payor.created` event
   * announcing both: all or nothing.
   */
  create(payor: Payor, method: SavedMethod): Promise<'ok' | DuplicateCustomer>;
  /** The payor with its methods, if it exists and belongs to the merchant. */
  find(payorId: string, merchantId: string): Promise<PayorWithMethods | undefined>;
  /** E-mail addresses of these payors of the merchant (payors without one are left out). */
  emailsOf(payorIds: string[], merchantId: string): Promise<Map<string, string>>;
  /** What payment records copy of these payors of the merchant (payors not found are left out). */
  copiedBy(payorIds: string[], merchantId: string): Promise<Map<string, PayorCopy>>;
  payorIdByCustomer(merchantId: string, customerAccountId: string): Promise<string | undefined>;
  /** `changed` when the payor item was written since `previous` was read (its revision). */
  update(previous: Payor, next: Payor, event: ServiceEvent): Promise<'ok' | 'changed' | DuplicateCustomer>;
}

export class DynamoPayorStore implements PayorStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(payor: Payor, method: SavedMethod): Promise<'ok' | DuplicateCustomer> {
    // Announced by payor.created, with its first method (no payment_method.created for it).
    const created: Payor = { ...payor, eventSeq: 1 };
    const event = payorEvent('payor.created', created, [method], new Date(payor.dateCreated));
    const items: object[] = [
      {
        Put: {
          TableName: this.tableName,
          Item: payorItem(created),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Put: {
          TableName: this.tableName,
          Item: methodItem(method),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ];
    if (payor.customerAccountId !== undefined) items.push(customerPut(this.tableName, payor));
    items.push(eventPut(this.tableName, event));
    try {
      await this.db.send(new TransactWriteCommand({ TransactItems: items as never }));
      return 'ok';
    } catch (error) {
      return conditionOutcome(error, [[2, 'duplicate-customer']]);
    }
  }

  /** The payor with its methods, if it exists and belongs to the merchant. */
  find(payorId: string, merchantId: string): Promise<PayorWithMethods | undefined> {
    return readPayor(this.db, this.tableName, payorId, merchantId);
  }

  /** E-mail addresses of these payors of the merchant (payors without one are left out). */
  /** These payors' items, of the merchant, with the attributes named (one BatchGet per 100). */
  private async payorItems(payorIds: string[], merchantId: string, projection: string) {
    const ids = [...new Set(payorIds)].map((id) => keys.payor(id));
    const items = await batchGet(this.db, this.tableName, ids, projection);
    return items.filter((i) => i.merchantId === merchantId);
  }

  async emailsOf(payorIds: string[], merchantId: string): Promise<Map<string, string>> {
    const items = await this.payorItems(payorIds, merchantId, 'payorId, merchantId, email');
    return new Map(
      items.filter((i) => typeof i.email === 'string').map((i) => [i.payorId as string, i.email as string]),
    );
  }

  async copiedBy(payorIds: string[], merchantId: string): Promise<Map<string, PayorCopy>> {
    const items = await this.payorItems(payorIds, merchantId, 'payorId, merchantId, email, sponsorKey');
    return new Map(
      items.map((i) => [
        i.payorId as string,
        {
          ...(typeof i.email === 'string' && { email: i.email }),
          ...(typeof i.sponsorKey === 'string' && { sponsorKey: i.sponsorKey }),
        },
      ]),
    );
  }

  async payorIdByCustomer(merchantId: string, customerAccountId: string): Promise<string | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.customer(merchantId, customerAccountId) }),
    );
    return Item?.payorId as string | undefined;
  }

  /**
   * Writes changed payor fields if the payor item is unchanged since read (no write of its own,
   * of a method or of its default came between: each adds one to its revision); moves the
   * uniqueness item.
   */
  async update(
    previous: Payor,
    next: Payor,
    event: ServiceEvent,
  ): Promise<'ok' | 'changed' | DuplicateCustomer> {
    const items: object[] = [
      {
        Put: {
          TableName: this.tableName,
          Item: payorItem({ ...next, revision: (previous.revision ?? 0) + 1, eventSeq: event.sequence }),
          ...atRevision(previous.revision),
        },
      },
    ];
    if (previous.customerAccountId !== next.customerAccountId) {
      if (next.customerAccountId !== undefined) items.push(customerPut(this.tableName, next));
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
    // Last: the customer items' indexes say which refused.
    items.push(eventPut(this.tableName, event));
    try {
      await this.db.send(new TransactWriteCommand({ TransactItems: items as never }));
      return 'ok';
    } catch (error) {
      const takesCustomer =
        next.customerAccountId !== undefined && previous.customerAccountId !== next.customerAccountId;
      return conditionOutcome<'changed' | DuplicateCustomer>(error, [
        ...(takesCustomer ? ([[1, 'duplicate-customer']] as const) : []),
        [0, 'changed'],
      ]);
    }
  }
}

/**
 * The condition that a payor-partition item is still at the revision read (absent is 0: items
 * written before revisions existed).
 */
export function atRevision(seen: number | undefined): {
  ConditionExpression: string;
  ExpressionAttributeValues?: Record<string, number>;
} {
  return seen === undefined || seen === 0
    ? { ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(revision)' }
    : { ConditionExpression: 'revision = :seen', ExpressionAttributeValues: { ':seen': seen } };
}

/** The container's store, on the configured table (made on first use). */
export const payorStore: () => PayorStore = /* @__PURE__ */ containerStore(DynamoPayorStore);
