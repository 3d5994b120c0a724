/**
 * Defect: a series create decided between one
 * transaction and the write-ahead path by its items' count only (store/series.ts create:
 * `2 + children.length + profiles.length <= MAX_TRANSACTION_ITEMS`), never by their size. A series
 * of a few payments whose customAttributes are the contract's largest (50 values of 1,000
 * characters) is one transaction of megabytes — the series, its `series.created` event and every
 * payment item — past DynamoDB's 4 MB per transaction, which DynamoDB refuses as invalid (a
 * ValidationException, not a condition: a 500, the series and its event lost). The group create
 * had the same defect and measures its transaction (c7c84362: MAX_TRANSACTION_JSON_BYTES).
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { createSeriesSchema, type CreateSeriesInput } from '#contract/schemas/series';
import { listEvents } from '#core/events';
import { createSeries } from '#core/series';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { MAX_TRANSACTION_JSON_BYTES } from '#store/items';
import { type Merchant } from '#store/merchants';
import { MerchantAdmin } from '#store/merchant-admin';
import { DynamoPayorStore } from '#store/payors';
import { seriesStore } from '#store/series';
import { apiContext, proxyEvent } from '#support/proxy-event';
import { createTestTable, type TestTable } from '#support/ddb';
import { makePayor } from '#support/fixtures/index';
import { validator } from '#support/validators-by-schema';
import { useWebhookTestEnv } from '#support/webhook-env';

const MERCHANT: Merchant = { merchantId: '32350000001', shortId: '23500001', name: 'Springfield Elementary' };
const MID = MERCHANT.merchantId;
const day = (ahead: number) => new Date(Date.now() + ahead * 86_400_000).toISOString().slice(0, 10);

let table: TestTable;
let PROFILE: string;

beforeAll(async () => {
  table = await createTestTable();
  useWebhookTestEnv(table.tableName, 'series-large-it');
  await new MerchantAdmin(table.db, table.tableName).register(MERCHANT);
  const { payor, method } = makePayor(MID);
  await new DynamoPayorStore(table.db, table.tableName).create(payor, method);
  PROFILE = `${payor.payorId}/${method.savedPaymentMethodId}`;
});
afterEach(() => jest.restoreAllMocks());
afterAll(() => table.drop());

/** customAttributes at the contract's largest: 50 values of 1,000 three-byte characters (~150 KB). */
const largestAttributes = () =>
  Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`attribute${i}`, '支'.repeat(1_000)]));

test('defect: a series of 30 payments with the largest customAttributes is one transaction over 4 MB (refused by DynamoDB: a 500, no series, no series.created); it is written ahead instead', async () => {
  const input = validator<CreateSeriesInput>(createSeriesSchema)({
    timeZone: 'America/New_York',
    localHour: 17,
    // Far enough ahead that no occurrence's group is due at the create.
    startDate: day(60),
    frequency: 'monthly',
    interval: 1,
    count: 3,
    locationId: 1,
    payments: Array.from({ length: 30 }, () => ({
      profileId: PROFILE,
      amount: 10.25,
      customAttributes: largestAttributes(),
    })),
  });
  // Every transaction the create sends, by its size as JSON (DynamoDB counts its items' bytes).
  const transactions: number[] = [];
  const client = ddb();
  const original = client.send.bind(client);
  jest.spyOn(client, 'send').mockImplementation(((command: object) => {
    if (command instanceof TransactWriteCommand)
      transactions.push(Buffer.byteLength(JSON.stringify(command.input.TransactItems)));
    return original(command as never);
  }) as never);

  const created = await createSeries(input, MERCHANT, new Date());

  // No transaction past (or near) DynamoDB's 4 MB limit.
  expect(transactions.filter((bytes) => bytes > MAX_TRANSACTION_JSON_BYTES)).toEqual([]);
  expect(await seriesStore().get(created.seriesId)).toMatchObject({ paymentCount: 30 });
  const events = await listEvents(MID, { objectId: created.seriesId });
  expect(events.items.map((e) => e.type)).toEqual(['series.created']);
}, 120_000);

describe('through the API', () => {
  const CLIENT = 'series-large-client';
  const context = apiContext;

  const apiEvent = (body: unknown): APIGatewayProxyEvent =>
    proxyEvent({
      method: 'POST',
      resource: '/v1/rest/merchants/{MID}/series',
      pathParameters: { MID },
      body,
      clientId: CLIENT,
    });

  test('defect: POST .../series of 30 payments with the largest customAttributes answers 500 (a valid body); it should create the series (201)', async () => {
    process.env.SERVICE_STAGE = 'dev';
    reloadConfigForTests();
    await new MerchantAdmin(table.db, table.tableName).grant(CLIENT, MID, 'test');
    const { handler } = (await import('#lambdas/series/create-series')) as unknown as {
      handler: (e: APIGatewayProxyEvent, c: Context) => Promise<APIGatewayProxyResult>;
    };
    const answer = await handler(
      apiEvent({
        timeZone: 'America/New_York',
        localHour: 17,
        startDate: day(60),
        frequency: 'monthly',
        interval: 1,
        count: 3,
        locationId: 1,
        payments: Array.from({ length: 30 }, () => ({
          profileId: PROFILE,
          amount: 10.25,
          customAttributes: largestAttributes(),
        })),
      }),
      context,
    );
    expect({ status: answer.statusCode, body: answer.statusCode === 201 ? '' : answer.body }).toEqual({
      status: 201,
      body: '',
    });
  }, 120_000);
});
