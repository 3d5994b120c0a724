/**
 * The merchant registry and client→merchant grants, as table items (keys.ts):
 *
 * - `MID#<8 or 11 digits>` / `MERCHANT`: one item per MID form, both holding the 11-digit MID: the
 *   forms registered now (a rename drops the old 8-digit form's item);
 * - `CLIENT#<clientId>` / `MID#<11 digits>`: the client's grant of the merchant. A request's MID, of
 *   either form, is resolved by the registry, then the grant of the merchant it names decides: a
 *   grant covers the merchant's 8-digit form whenever it was registered, and a revocation ends
 *   both forms at once. (Grants were once written under each form: revoke removes those too.)
 *
 * - `AUDIT#<yyyy-MM>` / `<at>#<auditId>`: one audit record per grant or revocation (who, when,
 *   what), written in the transaction that makes the change, so a change never goes unrecorded and
 *   a record never names a change that failed.
 *
 * Read by the request middleware (authorize); written by the operator's command and the local seed
 * through MerchantAdmin (store/merchant-admin.ts).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys';

export interface Merchant {
  /** The 11-digit MID records hold. */
  merchantId: string;
  /** The 8-digit short form, when the merchant has one. */
  shortId?: string;
  name: string;
  /**
   * The merchant's account at each processor that keeps one (Stripe: its connected account,
   * `acct_…`), on both MID forms' items; set by store/processor-accounts.ts.
   */
  processorAccounts?: Readonly<Record<string, string>>;
}

export class MerchantRegistry {
  constructor(
    protected readonly db: DynamoDBDocumentClient,
    protected readonly tableName: string,
  ) {}

  async find(mid: string): Promise<Merchant | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.merchant(mid) }),
    );
    return Item
      ? {
          merchantId: Item.merchantId,
          shortId: Item.shortId,
          name: Item.name,
          ...(Item.processorAccounts !== undefined && { processorAccounts: Item.processorAccounts }),
        }
      : undefined;
  }

  /**
   * The merchant a client may act for under this path MID, or undefined: the merchant the registry
   * names under the MID now (either form), if the client holds its grant. An 11-digit MID is the
   * grant's own key: both are read at once; an 8-digit one is resolved first.
   */
  async authorized(clientId: string, mid: string): Promise<Merchant | undefined> {
    const granted = async (merchantId: string) =>
      (
        await this.db.send(
          new GetCommand({ TableName: this.tableName, Key: keys.grant(clientId, merchantId) }),
        )
      ).Item !== undefined;
    const [found, byPath] = await Promise.all([
      this.find(mid),
      /^\d{11}$/.test(mid) ? granted(mid) : undefined,
    ]);
    if (found === undefined) return undefined;
    const { processorAccounts: _accounts, ...merchant } = found;
    const ok =
      byPath !== undefined && merchant.merchantId === mid ? byPath : await granted(merchant.merchantId);
    return ok ? merchant : undefined;
  }
}
