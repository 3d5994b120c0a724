/**
 * Helpers of the handler tests: hand-built API Gateway events, a minimal Lambda context, the
 * DynamoDB document-client mock and item builders. Import '#support/handlers/env' before this module.
 */
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import type { Group, Payment } from '#domain/groups';
import { apiScope } from '#contract/stage';
import { groupItem } from '#store/groups';
import { paymentItem } from '#store/payments';
import { GROUP_ID, MID, PAYMENT_ID } from '#support/fixtures/index';

export { GROUP_ID, MID, PAYMENT_ID };
export const SHORT_MID = '23500001';
export const OTHER_MID = '41000000001';
export const CLIENT_ID = 'c1';
export const FUTURE_DATE = '2099-06-01';

export const ddbMock = mockClient(DynamoDBDocumentClient);

const claims = (over: Record<string, string> = {}) => ({
  client_id: CLIENT_ID,
  scope: apiScope('dev'),
  ...over,
});

export interface EventInput {
  method?: string;
  path?: string;
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
  multiQuery?: Record<string, string[]>;
  /** Headers besides content-type: as API Gateway passes them, each header's last value. */
  headers?: Record<string, string>;
  /** Every value of each header, as API Gateway passes them beside. */
  multiValueHeaders?: Record<string, string[]>;
  body?: unknown;
  rawBody?: string | null;
  isBase64Encoded?: boolean;
  /** `null`: no authorizer at all. */
  claims?: Record<string, string> | null;
}

export function apiEvent(input: EventInput = {}): APIGatewayProxyEvent {
  const query = input.query ?? (input.multiQuery ? undefined : null);
  const multi =
    input.multiQuery ?? (query ? Object.fromEntries(Object.entries(query).map(([k, v]) => [k, [v]])) : null);
  const lastOf = input.multiQuery
    ? Object.fromEntries(Object.entries(input.multiQuery).map(([k, v]) => [k, v[v.length - 1]!]))
    : null;
  const body =
    input.rawBody !== undefined
      ? input.rawBody
      : input.body === undefined
        ? null
        : JSON.stringify(input.body);
  return {
    resource: input.path ?? '/rest/merchants/{MID}/groups',
    path: input.path ?? '/rest/merchants/x/groups',
    httpMethod: input.method ?? 'GET',
    headers: { 'content-type': 'application/json', ...input.headers },
    multiValueHeaders: input.multiValueHeaders ?? {},
    pathParameters: input.pathParameters ?? { MID },
    queryStringParameters: query ?? lastOf,
    multiValueQueryStringParameters: multi,
    stageVariables: null,
    body,
    isBase64Encoded: input.isBase64Encoded ?? false,
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      httpMethod: input.method ?? 'GET',
      path: input.path ?? '/rest/merchants/x/groups',
      protocol: 'HTTP/1.1',
      requestId: 'req-1',
      requestTimeEpoch: 0,
      resourceId: 'res',
      resourcePath: input.path ?? '/rest/merchants/{MID}/groups',
      stage: 'dev',
      identity: {} as APIGatewayProxyEvent['requestContext']['identity'],
      authorizer: input.claims === null ? undefined : { claims: input.claims ?? claims() },
    },
  };
}

export const lambdaContext = {
  callbackWaitsForEmptyEventLoop: false,
  functionName: 'f',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:f',
  memoryLimitInMB: '128',
  awsRequestId: 'r',
  logGroupName: '/aws/lambda/f',
  logStreamName: 's',
  getRemainingTimeInMillis: () => 30_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
} as Context;

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

interface Response {
  status: number;
  headers: Record<string, unknown>;
  raw: string;

  body: any;
}

export async function invoke(handler: unknown, input: EventInput = {}): Promise<Response> {
  const result = await (handler as Handler)(apiEvent(input), lambdaContext);
  return {
    status: result.statusCode,
    headers: (result.headers ?? {}) as Record<string, unknown>,
    raw: result.body,
    body: result.body === '' ? undefined : JSON.parse(result.body),
  };
}

/**
 * Asserts the `{message, responseCode}` error body (with `errors`, every problem, when a value
 * failed its schema: the first one is the message) and returns the message.
 */
