/**
 * The merchant registry and client→merchant grants, as table items (keys.ts):
 *
 * - `MID#<8 or 11 digits>` / `MERCHANT`: one item per MID form, both holding the 11-digit MID;
 * - `CLIENT#<clientId>` / `MID#<digits>`: one grant item per MID form, so one GetItem both resolves
 *   the path MID to the 11-digit MID and authorizes the client.
 *
 * Used by the request middleware (authorize), the operator command and the local seed.
 */
import { DeleteCommand, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '#shared/keys';

export interface Merchant {
  /** The 11-digit MID records hold. */
  merchantId: string;
  /** The 8-digit short form, when the merchant has one. */
  shortId?: string;
  name: string;
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

  async grant(clientId: string, mid: string): Promise<Merchant> {
    const merchant = await this.find(mid);
    if (!merchant) throw new Error(`merchant ${mid} is not registered`);
    await this.db.send(
      new TransactWriteCommand({
        TransactItems: forms(merchant).map((form) => ({
          Put: {
            TableName: this.tableName,
            Item: { ...keys.grant(clientId, form), entity: 'grant', clientId, ...merchant },
          },
        })),
      }),
    );
    return merchant;
  }

  async revoke(clientId: string, mid: string): Promise<void> {
    const merchant = await this.find(mid);
    const all = merchant ? forms(merchant) : [mid];
    await Promise.all(
      all.map((form) =>
        this.db.send(new DeleteCommand({ TableName: this.tableName, Key: keys.grant(clientId, form) })),
      ),
    );
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
