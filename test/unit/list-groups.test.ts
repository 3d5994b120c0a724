import '#support/handlers/env';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Group } from '#domain/groups';
import { groupItem } from '#store/groups';
import { handler as listGroups } from '#lambdas/groups/list-groups';
import { handler as listPendingGroups } from '#lambdas/groups/list-pending-groups';
import {
  ddbMock,
  expectError,
  group,
  invoke,
  MID,
  resetDb,
  sentCommands,
  SHORT_MID,
} from '#support/handlers/invoke';

type AnyItem = Record<string, any>;

const groups: Group[] = Array.from({ length: 7 }, (_, i) =>
  group({
    paymentGroupId: `01890a5d-ac96-774b-bcce-b302099a80${String(i).padStart(2, '0')}`,
    scheduleHour: i,
    totalCents: 100 * (i + 1) + 1,
  }),
);
const items = groups.map(groupItem);

/** Serves the group items page by page (pageSize items per response), honouring Limit and Select COUNT. */
function serveGroups(all: Record<string, unknown>[] = items, pageSize = 3): void {
  ddbMock
    .on(QueryCommand)
    .callsFake((input: { ExclusiveStartKey?: { i: number }; Limit?: number; Select?: string }) => {
      const start = input.ExclusiveStartKey?.i ?? 0;
      const end = Math.min(all.length, start + Math.min(pageSize, input.Limit ?? Infinity));
      const slice = all.slice(start, end);
      const more = end < all.length ? { LastEvaluatedKey: { i: end } } : {};
      return input.Select === 'COUNT'
        ? { Count: slice.length, ...more }
        : { Items: slice, Count: slice.length, ...more };
    });
}

const queries = () => ddbMock.commandCalls(QueryCommand).map((c) => c.args[0].input);
const list = (query?: Record<string, string>, handler: unknown = listGroups) =>
  invoke(handler, { pathParameters: { MID }, query });

beforeEach(() => {
  resetDb();
});

