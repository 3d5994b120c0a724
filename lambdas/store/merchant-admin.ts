/**
 * The operator's side of the merchant registry (bin/admin.ts, the local runtime's seed, the tests):
 * registering and renaming merchants, granting and revoking clients, and the audit trail. Apart
 * from MerchantRegistry, which every API function carries for its authorization (a class is
 * bundled whole): no function writes these items (an IAM Deny on their keys besides).
 */
import { randomUUID } from 'node:crypto';
import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '#shared/clock';
import { keys } from './keys';
import { MerchantRegistry, type Merchant } from './merchants';
import { readAll } from './paging';

/** One grant or revocation as its audit record tells it. */
export interface AuditRecord {
  /** When (ISO 8601, UTC). */
  at: string;
  /** Who: the caller's AWS identity (its ARN) for a stage, the OS user for the local runtime. */
  actor: string;
  /** `processor-account`: the merchant's account at a processor set (store/processor-accounts.ts). */
  action: 'grant' | 'revoke' | 'processor-account';
  /** The client of a grant or revocation (empty for a processor account). */
  clientId: string;
  /** The 11-digit MID of the merchant, when registered. */
  merchantId: string;
  /** The MID as the operator gave it (8 or 11 digits). */
  mid: string;
  auditId: string;
  /** A processor account's processor, account and the account it replaced. */
  processor?: string;
  account?: string;
  previous?: string;
}

const forms = (m: Merchant): string[] => [m.merchantId, ...(m.shortId ? [m.shortId] : [])];

export class MerchantAdmin extends MerchantRegistry {
  /**
   * Registers (or renames) a merchant under both MID forms, in one transaction. A renamed
   * merchant keeps its processor accounts; an 8-digit form it had before and is not given now
   * stops naming it in the same transaction (for every client at once).
   */
  async register(merchant: Merchant): Promise<void> {
    if (!/^\d{11}$/.test(merchant.merchantId)) throw new Error('merchantId must have 11 digits');
    if (merchant.shortId !== undefined && !/^\d{8}$/.test(merchant.shortId))
      throw new Error('shortId must have 8 digits');
    const stored = await this.find(merchant.merchantId);
    const accounts = merchant.processorAccounts ?? stored?.processorAccounts;
    if (accounts !== undefined) merchant = { ...merchant, processorAccounts: accounts };
    const dropped =
      stored?.shortId !== undefined && stored.shortId !== merchant.shortId ? stored.shortId : undefined;
    await this.db.send(
      new TransactWriteCommand({
        TransactItems: [
          ...(dropped === undefined
            ? []
            : [
                {
                  Delete: {
                    TableName: this.tableName,
                    Key: keys.merchant(dropped),
                    ConditionExpression: 'attribute_not_exists(pk) OR merchantId = :m',
                    ExpressionAttributeValues: { ':m': merchant.merchantId },
                  },
                },
              ]),
          ...forms(merchant).map((mid) => ({
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
        ],
      }),
    );
  }

  /**
   * Grants a client a merchant (under its 11-digit MID: every form the registry gives it), with its
   * audit record, in one transaction that also checks the merchant is still registered: all of it
   * is written, or nothing.
   */
  async grant(clientId: string, mid: string, actor: string, now = clock.now()): Promise<Merchant> {
    const found = await this.find(mid);
    if (!found) throw new Error(`merchant ${mid} is not registered`);
    // A grant names the merchant; its processor accounts stay on the registry's items alone.
    const { processorAccounts: _accounts, ...merchant } = found;
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
          {
            Put: {
              TableName: this.tableName,
              Item: { ...keys.grant(clientId, merchant.merchantId), entity: 'grant', clientId, ...merchant },
            },
          },
          this.auditPut({ action: 'grant', actor, clientId, merchantId: merchant.merchantId, mid }, now),
        ],
      }),
    );
    return merchant;
  }

  /**
   * Revokes a client's grant of a merchant, with its audit record, in one transaction: its grant
   * item and any other of the client's naming the merchant (one an earlier version wrote under an
   * 8-digit form, which may no longer be the merchant's). False, and nothing written, when the
   * client holds no grant of it (a mistyped client id, or a second run): no revocation to record.
   */
  async revoke(clientId: string, mid: string, actor: string, now = clock.now()): Promise<boolean> {
    const merchant = await this.find(mid);
    const merchantId = merchant?.merchantId ?? mid;
    const pk = keys.grant(clientId, '').pk;
    const asMid = keys.grant(clientId, mid).sk;
    const held = (await this.grantItems(clientId))
      .filter((i) => i.merchantId === merchantId || i.sk === asMid)
      .map((i) => i.sk);
    if (held.length === 0) return false;
    await this.db.send(
      new TransactWriteCommand({
        TransactItems: [
          ...held.map((sk) => ({ Delete: { TableName: this.tableName, Key: { pk, sk } } })),
          this.auditPut({ action: 'revoke', actor, clientId, merchantId, mid }, now),
        ],
      }),
    );
    return true;
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
          ...(i.processor !== undefined && { processor: i.processor, account: i.account }),
          ...(i.previous !== undefined && { previous: i.previous }),
        } as AuditRecord);
    }
    return records;
  }

  /** The client's grant items, as stored. */
  private async grantItems(
    clientId: string,
  ): Promise<{ sk: string; merchantId: string; shortId?: string; name: string }[]> {
    const { Items = [] } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.grant(clientId, '').pk },
        ConsistentRead: true,
      }),
    );
    return Items as { sk: string; merchantId: string; shortId?: string; name: string }[];
  }

  async grantsOf(clientId: string): Promise<Merchant[]> {
    const Items = await this.grantItems(clientId);
    const byId = new Map(
      Items.map((i) => [i.merchantId, { merchantId: i.merchantId, shortId: i.shortId, name: i.name }]),
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
