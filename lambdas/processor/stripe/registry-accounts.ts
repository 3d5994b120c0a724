/**
 * The merchants' Stripe connected accounts as the merchant registry keeps them
 * (store/processor-accounts.ts writes them; the adapter only reads them, and writes the mark of a
 * merchant having vaulted at its account). A merchant's account is kept for the container's life
 * once read: it changes only while the merchant has no methods there, so no charge can meet a
 * changed one; a vaulting reads it afresh after it is done.
 */
import { GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '#store/keys';
import type { ConnectedAccounts } from './accounts';

const PROCESSOR = 'stripe';

export function registryAccounts(db: DynamoDBDocumentClient, tableName: string): ConnectedAccounts {
  const known = new Map<string, string>();
  const marked = new Set<string>();
  const read = async (merchantId: string): Promise<string | undefined> => {
    const { Item } = await db.send(
      new GetCommand({
        TableName: tableName,
        Key: keys.merchant(merchantId),
        ProjectionExpression: 'processorAccounts',
        ConsistentRead: true,
      }),
    );
    const account = (Item?.processorAccounts as Record<string, string> | undefined)?.[PROCESSOR];
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
      const found: { merchantId: string; account: string }[] = [];
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await db.send(
          new QueryCommand({
            TableName: tableName,
            IndexName: 'gsi1',
            KeyConditionExpression: 'gsi1pk = :pk',
            ExpressionAttributeValues: { ':pk': keys.processorAccounts(PROCESSOR) },
            ExclusiveStartKey,
          }),
        );
        for (const item of page.Items ?? [])
          found.push({ merchantId: item.merchantId as string, account: item.account as string });
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey !== undefined);
      return found;
    },
    async vaulting(merchantId, account) {
      const mark = `${merchantId}/${account}`;
      if (marked.has(mark)) return;
      await db.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...keys.processorVault(PROCESSOR, merchantId, account), entity: 'processor-vault' },
        }),
      );
      marked.add(mark);
    },
    async stillMapped(merchantId, account) {
      const now = await read(merchantId);
      if (now === account) return true;
      known.delete(merchantId);
      return false;
    },
  };
}