describe.each([
  ['GET /groups', listGroups],
  ['GET /merchants/{MID} (pending)', listPendingGroups],
])('%s', (_name, handler) => {
  it('answers a plain JSON array without paging parameters, reading every page', async () => {
    serveGroups();
    const response = await list(undefined, handler);
    expect(response.status).toBe(200);
    expect(Array.isArray(response.body)).toBe(true);
    expect(response.body.map((g: AnyItem) => g.paymentGroupId)).toEqual(groups.map((g) => g.paymentGroupId));
    expect(response.body[2]).toMatchObject({ servicePayId: MID, totalAmount: 3.01, deleted: false });
    expect(response.body[0]).not.toHaveProperty('gsi1pk');
    expect(queries()).toHaveLength(3);
  });

  it('answers the envelope with pageSize only (pageNumber defaults to 1)', async () => {
    serveGroups();
    const response = await list({ pageSize: '2' }, handler);
    expect(response.status).toBe(200);
    expect(response.body.meta).toEqual({ page: 1, pageSize: 2, totalItems: 7, totalPages: 4 });
    expect(response.body.items.map((g: AnyItem) => g.scheduleHour)).toEqual([0, 1]);
  });

  it('answers the envelope with pageNumber only (pageSize defaults to 25)', async () => {
    serveGroups();
    const response = await list({ pageNumber: '1' }, handler);
    expect(response.body.meta).toEqual({ page: 1, pageSize: 25, totalItems: 7, totalPages: 1 });
    expect(response.body.items).toHaveLength(7);
  });

  it('answers the requested page and counts the rest', async () => {
    serveGroups();
    const response = await list({ pageNumber: '2', pageSize: '3' }, handler);
    expect(response.body.meta).toEqual({ page: 2, pageSize: 3, totalItems: 7, totalPages: 3 });
    expect(response.body.items.map((g: AnyItem) => g.scheduleHour)).toEqual([3, 4, 5]);
  });

  it('answers items [] for a page past the end', async () => {
    serveGroups();
    const response = await list({ pageNumber: '9', pageSize: '5' }, handler);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      meta: { page: 9, pageSize: 5, totalItems: 7, totalPages: 2 },
      items: [],
    });
  });

  it('answers an empty list and an empty envelope for a merchant without groups', async () => {
    serveGroups([]);
    expect((await list(undefined, handler)).body).toEqual([]);
    expect((await list({ pageSize: '10' }, handler)).body).toEqual({
      meta: { page: 1, pageSize: 10, totalItems: 0, totalPages: 0 },
      items: [],
    });
  });

  it.each([
    [{ pageSize: '501' }, 'pageSize must be an integer 1-500 (got 501)'],
    [{ pageSize: '0' }, 'pageSize must be an integer 1-500 (got 0)'],
    [{ pageSize: 'ten' }, 'pageSize must be an integer 1-500'],
    [{ pageNumber: '0' }, 'pageNumber must be an integer 1-1000000 (got 0)'],
    [{ pageNumber: '-1' }, 'pageNumber must be an integer 1-1000000'],
    [{ time: '24' }, 'time must be an integer 0-23 (got 24)'],
    [{ time: 'noon' }, 'time must be an integer hour 0-23'],
    [{ date: '2026-02-30' }, 'date must be a valid date (yyyy-MM-dd)'],
    [{ locationID: 'x' }, 'locationID must be an integer >= 0'],
    [{ locationID: '9999999999' }, 'locationID must be an integer 0-2147483647 (got 9999999999)'],
    [{ status: 'pending' }, 'query parameter status is not known'],
    [{ pagesize: '10' }, 'query parameter pagesize is not known'],
  ])('400 for %p, without querying', async (query, message) => {
    const response = await list(query, handler);
    expect(expectError(response, 400)).toBe(message);
    expect(ddbMock.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it('400 for a repeated query parameter, before any DynamoDB call', async () => {
    const response = await invoke(handler, {
      pathParameters: { MID },
      multiQuery: { pageSize: ['10', '20'] },
    });
    expect(expectError(response, 400)).toBe('query parameter pageSize must be given once');
    expect(ddbMock.calls()).toHaveLength(0);
  });

  it('accepts a parameter given once in multiValueQueryStringParameters', async () => {
    serveGroups();
    const response = await invoke(handler, { pathParameters: { MID }, multiQuery: { pageSize: ['2'] } });
    expect(response.status).toBe(200);
    expect(response.body.meta.pageSize).toBe(2);
  });

  it('queries the merchant index with the 11-digit MID for an 8-digit path MID', async () => {
    serveGroups([]);
    await invoke(handler, { pathParameters: { MID: SHORT_MID } });
    expect(queries()[0]).toMatchObject({
      TableName: 't',
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :m',
      ExpressionAttributeValues: { ':m': `MERCHANT#${MID}` },
    });
  });
});

describe('filters', () => {
  it('date and time narrow the key range to the slot', async () => {
    serveGroups([]);
    await list({ date: '2026-06-01', time: '7' });
    const q = queries()[0]!;
    expect(q.KeyConditionExpression).toBe('gsi1pk = :m AND begins_with(gsi1sk, :slot)');
    expect(q.ExpressionAttributeValues).toMatchObject({ ':slot': '2026-06-01T07#' });
    expect(q.FilterExpression).toBeUndefined();
  });

  it('date alone narrows the key range to the day', async () => {
    serveGroups([]);
    await list({ date: '2026-06-01' });
    expect(queries()[0]!.ExpressionAttributeValues).toMatchObject({ ':slot': '2026-06-01T' });
  });

  it('time alone and locationID filter on the attributes, as numbers', async () => {
    serveGroups([]);
    await list({ time: '07', locationID: '12' });
    const q = queries()[0]!;
    expect(q.KeyConditionExpression).toBe('gsi1pk = :m');
    expect(q.FilterExpression).toBe('scheduleHour = :h AND locationId = :l');
    expect(q.ExpressionAttributeValues).toMatchObject({ ':h': 7, ':l': 12 });
  });

  it('the pending list keeps only pending and processing groups; the full list does not filter status', async () => {
    serveGroups([]);
    await list(undefined, listPendingGroups);
    await list(undefined, listGroups);
    const [pending, all] = queries();
    expect(pending!.FilterExpression).toBe('#status IN (:pending, :processing)');
    expect(pending!.ExpressionAttributeNames).toEqual({ '#status': 'status' });
    expect(pending!.ExpressionAttributeValues).toMatchObject({
      ':pending': 'pending',
      ':processing': 'processing',
    });
    expect(all!.FilterExpression).toBeUndefined();
  });

  it('lists groups in every stage on the full list, with deleted derived from status', async () => {
    serveGroups([
      groupItem(group({ status: 'pending' })),
      groupItem(group({ status: 'processed' })),
      groupItem(group({ status: 'deleted' })),
    ]);
    const response = await list();
    expect(response.body.map((g: AnyItem) => [g.status, g.deleted])).toEqual([
      ['pending', false],
      ['processed', false],
      ['deleted', true],
    ]);
    // The authorization's two reads (the registry, the grant), then the list's query.
    expect(sentCommands()).toEqual(['GetCommand', 'GetCommand', 'QueryCommand']);
  });
});
