/**
 * Idempotency keys on group and payment writes, through the handlers as API Gateway calls them,
 * against DynamoDB Local (audit 25, area 2). A crash is injected where the docs say a retry with
 * the key must pick up: between a create's write and its key's record of the answer.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { addPayment } from '#core/payments';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { newId } from '#shared/ids';
import { keys } from '#store/keys';
import { MerchantAdmin } from '#store/merchant-admin';
import type { Merchant } from '#store/merchants';
import { useClock } from '#shared/clock';
import { apiContext, proxyEvent } from '#support/proxy-event';
import { createTestTable, type TestTable } from '#support/ddb';
import { injectCrash, removeCrashes } from '#support/ddb-faults';
import { useTestClock } from '#support/clock';
import { storedProfile } from '#support/sales';

const MID = '32350000061';
const CLIENT = 'idem-audit-client';
const MERCHANT: Merchant = { merchantId: MID, shortId: '23500061', name: 'Audit School' };

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
let table: TestTable;
let createGroupHandler: Handler;

const context = apiContext;

const post = (_path: string, resource: string, pathParameters: Record<string, string>, body: unknown) =>
  proxyEvent({ method: 'POST', resource, pathParameters, body, clientId: CLIENT });

const createGroupEvent = (body: unknown) =>
  post(`/rest/merchants/${MID}/groups`, '/rest/merchants/{MID}/groups', { MID }, body);

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  reloadConfigForTests();
  ({ handler: createGroupHandler } = (await import('#lambdas/groups/create-group')) as unknown as {
    handler: Handler;
  });
  const registry = new MerchantAdmin(table.db, table.tableName);
  await registry.register({ merchantId: MID, name: MERCHANT.name });
  await registry.grant(CLIENT, MID, 'test');
});
afterEach(() => {
  removeCrashes();
  useClock(undefined);
});
afterAll(() => table.drop());

/** The merchant's groups (every stage), by the merchant's list index. */
async function groupIdsOfMerchant(): Promise<string[]> {
  const { Items = [] } = await table.db.send(
    new QueryCommand({
      TableName: table.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :m',
      ExpressionAttributeValues: { ':m': keys.merchantGroups(MID) },
    }),
  );
  return Items.map((i) => String(i.paymentGroupId));
}

/** customAttributes at the contract's largest: 50 values of 1,000 backslashes (each 4 bytes in an answer). */
const largestAttributes = () =>
  Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`attr${i}`, '\\'.repeat(1000)]));

describe('a keyed group create resumed after a crash', () => {
  test('defect: a resumed create whose group has grown past an answer is answered 400 and frees its key, so the next retry with the same key and body creates a second group', async () => {
    const profileId = await storedProfile(table, MID);
    const t0 = Date.parse('2031-05-01T10:00:00.000Z');
    const clock = useTestClock(t0);
    const key = `create-${newId()}`;
    const body = {
      servicePayId: MID,
      scheduleDate: '2031-05-03',
      scheduleHour: 10,
      locationId: 1,
      idempotencyKey: key,
    };

    // The create commits its group, then the container dies before the key's record keeps the
    // answer (the record's `SET #state = :done`): the client sees a 5xx and will retry.
    const crash = injectCrash(ddb(), 'UpdateItemCommand', 'before', (input) =>
      String(input.UpdateExpression ?? '').startsWith('SET #state = :done'),
    );
    const first = await createGroupHandler(createGroupEvent(body), context);
    expect(crash.crashed).toBe(1);
    expect(first.statusCode).toBeGreaterThanOrEqual(500);
    const [groupId] = await groupIdsOfMerchant();
    expect(groupId).toBeDefined();

    // Meanwhile the office adds payments to that group (a group takes up to 100,000), enough that
    // the group with its payments no longer fits one answer.
    for (let i = 0; i < 32; i++) {
      await addPayment(
        groupId!,
        MERCHANT,
        {
          paymentGroupId: groupId!,
          profileId,
          amount: 1 + i,
          customAttributes: largestAttributes(),
        } as never,
        new Date(t0 + 1000),
      );
    }

    // The client's retries with the same key and body, after the key's 30 s lease.
    clock.set(t0 + 31_000);
    const retry = await createGroupHandler(createGroupEvent(body), context);
    // Documented: a group grown past an answer is named, to be read page by page.
    expect(retry.statusCode).toBe(400);
    expect(JSON.parse(retry.body).message).toContain(groupId);

    clock.set(t0 + 32_000);
    const again = await createGroupHandler(createGroupEvent(body), context);
    // One key, one group: the key must still name the group it created (400 again, or that group),
    // never a new create.
    const groups = await groupIdsOfMerchant();
    expect({ status: again.statusCode, groups }).toEqual({ status: 400, groups: [groupId] });
  }, 120_000);
});

describe('a key past its 24 hours', () => {
  test('defect: a key reused 25 hours after its first request (its record not yet removed by the TTL, which DynamoDB may take days to do) is still refused for another request, though keys live 24 hours', async () => {
    const { idempotent } = await import('#core/idempotency');
    const { UnprocessableEntityError } = await import('#shared/errors');
    const ref = { merchantId: MID, scope: 'request', key: `monthly-${newId()}` };
    const t0 = new Date('2031-06-01T10:00:00.000Z');
    const request = (amount: number) => ({ operation: 'AddPayment', params: {}, body: { amount } });
    await idempotent(ref, request(10), 'first', t0, async (id) => ({ status: 201, body: { id } }), 'header');
    let ran = 0;
    const later = new Date(t0.getTime() + 25 * 3600_000);
    const outcome = await idempotent(
      ref,
      request(20),
      'second',
      later,
      async (id) => {
        ran++;
        return { status: 201, body: { id } };
      },
      'header',
    ).catch((error: unknown) => error);
    expect(outcome).not.toBeInstanceOf(UnprocessableEntityError);
    expect({ ran, outcome }).toEqual({ ran: 1, outcome: { status: 201, body: { id: 'second' } } });
  });
});
