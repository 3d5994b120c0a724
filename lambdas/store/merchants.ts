/**
 * The merchant registry and client→merchant grants, as table items (keys.ts):
 *
 * - `MID#<8 or 11 digits>` / `MERCHANT`: one item per MID form, both holding the 11-digit MID;
 * - `CLIENT#<clientId>` / `MID#<digits>`: one grant item per MID form, so one GetItem both resolves
 *   the path MID to the 11-digit MID and authorizes the client.
 *
 * - `AUDIT#<yyyy-MM>` / `<at>#<auditId>`: one audit record per grant or revocation (who, when,
 *   what), written in the transaction that makes the change, so a change never goes unrecorded and
 *   a record never names a change that failed.
 *
 * Used by the request middleware (authorize), the operator command and the local seed.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys';
import { readAll } from './paging';
import { clock } from '#shared/clock';

export interface Merchant {
  /** The 11-digit MID records hold. */
  merchantId: string;
  /** The 8-digit short form, when the merchant has one. */
  shortId?: string;
  name: string;
}

/** One grant or revocation as its audit record tells it. */
export interface AuditRecord {
  /** When (ISO 8601, UTC). */
  at: string;
  /** Who: the caller's AWS identity (its ARN) for a stage, the OS user for the local runtime. */
  actor: string;
  action: 'grant' | 'revoke';
  clientId: string;
  /** The 11-digit MID of the merchant, when registered. */
  merchantId: string;
  /** The MID as the operator gave it (8 or 11 digits). */
  mid: string;
  auditId: string;
}

const forms = (m: Merchant): string[] => [m.merchantId, ...(m.shortId ? [m.shortId] : [])];

export class MerchantRegistry {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Registers (or renames) a merchant under both MID forms, in one transaction. */
  async register(merchant: Merchant): Promise<void> {
    if (!/^\d{11}$/.test(merchant.merchantId)) throw new Error('merchantId must have 11 digits');
    if (merchant.shortId !== undefined && !/^\d{8}$/.test(merchant.shortId))
      throw new Error('shortId must have 8 digits');
    await this.db.send(
      new TransactWriteCommand({
        TransactItems: forms(merchant).map((mid) => ({
          Put: {
            TableName: this.tableName,
            Item: {
              ...keys.merchant(mid),
              // The 11-digit form is listed (GSI1 `MERCHANTS`): reconciliation reads every merchant's groups.
              ...(mid === merchant.merchantId && { gsi1pk: keys.merchantList, gsi1sk: mid }),
              entity: 'merchant',
              ...merchant,
            },
            // An 8-digit form must not be taken over from another merchant.
            ConditionExpression: 'attribute_not_exists(pk) OR merchantId = :m',
            ExpressionAttributeValues: { ':m': merchant.merchantId },
          },
        })),
      }),
    );
  }

  async find(mid: string): Promise<Merchant | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.merchant(mid) }),
    );
    return Item ? { merchantId: Item.merchantId, shortId: Item.shortId, name: Item.name } : undefined;
  }

  /**
   * Grants a client a merchant (both MID forms), with its audit record, in one transaction that
   * also checks the merchant is still registered: all of it is written, or nothing.
   */
  async grant(clientId: string, mid: string, actor: string, now = clock.now()): Promise<Merchant> {
    const merchant = await this.find(mid);
    if (!merchant) throw new Error(`merchant ${mid} is not registered`);
    await this.db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            ConditionCheck: {
              TableName: this.tableName,
              Key: keys.merchant(merchant.merchantId),
              ConditionExpression: 'attribute_exists(pk)',
            },
          },
          ...forms(merchant).map((form) => ({
            Put: {
              TableName: this.tableName,
              Item: { ...keys.grant(clientId, form), entity: 'grant', clientId, ...merchant },
            },
          })),
          this.auditPut({ action: 'grant', actor, clientId, merchantId: merchant.merchantId, mid }, now),
        ],
      }),
    );
    return merchant;
  }

  /** Revokes a client's grant of a merchant (both MID forms), with its audit record, in one transaction. */
  async revoke(clientId: string, mid: string, actor: string, now = clock.now()): Promise<void> {
    const merchant = await this.find(mid);
    const all = merchant ? forms(merchant) : [mid];
    await this.db.send(
      new TransactWriteCommand({
        TransactItems: [
          ...all.map((form) => ({ Delete: { TableName: this.tableName, Key: keys.grant(clientId, form) } })),
          this.auditPut(
            { action: 'revoke', actor, clientId, merchantId: merchant?.merchantId ?? mid, mid },
            now,
          ),
        ],
      }),
    );
  }

  private auditPut(what: Omit<AuditRecord, 'at' | 'auditId'>, now: Date) {
    const at = now.toISOString();
    const auditId = randomUUID();
    return {
      Put: {
        TableName: this.tableName,
        Item: { ...keys.audit(at, auditId), entity: 'audit', at, auditId, ...what },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
  }

  /** The audit records from `since` to `until` (ISO 8601), oldest first: one Query per month. */
  async auditTrail(since: string, until: string): Promise<AuditRecord[]> {
    const records: AuditRecord[] = [];
    for (const month of monthsBetween(since, until)) {
      const items = await readAll(this.db, {
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': keys.auditMonth(month), ':from': since, ':to': `${until}~` },
        ConsistentRead: true,
      });
      for (const i of items)
        records.push({
          at: i.at,
          actor: i.actor,
          action: i.action,
          clientId: i.clientId,
          merchantId: i.merchantId,
          mid: i.mid,
          auditId: i.auditId,
        } as AuditRecord);
    }
    return records;
  }

  /** The merchant a client may act for under this path MID, or undefined. */
  async authorized(clientId: string, mid: string): Promise<Merchant | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.grant(clientId, mid) }),
    );
    return Item ? { merchantId: Item.merchantId, shortId: Item.shortId, name: Item.name } : undefined;
  }

  async grantsOf(clientId: string): Promise<Merchant[]> {
    const { Items = [] } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.grant(clientId, '').pk },
      }),
    );
    const byId = new Map(
      Items.map((i) => [
        i.merchantId as string,
        { merchantId: i.merchantId, shortId: i.shortId, name: i.name },
      ]),
    );
    return [...byId.values()];
  }
}

/** The months (`yyyy-MM`) from the one of `since` to the one of `until`, both included. */
export function monthsBetween(since: string, until: string): string[] {
  const months: string[] = [];
  const end = until.slice(0, 7);
  let [year, month] = since.slice(0, 7).split('-').map(Number) as [number, number];
  for (let m = since.slice(0, 7); m <= end;) {
    months.push(m);
    month += 1;
    if (month > 12) [year, month] = [year + 1, 1];
    m = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}`;
  }
  return months;
}