export function expectError(response: Response, status: number): string {
  expect(response.status).toBe(status);
  expect(response.headers['content-type']).toBe('application/json');
  const { errors, ...rest } = response.body as { errors?: { field: string; message: string }[] };
  expect(Object.keys(rest).sort()).toEqual(['message', 'responseCode']);
  if (errors !== undefined) {
    expect(status).toBe(400);
    expect(errors[0]?.message).toBe(response.body.message);
  }
  expect(response.body.responseCode).toBe(status);
  expect(typeof response.body.message).toBe('string');
  return response.body.message as string;
}

export const grantKey = (mid: string, clientId = CLIENT_ID) => ({
  pk: `CLIENT#${clientId}`,
  sk: `MID#${mid}`,
});

/** The merchant registry's item of one MID form (store/merchants.ts). */
export const registryKey = (mid: string) => ({ pk: `MID#${mid}`, sk: 'MERCHANT' });

export const MERCHANT_NAME = 'Springfield Elementary';
const merchantItem = { merchantId: MID, shortId: SHORT_MID, name: MERCHANT_NAME };

/** A saved method as the BatchGet mock knows it. */
interface MethodRecord {
  merchantId: string;
  maskedAccountNumber: string;
  accountType: string;
  expiryMonth?: number;
  expiryYear?: number;
}

/** Saved payment methods known to the BatchGet mock: `{payorId}/{savedPaymentMethodId}` → record. */
const methods = new Map<string, MethodRecord>();
/** Payor items known to the BatchGet mock: payorId → merchant and (optional) e-mail. */
const payors = new Map<string, { merchantId: string; email?: string }>();

/**
 * Resets the mock: any command not set up by the test fails loudly, merchant 32350000001 is
 * registered under both of its MID forms and granted to client c1, and it has the saved methods
 * `payor1/method1` and `payor2/method2` (the profileIds the handler tests use). No payor has an
 * e-mail address until `payorEmail` gives one.
 */
export function resetDb(): void {
  ddbMock.reset();
  ddbMock.onAnyCommand().callsFake((input: unknown) => {
    throw new Error(`unmocked DynamoDB command: ${JSON.stringify(input)}`);
  });
  ddbMock.on(GetCommand).resolves({});
  for (const mid of [MID, SHORT_MID])
    ddbMock
      .on(GetCommand, { TableName: 't', Key: registryKey(mid) })
      .resolves({ Item: { ...registryKey(mid), entity: 'merchant', ...merchantItem } });
  ddbMock
    .on(GetCommand, { TableName: 't', Key: grantKey(MID) })
    .resolves({ Item: { ...grantKey(MID), entity: 'grant', clientId: CLIENT_ID, ...merchantItem } });
  methods.clear();
  payors.clear();
  ddbMock.on(BatchGetCommand).callsFake(batchGetItems);
  savedMethod('payor1/method1');
  savedMethod('payor2/method2');
}

/** A saved method (as `{payorId}/{savedPaymentMethodId}`, lower case as stored) of `merchantId`. */
export function savedMethod(
  profileId: string,
  merchantId = MID,
  details: Partial<Omit<MethodRecord, 'merchantId'>> = {},
): void {
  methods.set(profileId, {
    merchantId,
    maskedAccountNumber: '************1111',
    accountType: 'VISA',
    ...details,
  });
}

/** Forgets every saved method: profileId checks find nothing. */
export function noSavedMethods(): void {
  methods.clear();
}

/** A payor item of `merchantId` with this e-mail address (`undefined`: a payor without one). */
export function payorEmail(payorId: string, email: string | undefined, merchantId = MID): void {
  payors.set(payorId, { merchantId, ...(email !== undefined && { email }) });
}

interface BatchGetInput {
  RequestItems: Record<string, { Keys: { pk: string; sk: string }[]; ProjectionExpression?: string }>;
}

/** Only the attributes the projection names, as DynamoDB returns them. */
function project(item: Record<string, unknown>, projection: string | undefined): Record<string, unknown> {
  if (projection === undefined) return item;
  const names = projection.split(',').map((n) => n.trim());
  return Object.fromEntries(Object.entries(item).filter(([k]) => names.includes(k)));
}

