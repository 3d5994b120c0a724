/**
 * Paged group list: `GET /rest/merchants/{MID}/groups?pageNumber=1&pageSize=25` against the
 * DynamoDB calls the handler makes for it, on a raw client: the (cached) grant lookup, then the
 * paging of GroupStore.pageGroups, run by the store's own lambdas/store/paging.ts `readPage` (a
 * Query on gsi1 with Limit up to the end of the page, then Select COUNT queries for the rest of the
 * merchant's groups), without the handler, the HTTP layer or the runtime.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../lambdas/store/keys';
import { readPage } from '../../lambdas/store/paging';
import { MID, type BenchContext } from '../support/context';
import { grantCache } from './create-payment';
import { compareSection } from './section';

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

  const rawOp = (raw: DynamoDBDocumentClient) => {
    const authorize = grantCache(raw, tableName, config.authzCacheSeconds);
    const input = {
      TableName: tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :m',
      ExpressionAttributeValues: { ':m': keys.merchantGroups(MID) },
    };
    const page = { pageNumber: 1, pageSize: config.pageSize };
    return async () => {
      await authorize(Date.now());
      const { items, total: seen } = await readPage(raw, input, page);
      return items.length === Math.min(page.pageSize, total) && seen === total
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
  cpuTarget: 0.85,
  prepare,
});
