/**
 * Defect: a keyed POST whose body schema is checked in the handler (AddMethod: a card or a bank
 * account, one of several schemas, `body: { schema: newMethodSchemas }`, so the route builder
 * passes the parsed JSON through unchecked) hashes the body for its idempotency record before
 * anything has looked at it (lambdas/shared/http.ts `runKeyed` → core/idempotency.ts
 * `canonicalJson`, a recursion over the value). A body nested deeper than the call stack, which
 * JSON.parse and the well-formed-text walk take (shared/well-formed.ts keeps its own stack so
 * that "a body nested deeper than the call stack is still answered 400, not 500"), overflows it
 * there: RangeError, answered 500. The same body without an Idempotency-Key is 400.
 *
 * The team's rules: bad input gets a 400 {message, responseCode} naming the field; no input may
 * produce a 500 (docs/decisions.md "Text is well-formed Unicode": deep bodies are 400).
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { reloadConfigForTests } from '#shared/config';
import { newId } from '#shared/ids';
import { MerchantAdmin } from '#store/merchant-admin';
import { DynamoPayorStore } from '#store/payors';
import { apiContext, proxyEvent } from '#support/proxy-event';
import { createTestTable, type TestTable } from '#support/ddb';
import { makePayor } from '#support/fixtures/index';

const MID = '32350000042';
const CLIENT = 'deep-body-client';
type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
let table: TestTable;
let addMethod: Handler;
let payorId: string;

const context = apiContext;

const apiEvent = (rawBody: string, headers: Record<string, string>): APIGatewayProxyEvent =>
  proxyEvent({
    method: 'POST',
    resource: '/v1/rest/merchants/{MID}/payors/{PayorID}/savedPaymentMethods',
    pathParameters: { MID, PayorID: payorId },
    body: rawBody,
    headers,
    clientId: CLIENT,
  });

/** A card method's body with an unknown field nested 20,000 arrays deep (120 KB). */
const DEPTH = 20_000;
const deepBody = `{"accountType":"VISA","cardNumber":"4111111111111111","expiryMonth":12,"expiryYear":2030,"billingAddress":{"line1":"742 Evergreen Terrace","city":"Springfield","state":"OR","postalCode":"97475","country":"US"},"note":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}`;

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  reloadConfigForTests();
  ({ handler: addMethod } = (await import('#lambdas/methods/add-method')) as unknown as { handler: Handler });
  const registry = new MerchantAdmin(table.db, table.tableName);
  await registry.register({ merchantId: MID, name: 'Deep body test' });
  await registry.grant(CLIENT, MID, 'test');
  const { payor, method } = makePayor(MID);
  await new DynamoPayorStore(table.db, table.tableName).create(payor, method);
  payorId = payor.payorId;
});
afterAll(() => table.drop());

const answer = (res: APIGatewayProxyResult) => {
  const body = JSON.parse(res.body) as { message: string; responseCode: number };
  return { status: res.statusCode, responseCode: body.responseCode, namesIt: /note/.test(body.message) };
};

test('control: the deep body without an Idempotency-Key is 400 naming the unknown field', async () => {
  expect(answer(await addMethod(apiEvent(deepBody, {}), context))).toEqual({
    status: 400,
    responseCode: 400,
    namesIt: true,
  });
});

test('the deep body with an Idempotency-Key is 400 too (defect: its hash for the key overflows the stack: 500)', async () => {
  const res = await addMethod(apiEvent(deepBody, { 'Idempotency-Key': `deep-${newId()}` }), context);
  expect(answer(res)).toEqual({ status: 400, responseCode: 400, namesIt: true });
});