/** Answers the method-item and payor-item BatchGets with the (projected) items found. */
function batchGetItems(input: BatchGetInput) {
  const Responses: Record<string, Record<string, unknown>[]> = {};
  for (const [table, { Keys, ProjectionExpression }] of Object.entries(input.RequestItems)) {
    Responses[table] = Keys.flatMap(({ pk, sk }) => {
      if (!pk.startsWith('PAYOR#')) return [];
      const payorId = pk.slice('PAYOR#'.length);
      if (sk === 'PAYOR') {
        const payor = payors.get(payorId);
        if (!payor) return [];
        return [
          project({ pk, sk, entity: 'payor', payorId, methodCount: 1, ...payor }, ProjectionExpression),
        ];
      }
      if (!sk.startsWith('METHOD#')) return [];
      const savedPaymentMethodId = sk.slice('METHOD#'.length);
      const method = methods.get(`${payorId}/${savedPaymentMethodId}`);
      if (!method) return [];
      return [
        project(
          { pk, sk, entity: 'method', payorId, savedPaymentMethodId, processorToken: 'sbx.ok.x', ...method },
          ProjectionExpression,
        ),
      ];
    });
  }
  return { Responses };
}

const batchGets = (): BatchGetInput[] =>
  ddbMock.commandCalls(BatchGetCommand).map((call) => call.args[0].input as BatchGetInput);
const keysOf = (input: BatchGetInput) => Object.values(input.RequestItems).flatMap((r) => r.Keys);

/** The BatchGet inputs sent for profileId checks (saved-method keys), in order. */
export const methodLookups = (): BatchGetInput[] =>
  batchGets().filter((input) => keysOf(input).every((k) => k.sk.startsWith('METHOD#')));

/** The BatchGet inputs sent for payors (payor keys: e-mail addresses, sponsorKeys), in order. */
export const payorLookups = (): BatchGetInput[] =>
  batchGets().filter((input) => keysOf(input).every((k) => k.sk === 'PAYOR'));

export const METHOD_PROJECTION =
  'payorId, savedPaymentMethodId, merchantId, maskedAccountNumber, accountType, #status, deletion';
export const METHOD_PROJECTION_NAMES = { '#status': 'status' };
export const EMAIL_PROJECTION = 'payorId, merchantId, email';
/** What a payment's record and notice copy of its payor (core/profiles.ts, payorsOf). */
export const PAYOR_COPY_PROJECTION = 'payorId, merchantId, email, sponsorKey';

// The records themselves are the shared fixtures' (same ids, dates and amounts).
export { group, payment } from '#support/fixtures/index';

/** The stored group (as its table item) returned by the group GetItem. */
export function storedGroup(g: Group | undefined): void {
  ddbMock
    .on(GetCommand, { TableName: 't', Key: { pk: `GROUP#${GROUP_ID}`, sk: 'GROUP' } })
    .resolves(g ? { Item: groupItem(g) } : {});
}

export function storedPayment(p: Payment | undefined): void {
  ddbMock
    .on(GetCommand, { TableName: 't', Key: { pk: `GROUP#${GROUP_ID}`, sk: `PAYMENT#${PAYMENT_ID}` } })
    .resolves(p ? { Item: paymentItem(p) } : {});
}

/** Commands sent to DynamoDB, by command class name, in order. */
export const sentCommands = (): string[] => ddbMock.calls().map((call) => call.args[0].constructor.name);

export function transactionCanceled(...codes: string[]): Error {
  return Object.assign(new Error('Transaction cancelled'), {
    name: 'TransactionCanceledException',
    CancellationReasons: codes.map((Code) => ({ Code })),
  });
}

export const awsError = (name: string, message = name): Error => Object.assign(new Error(message), { name });

export const groupPath = (over: Record<string, string> = {}) => ({ MID, GroupID: GROUP_ID, ...over });
export const paymentPath = (over: Record<string, string> = {}) => ({
  MID,
  GroupID: GROUP_ID,
  PaymentID: PAYMENT_ID,
  ...over,
});
