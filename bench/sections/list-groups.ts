/**
 * Paged group list: `GET /rest/merchants/{MID}/groups?pageNumber=1&pageSize=25` against the
 * DynamoDB calls the handler makes for it, done directly with the SDK: the (cached) grant lookup,
 * then lambdas/store/groups.ts `pageGroups`: a Query on gsi1 with Limit up to the end of the page,
 * then Select COUNT queries for the rest of the merchant's groups.
 */
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../lambdas/shared/keys';
import { MID, type BenchContext } from '../support/context';
import { grantCache } from './create-payment';
import { compareSection } from './section';

type Send = DynamoDBDocumentClient['send'];
type Item = Record<string, unknown>;

async function prepare(ctx: BenchContext) {
  const { api, runtime, config } = ctx;
  const tableName = runtime.tableName;
  const existing = await ctx.groupCount();
  if (existing < config.listGroups) await ctx.createGroups(config.listGroups - existing);
  const total = await ctx.groupCount();
  const path = `/rest/merchants/${MID}/groups?pageNumber=1&pageSize=${config.pageSize}`;

  const apiOp = async () => {
    const reply = await api.send('GET', path);
    return reply.status === 200 ? undefined : `${reply.status} ${reply.text.slice(0, 160)}`;
  };

  const rawOp = (send: Send) => {
    const authorize = grantCache(send, tableName, config.authzCacheSeconds);
    const input = {
      TableName: tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :m',
      ExpressionAttributeValues: { ':m': keys.merchantGroups(MID) },
    };
    const start = 0;
    const end = config.pageSize;
    return async () => {
      await authorize(Date.now());
      // GroupStore.pageGroups, page 1
      const items: Item[] = [];
      let seen = 0;
      let ExclusiveStartKey: Item | undefined;
      do {
        const counting = seen >= end;
        const out = await send(
          new QueryCommand({
            ...input,
            ExclusiveStartKey,
            ...(counting ? { Select: 'COUNT' } : { Limit: Math.max(end - seen, 25) }),
          }),
        );
        if (!counting) {
          for (const item of out.Items ?? []) {
            if (seen >= start && seen < end) items.push(item);
            seen++;
          }
        } else {
          seen += out.Count ?? 0;
        }
        ExclusiveStartKey = out.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return items.length === Math.min(end, total) && seen === total
        ? undefined
        : `page ${items.length}/${seen}`;
    };
  };

  return {
    api: apiOp,
    raw: rawOp,
    notes: { merchantGroups: total, pageSize: config.pageSize },
  };
}

export const listGroups = compareSection({
  name: 'list-groups',
  key: 'listGroups',
  title: 'List groups (paged)',
  operation: 'GET /rest/merchants/{MID}/groups?pageNumber=1&pageSize=25',
  prepare,
});
