/**
 * Defect: a free-form object's empty key ("") passes validation and reaches DynamoDB, which
 * refuses an empty attribute name anywhere in an item, map keys at any depth included
 * (ValidationException "Empty attribute name"; DynamoDB's naming rules: an attribute name is at
 * least one character). The key rule of `customAttributes` and `customerData`
 * (contract/schemas/common.ts `freeFormKeys`: maxLength 100, no reserved name, no card number) has
 * no minLength, so `{"customAttributes": {"": "x"}}` answers 500 on every route that takes one:
 * group create, add payment, payor create, add method, payor update.
 *
 * The team's rules: bad input gets a 400 {message, responseCode} naming the field and nothing is
 * written; no input may produce a 500 (docs/decisions.md "Strict bodies", "errors[] lists every
 * problem").
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { reloadConfigForTests } from '#shared/config';
import { MerchantAdmin } from '#store/merchant-admin';
import { DynamoPayorStore } from '#store/payors';
import { apiContext, proxyEvent } from '#support/proxy-event';
import { createTestTable, type TestTable } from '#support/ddb';
import { makePayor } from '#support/fixtures/index';

const MID = '32350000039';
const CLIENT = 'empty-key-client';
type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
let table: TestTable;
let payorId: string;
let profileId: string;
let groupId: string;

const context = apiContext;

const apiEvent = (
  method: string,
  resource: string,
  pathParameters: Record<string, string>,
  body?: unknown,
): APIGatewayProxyEvent => proxyEvent({ method, resource, pathParameters, body, clientId: CLIENT });

const handlerOf = async (module: string) =>
  ((await import(module)) as unknown as { handler: Handler }).handler;
const day = (ahead: number) => new Date(Date.now() + ahead * 86_400_000).toISOString().slice(0, 10);
const address = {
  line1: '742 Evergreen Terrace',
  city: 'Springfield',
  state: 'OR',
  postalCode: '97475',
  country: 'US',
};
const card = {
  accountType: 'VISA',
  cardNumber: '4111111111111111',
  expiryMonth: 12,
  expiryYear: 2030,
  billingAddress: address,
};
/** The empty key, beside an ordinary one. */
const EMPTY_KEY = { term: 'fall', '': 'x' };

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  reloadConfigForTests();
  const registry = new MerchantAdmin(table.db, table.tableName);
  await registry.register({ merchantId: MID, name: 'Empty key test' });
  await registry.grant(CLIENT, MID, 'test');
  const { payor, method } = makePayor(MID);
  await new DynamoPayorStore(table.db, table.tableName).create(payor, method);
  payorId = payor.payorId;
  profileId = `${payor.payorId}/${method.savedPaymentMethodId}`;
  const created = await (
    await handlerOf('#lambdas/groups/create-group')
  )(
    apiEvent(
      'POST',
      '/rest/merchants/{MID}/groups',
      { MID },
      {
        servicePayId: MID,
        scheduleDate: day(3),
        scheduleHour: 9,
        locationId: 1,
        payments: [{ profileId, amount: 10 }],
      },
    ),
    context,
  );
  expect(created.statusCode).toBe(201);
  groupId = (JSON.parse(created.body) as { paymentGroupId: string }).paymentGroupId;
});
afterAll(() => table.drop());

const cases: [string, string, string, () => Record<string, string>, () => unknown, RegExp][] = [
  [
    'group create: payments[0].customAttributes',
    '#lambdas/groups/create-group',
    '/rest/merchants/{MID}/groups',
    () => ({ MID }),
    () => ({
      servicePayId: MID,
      scheduleDate: day(3),
      scheduleHour: 10,
      locationId: 1,
      payments: [{ profileId, amount: 11, customAttributes: EMPTY_KEY }],
    }),
    /payments\[0\]\.customAttributes/,
  ],
  [
    'add payment: customAttributes',
    '#lambdas/payments/add-payment',
    '/rest/merchants/{MID}/groups/{GroupID}/payments',
    () => ({ MID, GroupID: groupId }),
    () => ({ paymentGroupId: groupId, profileId, amount: 12, customAttributes: EMPTY_KEY }),
    /customAttributes/,
  ],
  [
    'payor create: customerData',
    '#lambdas/payors/create-payor',
    '/v1/rest/merchants/{MID}/payors',
    () => ({ MID }),
    () => ({ customerData: EMPTY_KEY, paymentMethod: card }),
    /customerData/,
  ],
  [
    'add method: customerData',
    '#lambdas/methods/add-method',
    '/v1/rest/merchants/{MID}/payors/{PayorID}/savedPaymentMethods',
    () => ({ MID, PayorID: payorId }),
    () => ({ ...card, customerData: EMPTY_KEY }),
    /customerData/,
  ],
  [
    'payor update: customerData',
    '#lambdas/payors/update-payor',
    '/v1/rest/merchants/{MID}/payors/{PayorID}',
    () => ({ MID, PayorID: payorId }),
    () => ({ customerData: EMPTY_KEY }),
    /customerData/,
  ],
];

test.each(cases)(
  '%s with an empty key is 400 naming the field (defect: DynamoDB refuses the empty attribute name: 500)',
  async (_what, module, resource, params, body, field) => {
    const method = resource.endsWith('{PayorID}') ? 'PUT' : 'POST';
    const res = await (await handlerOf(module))(apiEvent(method, resource, params(), body()), context);
    const answer = JSON.parse(res.body) as { message: string; responseCode: number };
    expect({ status: res.statusCode, responseCode: answer.responseCode }).toEqual({
      status: 400,
      responseCode: 400,
    });
    expect(answer.message).toMatch(field);
  },
);
