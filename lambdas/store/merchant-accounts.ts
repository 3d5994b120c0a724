/**
 * The merchants' accounts at a processor as the merchant registry keeps them, read for the
 * processor's adapter (store/processor-accounts.ts writes them; lambdas/core/processor.ts hands
 * this reader to the adapter). The adapter only reads them, and writes the mark of a merchant
 * having vaulted at its account, which fixes the mapping. A merchant's account is kept for the
 * container's life once read: it changes only while the merchant has no methods there, so no
 * charge can meet a changed one; a vaulting reads it afresh after it is done.
 */
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys';
import { readAll } from './paging';

interface MerchantAccounts {
  /** The merchant's account at the processor, or undefined when it has none. */
  accountOf(merchantId: string): Promise<string | undefined>;
  /** Every merchant with an account there: what reconciliation and the account updater read. */
  all(): Promise<readonly { merchantId: string; account: string }[]>;
  /** Before a method is vaulted at `account`: the mark that fixes the merchant's mapping. */
  vaulting(merchantId: string, account: string): Promise<void>;
  /** After vaulting: whether the merchant's account is still `account` (read afresh). */
  stillMapped(merchantId: string, account: string): Promise<boolean>;
  /** The way back: the merchant (11-digit MID) whose account it is, or undefined (kept once found). */
  merchantOf(account: string): Promise<string | undefined>;
}

export function merchantAccountsAt(
  db: DynamoDBDocumentClient,
  tableName: string,
  processor: string,
): MerchantAccounts {
  const known = new Map<string, string>();
  const marked = new Set<string>();
  const owners = new Map<string, string>();
  const read = async (merchantId: string): Promise<string | undefined> => {
    const { Item } = await db.send(
      new GetCommand({
        TableName: tableName,
        Key: keys.merchant(merchantId),
        ProjectionExpression: 'processorAccounts',
        ConsistentRead: true,
      }),
    );
    const account = (Item?.processorAccounts as Record<string, string> | undefined)?.[processor];
    return typeof account === 'string' ? account : undefined;
  };
  return {
    async accountOf(merchantId) {
      const cached = known.get(merchantId);
      if (cached !== undefined) return cached;
      const account = await read(merchantId);
      if (account !== undefined) known.set(merchantId, account);
      return account;
    },
    async all() {
      const items = await readAll(db, {
        TableName: tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.processorAccounts(processor) },
      });
      return items.map((item) => ({
        merchantId: item.merchantId as string,
        account: item.account as string,
      }));
    },
    async vaulting(merchantId, account) {
      const mark = `${merchantId}/${account}`;
      if (marked.has(mark)) return;
      await db.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...keys.processorVault(processor, merchantId, account), entity: 'processor-vault' },
        }),
      );
      marked.add(mark);
    },
    async merchantOf(account) {
      const cached = owners.get(account);
      if (cached !== undefined) return cached;
      const { Item } = await db.send(
        new GetCommand({ TableName: tableName, Key: keys.processorAccount(processor, account) }),
      );
      const merchantId = Item?.merchantId as string | undefined;
      if (merchantId !== undefined) owners.set(account, merchantId);
      return merchantId;
    },
    async stillMapped(merchantId, account) {
      const now = await read(merchantId);
      if (now === account) return true;
      known.delete(merchantId);
      return false;
    },
  };
}
