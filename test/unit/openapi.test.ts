/**
 * The OpenAPI document (lib/openapi.ts): every route as an operation, the validators' schemas as
 * request bodies, the views matching the hand-written response schemas, and the document's
 * structure (checked here by hand: no OpenAPI validator package is installed).
 */
import './support/env';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import packageJson from '../../package.json';
import { triggerResult } from '#core/triggers';
import { DECLINE_CODES } from '#domain/declines';
import { groupView, paymentView, type Group, type Payment } from '#domain/groups';
import { methodView, payorView, type Payor, type SavedMethod } from '#domain/payors';
import { failedAuthResponse } from '#domain/processing';
import { refundView, transactionView, type Refund, type Transaction } from '#domain/transactions';
import { errorBody } from '#shared/http';
import {
  addPaymentSchema,
  bulkSearchSchema,
  cardMethodSchema,
  checkingMethodSchema,
  createGroupSchema,
  createPayorSchema,
  listGroupsQuerySchema,
  MAX_PAGE_SIZE,
  refundSchema,
  saleSchema,
  searchPayorsQuerySchema,
  triggerMerchantSchema,
  updateGroupSchema,
  updateMethodSchema,
  updatePaymentSchema,
  updatePayorSchema,
  voidOrRefundSchema,
} from '#shared/schemas';
import {
  openApiDocument,
  operationDocs,
  pathParameterNames,
  queryParameters,
  requestBodies,
  SECURITY_SCHEME,
  toOpenApiSchema,
  type OpenApiDocument,
  type OperationDoc,
  type OperationObject,
} from '../../lib/openapi';
import { routes, type Route } from '../../lib/routes';
import { apiScope, stages } from '../../contract/stage';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const doc = openApiDocument('dev');

function operationOf(d: OpenApiDocument, route: Route): OperationObject {
  const op = d.paths[route.path]?.[route.method.toLowerCase() as 'get'];
  if (!op) throw new Error(`no operation for ${route.method} ${route.path}`);
  return op;
}

/** The value a local `#/...` reference points at. */
function resolvePointer(d: unknown, pointer: string): unknown {
  if (!pointer.startsWith('#/')) throw new Error(`not a local reference: ${pointer}`);
  return pointer
    .slice(2)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), d);
}

/** A copy with every `$ref` replaced by what it points at (the documents have no cycles). */
function deref(d: unknown, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => deref(d, v));
  if (!isObject(value)) return value;
  if (typeof value.$ref === 'string') return deref(d, resolvePointer(d, value.$ref));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, deref(d, v)]));
}

/** The alias target of a route (same handler and method, earlier in the table). */
const aliasOf = (route: Route): Route | undefined => {
  const first = routes.find((r) => r.handler === route.handler && r.method === route.method);
  return first !== route ? first : undefined;
};

describe('info', () => {
  it('names the service, its version and the OpenAPI version', () => {
    expect(doc.openapi).toBe('3.0.3');
    expect(doc.info.title).toBe('Scheduled Payments Service');
    expect(doc.info.version).toBe(packageJson.version);
  });

  it.each([
    ['auth: client credentials', /client credentials/i],
    ['auth: token endpoint', /oauth2\/token/],
    ['auth: 6 hour tokens', /valid for 6 hours/],
    ['auth: the scope of the stage', new RegExp(apiScope('dev').replace(/[.]/g, '\\.'))],
    ['auth: the scope pattern', /<scope host>\/api\.execute/],
    ['money: 2 decimals', /at most 2 decimals/],
    ['money: integer cents', /integer cents/],
    ['UTC', /Every date and hour is \*\*UTC\*\*/],
    ['the error body', /"message": "\.\.\.", "responseCode"/],
    ['retry: backoff 1, 2, 4 s ± 200 ms', /1, 2 and 4 seconds with jitter of ±200 ms/],
    ['retry: at most 3 attempts', /at most 3 attempts in all/],
    ['retry: not 400/404', /Do not retry 400 or 404/],
    ['idempotencyKey replay', /same key with the same body returns the first response/],
    ['idempotencyKey conflict', /different body is 409/],
    ['duplicate window', /within 5 minutes/],
    ['paging defaults', /pageNumber 1, pageSize 25/],
    ['pageSize maximum', new RegExp(`pageSize is at most ${MAX_PAGE_SIZE}`)],
    ['page past the end', /`items: \[\]`/],
    ['arrays vs envelope', /JSON \*\*arrays\*\*.*paged envelope/s],
    ['soft deletes', /\*\*soft-deleted\*\*/],
    ['pending list', /GET \/rest\/merchants\/\{MID\}` lists .*`pending` and `processing`/],
  ])('explains %s', (_what, pattern) => {
    expect(doc.info.description).toMatch(pattern);
  });

  it('carries the decline categories table', () => {
    for (const [code, { message, category }] of Object.entries(DECLINE_CODES)) {
      expect(doc.info.description).toContain(`| \`${code}\` | ${message} | ${category} |`);
    }
  });

  it('names the scope of the stage it is built for', () => {
    const prod = openApiDocument('prod');
    expect(prod.info.description).toContain(apiScope('prod'));
    expect(prod.info.description).not.toContain(apiScope('dev'));
  });
});

describe('operations', () => {
  it('has one operation per route and nothing else', () => {
    const count = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    expect(count).toBe(routes.length);
  });

  it.each(routes.map((r) => [r.id, r] as const))('%s: method, path, operationId, summary', (_id, route) => {
    const op = operationOf(doc, route);
    expect(op.operationId).toBe(route.id);
    expect(op.summary).toBe(route.summary);
    expect(op.description.length).toBeGreaterThan(20);
    expect(op.tags).toHaveLength(1);
  });

  it('has unique operationIds', () => {
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('marks aliases with the operation they repeat', () => {
    const alias = routes.find((r) => r.id === 'AddPaymentAlias')!;
    expect(operationOf(doc, alias).description).toContain(
      'Identical alias of `POST /rest/merchants/{MID}/groups/{GroupID}/payments`',
    );
  });

  it('has docs only for routes that exist', () => {
    const ids = new Set(routes.map((r) => r.id));
    for (const map of [operationDocs, requestBodies, queryParameters]) {
      expect(Object.keys(map).filter((id) => !ids.has(id))).toEqual([]);
    }
  });

  it('puts the decisions of docs/decisions.md in the descriptions', () => {
    const description = (id: string) =>
      operationOf(
        doc,
        routes.find((r) => r.id === id)!,
      ).description;
    expect(description('UpdateGroup')).toMatch(/ignored: 200 with the group unchanged/);
    expect(description('UpdateGroup')).toMatch(/`deleted` is 400/);
    expect(description('CreateGroup')).toMatch(/earlier than the current UTC hour is 400/);
    expect(description('ListGroups')).toMatch(
      /a missing one takes its default \(pageNumber 1, pageSize 25\)/,
    );
    expect(description('ListPendingGroups')).toMatch(/`pending` or `processing`/);
    expect(description('AddPayment')).toMatch(
      /processing, processed or deleted group the request is refused with 400/,
    );
    expect(description('UpdatePayment')).toMatch(/ImmutableFieldViolation/);
    expect(description('CreateSale')).toMatch(/201 with the transaction whether Approved or Declined/);
    expect(description('CreateSale')).toMatch(/within 5 minutes/);
    expect(description('DeleteGroup')).toMatch(/no-op 204/);
  });
});

describe('security', () => {
  it.each(stages.map((s) => [s] as const))(
    'every %s operation requires the bearer token with the stage scope',
    (stage) => {
      const d = openApiDocument(stage);
      const requirement = [{ [SECURITY_SCHEME]: [apiScope(stage)] }];
      expect(d.security).toEqual(requirement);
      for (const route of routes) expect(operationOf(d, route).security).toEqual(requirement);
      const scheme = d.components.securitySchemes[SECURITY_SCHEME]!;
      expect(scheme.type).toBe('oauth2');
      expect(scheme.description).toMatch(/Authorization: Bearer/);
      expect(Object.keys(scheme.flows.clientCredentials.scopes)).toEqual([apiScope(stage)]);
    },
  );

  it('takes the token and server URLs given', () => {
    const d = openApiDocument('prod', {
      tokenUrl: 'https://auth.example/oauth2/token',
      serverUrl: 'https://api.example/prod',
    });
    expect(d.components.securitySchemes[SECURITY_SCHEME]!.flows.clientCredentials.tokenUrl).toBe(
      'https://auth.example/oauth2/token',
    );
    expect(d.servers).toEqual([{ url: 'https://api.example/prod', description: 'Stage prod' }]);
  });
});

describe('request bodies', () => {
  const validators: [string, object | readonly object[]][] = [
    ['CreateGroup', createGroupSchema],
    ['UpdateGroup', updateGroupSchema],
    ['AddPayment', addPaymentSchema],
    ['UpdatePayment', updatePaymentSchema],
    ['CreatePayor', createPayorSchema],
    ['UpdatePayor', updatePayorSchema],
    ['BulkSearchPayors', bulkSearchSchema],
    ['UpdateMethod', updateMethodSchema],
    ['CreateSale', saleSchema],
    ['RefundTransaction', refundSchema],
    ['VoidOrRefundGroup', voidOrRefundSchema],
    ['ProcessMerchant', triggerMerchantSchema],
  ];

  it.each(validators)('%s uses the schema object its handler validates with', (id, schema) => {
    expect(requestBodies[id]?.schema).toBe(schema);
  });

  it('AddMethod is a card or a bank account, as parseMethodInput validates', () => {
    const list = requestBodies.AddMethod?.schema as readonly object[];
    expect(list).toHaveLength(2);
    expect(list[0]).toBe(cardMethodSchema);
    expect(list[1]).toBe(checkingMethodSchema);
    expect(requestBodies.CreatePayor?.validatedInCode?.paymentMethod).toBe(list);
  });

  /** The body schema of an operation with every $ref resolved. */
  const bodySchema = (route: Route) =>
    deref(doc, operationOf(doc, route).requestBody?.content['application/json']?.schema) as Json | undefined;
  const inline = (schema: object | readonly object[]): unknown =>
    Array.isArray(schema) ? (schema as object[]).map((s) => toOpenApiSchema(s)) : toOpenApiSchema(schema);

  it.each(routes.map((r) => [r.id, r] as const))(
    '%s: the body documented is the validator’s, translated',
    (_id, route) => {
      const spec =
        requestBodies[route.id] ?? (aliasOf(route) ? requestBodies[aliasOf(route)!.id] : undefined);
      const op = operationOf(doc, route);
      if (!spec) {
        expect(op.requestBody).toBeUndefined();
        return;
      }
      expect(op.requestBody?.required).toBe(spec.optional !== true);
      let schema = bodySchema(route)!;
      if (spec.validatedInCode) {
        const [validated, narrowed] = schema.allOf as Json[];
        for (const [property, list] of Object.entries(spec.validatedInCode)) {
          expect(((narrowed!.properties as Json)[property] as Json).oneOf).toEqual(inline(list));
        }
        schema = validated!;
      }
      expect(Array.isArray(spec.schema) ? schema.oneOf : schema).toEqual(inline(spec.schema));
    },
  );

  it('GET and DELETE operations take no body; nor do void and the group trigger', () => {
    const bodiless = ['VoidTransaction', 'ProcessGroup'];
    for (const route of routes.filter(
      (r) => r.method === 'GET' || r.method === 'DELETE' || bodiless.includes(r.id),
    )) {
      expect(operationOf(doc, route).requestBody).toBeUndefined();
    }
  });

  it('marks the optional bodies of void-or-refund and the merchant trigger as optional', () => {
    for (const id of ['VoidOrRefundGroup', 'ProcessMerchant']) {
      expect(
        operationOf(
          doc,
          routes.find((r) => r.id === id)!,
        ).requestBody?.required,
      ).toBe(false);
    }
    expect(
      operationOf(
        doc,
        routes.find((r) => r.id === 'CreateGroup')!,
      ).requestBody?.required,
    ).toBe(true);
  });

  it('aliases share the component of their target', () => {
    const alias = routes.find((r) => r.id === 'UpdatePaymentAlias')!;
    const target = routes.find((r) => r.id === 'UpdatePayment')!;
    expect(operationOf(doc, alias).requestBody).toEqual(operationOf(doc, target).requestBody);
    expect(operationOf(doc, target).requestBody?.content['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/UpdatePaymentRequest',
    });
  });

  it('tells card and bank methods apart by accountType', () => {
    const method = doc.components.schemas.NewSavedPaymentMethod!;
    expect(method.discriminator).toEqual({
      propertyName: 'accountType',
      mapping: {
        VISA: '#/components/schemas/NewCardMethod',
        MASTERCARD: '#/components/schemas/NewCardMethod',
        AMEX: '#/components/schemas/NewCardMethod',
        DISCOVER: '#/components/schemas/NewCardMethod',
        CHECKING: '#/components/schemas/NewCheckingMethod',
      },
    });
  });
});

describe('schema translation', () => {
  const text = JSON.stringify(doc);

  it('turns maxDecimals into multipleOf 0.01 and leaves no non-OpenAPI keyword', () => {
    expect(text).not.toContain('maxDecimals');
    expect(text).not.toContain('propertyNames');
    const amount = (deref(doc, doc.components.schemas.AddPaymentRequest) as { properties: Json }).properties
      .amount;
    expect(amount).toMatchObject({ type: 'number', minimum: 0.01, maximum: 999999.99, multipleOf: 0.01 });
    const fee = doc.components.schemas.Fee as { properties: Json };
    expect(fee.properties.amount).toMatchObject({ multipleOf: 0.01 });
    expect((doc.components.schemas.CustomerData as Json).description).toBe(
      'Keys are at most 100 characters.',
    );
  });

  it('translates keywords and never modifies the validator schema', () => {
    const source = {
      type: ['string', 'null'],
      $comment: 'x',
      properties: { a: { const: 'A' }, n: { type: 'number', maxDecimals: 3, exclusiveMinimum: 0 } },
      propertyNames: { maxLength: 5 },
      additionalProperties: false,
      required: ['a'],
    };
    const before = structuredClone(source);
    expect(toOpenApiSchema(source)).toEqual({
      type: 'string',
      nullable: true,
      properties: {
        a: { enum: ['A'] },
        n: { type: 'number', multipleOf: 0.001, minimum: 0, exclusiveMinimum: true },
      },
      additionalProperties: false,
      required: ['a'],
      description: 'Keys are at most 5 characters.',
    });
    expect(source).toEqual(before);
  });

  it('documents the query parameters of the validator, with their types and ranges', () => {
    const params = (id: string, where = 'query') =>
      operationOf(
        doc,
        routes.find((r) => r.id === id)!,
      ).parameters.filter((p) => p.in === where);
    for (const id of ['ListGroups', 'ListPendingGroups']) {
      const query = params(id);
      expect(query.map((p) => p.name)).toEqual(Object.keys(listGroupsQuerySchema.properties));
      expect(query.every((p) => !p.required)).toBe(true);
      expect(query.find((p) => p.name === 'pageSize')?.schema).toEqual({
        type: 'integer',
        minimum: 1,
        maximum: MAX_PAGE_SIZE,
      });
      expect(query.find((p) => p.name === 'time')?.schema).toEqual({
        type: 'integer',
        minimum: 0,
        maximum: 23,
      });
      expect(query.find((p) => p.name === 'date')?.schema).toEqual({ type: 'string', format: 'date' });
    }
    expect(params('SearchPayors')).toEqual([
      expect.objectContaining({
        name: 'customerAccountId',
        required: true,
        schema: toOpenApiSchema(searchPayorsQuerySchema.properties.customerAccountId),
      }),
    ]);
    expect(params('GetGroup')).toEqual([]);
  });
});

describe('path parameters', () => {
  const UUIDS = ['GroupID', 'PaymentID', 'PayorID', 'PaymentMethodID', 'TransactionID'];

  it.each(routes.map((r) => [r.id, r] as const))(
    '%s declares exactly the {params} of its path',
    (_id, route) => {
      const declared = operationOf(doc, route).parameters.filter((p) => p.in === 'path');
      expect(declared.map((p) => p.name)).toEqual(pathParameterNames(route.path));
      for (const param of declared) {
        expect(param.required).toBe(true);
        if (param.name === 'MID') {
          expect(param.schema).toEqual({ type: 'string', pattern: '^\\d{8}(\\d{3})?$' });
        } else {
          expect(UUIDS).toContain(param.name);
          expect(param.schema).toMatchObject({ type: 'string', format: 'uuid' });
        }
      }
    },
  );

  it('has patterns that accept exactly what the handlers accept', () => {
    const patternOf = (name: string) => {
      const param = Object.values(doc.paths)
        .flatMap((item) => Object.values(item).flatMap((op) => op.parameters))
        .find((p) => p.name === name);
      return new RegExp(String(param?.schema.pattern));
    };
    const mid = patternOf('MID');
    expect(['23500001', '32350000001'].every((v) => mid.test(v))).toBe(true);
    expect(
      ['2350000', '235000012', '2350000012', '323500000012', '3235000000a'].some((v) => mid.test(v)),
    ).toBe(false);
    for (const name of UUIDS) {
      const uuid = patternOf(name);
      expect(uuid.test('01890a5d-ac96-774b-bcce-b302099a8057')).toBe(true);
      expect(uuid.test('01890A5D-AC96-774B-BCCE-B302099A8057')).toBe(true);
      expect(uuid.test('01890a5d-ac96-774b-bcce-b302099a805')).toBe(false);
      expect(uuid.test('not-a-uuid')).toBe(false);
    }
  });
});

describe('responses', () => {
  const errorSchema = { $ref: '#/components/schemas/Error' };

  it.each(routes.map((r) => [r.id, r] as const))(
    '%s: success status = route.status, and the error responses',
    (_id, route) => {
      const op = operationOf(doc, route);
      const success = Object.keys(op.responses).filter((s) => s.startsWith('2'));
      expect(success).toEqual([String(route.status)]);
      const ok = op.responses[String(route.status)] as { content?: Json };
      if (route.status === 204) expect(ok.content).toBeUndefined();
      else expect(ok.content?.['application/json']).toEqual({ schema: expect.any(Object) });

      const expected = ['400', '401', '403', '429', '500', '503'];
      if (pathParameterNames(route.path).some((p) => p !== 'MID')) expected.push('404');
      for (const status of expected) {
        const response = resolvePointer(doc, (op.responses[status] as { $ref: string }).$ref) as {
          description: string;
          content: Json;
        };
        expect(response.description.length).toBeGreaterThan(5);
        expect(response.content).toEqual({ 'application/json': { schema: errorSchema } });
      }
    },
  );

  it('marks the non-production operations', () => {
    for (const route of routes) {
      const op = operationOf(doc, route);
      expect(op['x-non-production-only']).toBe(route.nonProdOnly ? true : undefined);
      if (route.nonProdOnly) expect(op.description).toMatch(/Non-production only/);
    }
    expect(routes.some((r) => r.nonProdOnly)).toBe(true);
  });

  it('documents 409 where an idempotencyKey is accepted', () => {
    for (const id of ['CreateSale', 'RefundTransaction']) {
      expect(
        operationOf(
          doc,
          routes.find((r) => r.id === id)!,
        ).responses['409'],
      ).toEqual({
        $ref: '#/components/responses/Conflict',
      });
    }
  });

  it('describes the error body', () => {
    expect(doc.components.schemas.Error).toMatchObject({
      type: 'object',
      required: ['message', 'responseCode'],
      properties: { message: { type: 'string' }, responseCode: { type: 'integer' } },
    });
  });
});

describe('response schemas match the views', () => {
  const now = new Date('2026-05-01T12:00:00.000Z');
  const ajv = new Ajv({ strict: false, allErrors: true, multipleOfPrecision: 9 });
  addFormats(ajv);
  ajv.addSchema(doc as object, 'openapi');
  const check = (name: string): ValidateFunction => ajv.getSchema(`openapi#/components/schemas/${name}`)!;

  /** Keys of `value` its component does not declare (allOf parts merged), recursively for named parts. */
  function undeclared(value: unknown, schema: unknown, at = ''): string[] {
    const s = deref(doc, schema) as Json;
    if (Array.isArray(value)) return value.flatMap((v, i) => undeclared(v, s.items, `${at}[${i}]`));
    if (!isObject(value)) return [];
    if (Array.isArray(s.oneOf)) {
      const fits = (s.oneOf as Json[]).filter((o) => o.type === 'object' && isObject(o.properties));
      return fits.length === 1 ? undeclared(value, fits[0], at) : [];
    }
    const parts = Array.isArray(s.allOf) ? (s.allOf as Json[]) : [s];
    const properties = Object.assign(
      {},
      ...parts.map((p) => (p.properties as Json | undefined) ?? {}),
    ) as Json;
    if (Object.keys(properties).length === 0) return [];
    return Object.entries(value).flatMap(([k, v]) =>
      k in properties ? undeclared(v, properties[k], `${at}.${k}`) : [`${at}.${k}`],
    );
  }

  function expectValid(name: string, value: unknown): void {
    const validate = check(name);
    const plain: unknown = JSON.parse(JSON.stringify(value));
    expect(validate(plain) ? [] : validate.errors).toEqual([]);
    expect(undeclared(plain, { $ref: `#/components/schemas/${name}` })).toEqual([]);
  }

  const group: Group = {
    paymentGroupId: '01890a5d-ac96-774b-bcce-b302099a8057',
    merchantId: '32350000001',
    scheduleDate: '2026-06-01',
    scheduleHour: 22,
    locationId: 7,
    transactionInitiator: 'Merchant',
    surchargeCompliance: false,
    allowPartial: true,
    status: 'pending',
    paymentCount: 2,
    totalCents: 3998,
    dateCreated: now.toISOString(),
    lastUpdated: now.toISOString(),
  };
  const sale: Transaction = {
    transactionId: '01890a5d-ac96-774b-bcce-b302099a8060',
    merchantId: '32350000001',
    type: 'sale',
    status: 'Approved',
    responseCode: '00',
    responseMessage: 'Approved',
    amountCents: 1999,
    approvedCents: 1999,
    authCode: 'A1B2C3',
    isDuplicate: false,
    profileId: '01890a5d-ac96-774b-bcce-b302099a8061/01890a5d-ac96-774b-bcce-b302099a8062',
    payorId: '01890a5d-ac96-774b-bcce-b302099a8061',
    savedPaymentMethodId: '01890a5d-ac96-774b-bcce-b302099a8062',
    accountType: 'VISA',
    maskedAccountNumber: '************1111',
    orderId: 'INV-1',
    paymentId: '01890a5d-ac96-774b-bcce-b302099a8058',
    processorTransactionId: 'p-1',
    processedAt: now.toISOString(),
    settlesAt: '2026-05-01T12:30:00.000Z',
    refundedCents: 500,
    refundCount: 1,
  };
  const refund: Refund = {
    refundId: '01890a5d-ac96-774b-bcce-b302099a8063',
    transactionId: sale.transactionId,
    amountCents: 500,
    status: 'Completed',
    date: now.toISOString(),
    responseCode: '00',
    responseMessage: 'Approved',
  };
  const payment: Payment = {
    paymentId: '01890a5d-ac96-774b-bcce-b302099a8058',
    paymentGroupId: group.paymentGroupId,
    merchantId: group.merchantId,
    profileId: sale.profileId,
    amountCents: 1999,
    orderId: 'INV-1',
    recurring: true,
    allowPartial: false,
    sendEmailReceipt: true,
    sendPaymentScheduledNotification: false,
    customAttributes: { term: 'fall', seats: 2, paid: false },
    fees: [{ name: 'service', amountCents: 150 }],
    deleted: false,
    dateCreated: now.toISOString(),
    lastUpdated: now.toISOString(),
    authResponse: null,
  };
  const card: SavedMethod = {
    savedPaymentMethodId: '01890a5d-ac96-774b-bcce-b302099a8062',
    payorId: '01890a5d-ac96-774b-bcce-b302099a8061',
    merchantId: '32350000001',
    accountType: 'VISA',
    maskedAccountNumber: '************1111',
    processorToken: 'tok',
    expiryMonth: 12,
    expiryYear: 2030,
    billingAddress: {
      line1: '1 Main St',
      city: 'Springfield',
      state: 'IL',
      postalCode: '62701',
      country: 'US',
    },
    customerData: { ref: 'a' },
    dateCreated: now.toISOString(),
    lastUpdated: now.toISOString(),
  };
  const checking: SavedMethod = {
    ...card,
    savedPaymentMethodId: '01890a5d-ac96-774b-bcce-b302099a8064',
    accountType: 'CHECKING',
    maskedAccountNumber: '*****6789',
    expiryMonth: undefined,
    expiryYear: undefined,
    billingAddress: { ...card.billingAddress, line2: 'Apt 2' },
    customerData: undefined,
  };
  const payor: Payor = {
    payorId: card.payorId,
    merchantId: '32350000001',
    customerAccountId: 'C-1',
    sponsorKey: 'SPONSOR1',
    customerData: { school: 'x' },
    email: 'parent@example.com',
    defaultPaymentMethodId: card.savedPaymentMethodId,
    methodCount: 2,
    dateCreated: now.toISOString(),
    lastUpdated: now.toISOString(),
  };

  it('Group (groupView), in every status', () => {
    for (const status of ['pending', 'processing', 'processed', 'deleted'] as const) {
      expectValid('Group', groupView({ ...group, status }));
    }
    const processingSummary = {
      approved: 2,
      partial: 1,
      declined: 1,
      failed: 0,
      skipped: 1,
      approvedCents: 2999,
      settlesAt: null,
      processedAt: now.toISOString(),
    };
    expectValid('Group', groupView({ ...group, status: 'processed', processingSummary }));
  });

  it('GroupWithPayments, GroupList and GroupPage', () => {
    expectValid('GroupWithPayments', { ...groupView(group), payments: [paymentView(payment)] });
    expectValid('GroupList', [groupView(group)]);
    expectValid('GroupPage', {
      meta: { page: 3, pageSize: 25, totalItems: 30, totalPages: 2 },
      items: [],
    });
  });

  it('Payment (paymentView): new, minimal, processed and reversed', () => {
    expectValid('Payment', paymentView(payment));
    expectValid(
      'Payment',
      paymentView({
        ...payment,
        orderId: undefined,
        allowPartial: undefined,
        customAttributes: undefined,
        fees: undefined,
      }),
    );
    const processed = {
      ...payment,
      authResponse: transactionView(sale, [refund], now) as unknown as Record<string, unknown>,
      voidOrRefundResponses: [
        {
          type: 'Refund',
          transactionId: sale.transactionId,
          status: 'Completed',
          amount: 19.99,
          responseCode: '00',
          responseMessage: 'Approved',
          date: now.toISOString(),
        },
      ],
    };
    expectValid('Payment', paymentView(processed));
    const voided = {
      type: 'Void',
      transactionId: sale.transactionId,
      status: 'Voided',
      amount: 19.99,
      responseCode: '00',
      responseMessage: 'Voided',
      date: now.toISOString(),
    };
    const pendingRefund = {
      ...processed.voidOrRefundResponses[0]!,
      status: 'Pending',
      responseCode: undefined,
    };
    expectValid('Payment', paymentView({ ...processed, voidOrRefundResponses: [voided, pendingRefund] }));
    const failed = failedAuthResponse(payment, 'ProcessorUnavailableError after 3 attempts', now);
    expectValid('Payment', paymentView({ ...payment, authResponse: failed }));
    const declined = {
      ...sale,
      status: 'Declined' as const,
      responseCode: '05',
      approvedCents: 0,
      settlesAt: undefined,
    };
    expectValid('Payment', paymentView({ ...payment, authResponse: transactionView(declined, [], now) }));
  });

  it('TriggerResult (triggerResult)', () => {
    expectValid(
      'TriggerResult',
      triggerResult([
        {
          paymentGroupId: group.paymentGroupId,
          executionArn: 'arn:aws:states:us-east-1:123456789012:execution:sm:g',
        },
        { paymentGroupId: payment.paymentId, error: 'the group has already been processed' },
      ]),
    );
    expectValid('TriggerResult', triggerResult([]));
  });

  it('VoidOrRefundResult (as the void-or-refund handler builds it)', () => {
    expectValid('VoidOrRefundResult', {
      paymentGroupId: group.paymentGroupId,
      voidedCount: 1,
      refundedCount: 0,
      skippedCount: 1,
      failedCount: 1,
      payments: [
        {
          paymentId: payment.paymentId,
          outcome: 'voided',
          response: {
            type: 'Void',
            transactionId: sale.transactionId,
            status: 'Voided',
            amount: 19.99,
            responseCode: '00',
            responseMessage: 'Voided',
            date: now.toISOString(),
          },
        },
        { paymentId: refund.refundId, outcome: 'skipped', reason: 'not processed' },
        { paymentId: sale.transactionId, outcome: 'failed', reason: 'the processor refused the void: x' },
      ],
    });
  });

  it('Payor and SavedPaymentMethod (payorView, methodView), cards and bank accounts', () => {
    expectValid('Payor', payorView(payor, [card, checking]));
    expectValid(
      'Payor',
      payorView(
        {
          ...payor,
          customerAccountId: undefined,
          sponsorKey: undefined,
          email: undefined,
          customerData: undefined,
        },
        [card],
      ),
    );
    expectValid('SavedPaymentMethod', methodView(card, card.savedPaymentMethodId));
    expectValid('SavedPaymentMethod', methodView(checking, card.savedPaymentMethodId));
  });

  it('Transaction (transactionView): approved, partial, declined, duplicate, voided', () => {
    expectValid(
      'Transaction',
      transactionView(
        sale,
        [refund, { ...refund, refundId: refund.refundId.replace('63', '65'), status: 'Failed' }],
        now,
      ),
    );
    expectValid(
      'Transaction',
      transactionView(
        { ...sale, responseCode: '10', approvedCents: 1000, refundedCents: 0, refundCount: 0 },
        [],
        now,
      ),
    );
    const declined = {
      ...sale,
      status: 'Declined' as const,
      responseCode: '51',
      approvedCents: 0,
      authCode: undefined,
      settlesAt: undefined,
      refundedCents: 0,
      refundCount: 0,
    };
    expectValid('Transaction', transactionView(declined, [], now));
    expectValid(
      'Transaction',
      transactionView(
        { ...declined, responseCode: '19', isDuplicate: true, originalTransactionId: refund.refundId },
        [],
        now,
      ),
    );
    expectValid(
      'Transaction',
      transactionView(
        { ...sale, status: 'Voided', voidedAt: now.toISOString(), refundedCents: 0, refundCount: 0 },
        [],
        now,
      ),
    );
  });

  it('Refund (refundView with availableRefundAmount)', () => {
    expectValid('Refund', { ...refundView(refund), availableRefundAmount: 14.99 });
    expectValid('Refund', {
      ...refundView({ ...refund, status: 'Pending', responseCode: undefined, responseMessage: undefined }),
      availableRefundAmount: 0,
    });
  });

  it('Error (errorBody)', () => {
    expectValid('Error', errorBody(404, 'payment group x not found'));
  });

  it('rejects what the views never produce', () => {
    expect(check('Group')({ ...JSON.parse(JSON.stringify(groupView(group))), totalAmount: 1.234 })).toBe(
      false,
    );
    expect(check('Payment')({ ...JSON.parse(JSON.stringify(paymentView(payment))), authResponse: 'x' })).toBe(
      false,
    );
    expect(check('Error')({ message: 'x' })).toBe(false);
  });
});

/**
 * Problems with the document as OpenAPI 3.0.3 (structure, references, schema keywords), found by
 * hand since no OpenAPI validator package is installed.
 */
function structuralProblems(d: unknown): string[] {
  const problems: string[] = [];
  const fail = (at: string, what: string) => problems.push(`${at}: ${what}`);
  const SCHEMA_KEYS = new Set([
    'title', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength',
    'pattern', 'maxItems', 'minItems', 'uniqueItems', 'maxProperties', 'minProperties', 'required', 'enum', 'type',
    'allOf', 'oneOf', 'anyOf', 'not', 'items', 'properties', 'additionalProperties', 'description', 'format',
    'default', 'nullable', 'discriminator', 'readOnly', 'writeOnly', 'xml', 'externalDocs', 'example', 'deprecated',
  ]); // prettier-ignore
  const TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object'];
  const nonNegativeInt = (v: unknown) => Number.isInteger(v) && (v as number) >= 0;

  const checkRef = (at: string, value: Json) => {
    if (Object.keys(value).length !== 1) fail(at, '$ref with siblings (ignored in OpenAPI 3.0)');
    if (typeof value.$ref !== 'string' || resolvePointer(d, value.$ref) === undefined)
      fail(at, `unresolved $ref ${String(value.$ref)}`);
  };

  function schema(at: string, s: unknown): void {
    if (!isObject(s)) return void fail(at, 'schema is not an object');
    if ('$ref' in s) return checkRef(at, s);
    for (const key of Object.keys(s))
      if (!SCHEMA_KEYS.has(key) && !key.startsWith('x-')) fail(at, `unknown schema keyword ${key}`);
    if ('type' in s && !TYPES.includes(s.type as string)) fail(at, `bad type ${JSON.stringify(s.type)}`);
    if (s.type === 'array' && !('items' in s)) fail(at, 'array without items');
    if ('required' in s) {
      const r = s.required;
      if (
        !Array.isArray(r) ||
        r.length === 0 ||
        new Set(r).size !== r.length ||
        r.some((x) => typeof x !== 'string')
      )
        fail(at, 'bad required');
    }
    if ('enum' in s && (!Array.isArray(s.enum) || s.enum.length === 0)) fail(at, 'bad enum');
    if ('multipleOf' in s && !(typeof s.multipleOf === 'number' && s.multipleOf > 0))
      fail(at, 'bad multipleOf');
    for (const k of ['maxLength', 'minLength', 'maxItems', 'minItems', 'maxProperties', 'minProperties']) {
      if (k in s && !nonNegativeInt(s[k])) fail(at, `bad ${k}`);
    }
    for (const k of ['minimum', 'maximum']) if (k in s && typeof s[k] !== 'number') fail(at, `bad ${k}`);
    for (const k of [
      'exclusiveMinimum',
      'exclusiveMaximum',
      'nullable',
      'readOnly',
      'writeOnly',
      'deprecated',
      'uniqueItems',
    ]) {
      if (k in s && typeof s[k] !== 'boolean') fail(at, `${k} must be a boolean`);
    }
    if (s.nullable === true && !('type' in s)) fail(at, 'nullable without type');
    for (const k of ['description', 'format', 'title'])
      if (k in s && typeof s[k] !== 'string') fail(at, `bad ${k}`);
    if ('pattern' in s) {
      try {
        new RegExp(String(s.pattern));
      } catch {
        fail(at, `bad pattern ${String(s.pattern)}`);
      }
    }
    if ('items' in s) schema(`${at}/items`, s.items);
    if ('not' in s) schema(`${at}/not`, s.not);
    if ('additionalProperties' in s && typeof s.additionalProperties !== 'boolean')
      schema(`${at}/additionalProperties`, s.additionalProperties);
    if ('properties' in s) {
      if (!isObject(s.properties)) fail(at, 'properties is not an object');
      else for (const [k, v] of Object.entries(s.properties)) schema(`${at}/properties/${k}`, v);
    }
    for (const k of ['allOf', 'anyOf', 'oneOf']) {
      if (!(k in s)) continue;
      if (!Array.isArray(s[k]) || (s[k] as unknown[]).length === 0) fail(at, `bad ${k}`);
      else (s[k] as unknown[]).forEach((v, i) => schema(`${at}/${k}/${i}`, v));
    }
    if ('discriminator' in s) {
      const disc = s.discriminator as Json;
      if (typeof disc.propertyName !== 'string') fail(at, 'discriminator without propertyName');
      for (const target of Object.values((disc.mapping as Json | undefined) ?? {})) {
        if (typeof target !== 'string' || resolvePointer(d, target) === undefined)
          fail(at, `bad discriminator mapping ${String(target)}`);
      }
    }
  }

  function content(at: string, c: unknown): void {
    if (!isObject(c) || Object.keys(c).length === 0) return void fail(at, 'empty content');
    for (const [type, media] of Object.entries(c)) {
      if (!/^[\w.+-]+\/[\w.+-]+$/.test(type)) fail(at, `bad media type ${type}`);
      if (!isObject(media) || !('schema' in media)) fail(`${at}/${type}`, 'no schema');
      else schema(`${at}/${type}/schema`, media.schema);
    }
  }

  function response(at: string, r: unknown): void {
    if (!isObject(r)) return void fail(at, 'response is not an object');
    if ('$ref' in r) {
      checkRef(at, r);
      if (!String(r.$ref).startsWith('#/components/responses/'))
        fail(at, 'response $ref outside components/responses');
      return;
    }
    if (typeof r.description !== 'string') fail(at, 'response without description');
    if ('content' in r) content(`${at}/content`, r.content);
    for (const [name, header] of Object.entries((r.headers as Json | undefined) ?? {}))
      schema(`${at}/headers/${name}/schema`, (header as Json).schema);
  }

  if (!isObject(d)) return ['document is not an object'];
  if (typeof d.openapi !== 'string' || !/^3\.0\.\d+$/.test(d.openapi)) fail('openapi', 'not 3.0.x');
  const info = d.info as Json | undefined;
  if (
    !isObject(info) ||
    typeof info.title !== 'string' ||
    typeof info.version !== 'string' ||
    info.version === ''
  )
    fail('info', 'title and version required');
  for (const [i, server] of ((d.servers as Json[] | undefined) ?? []).entries()) {
    const vars = (server.variables as Json | undefined) ?? {};
    for (const [, name] of String(server.url).matchAll(/\{([^}]+)\}/g)) {
      if (!isObject(vars[name!]) || typeof (vars[name!] as Json).default !== 'string')
        fail(`servers/${i}`, `variable ${name} without default`);
    }
  }

  const components = (d.components as Json | undefined) ?? {};
  for (const [kind, entries] of Object.entries(components)) {
    for (const name of Object.keys(entries as Json))
      if (!/^[a-zA-Z0-9.\-_]+$/.test(name)) fail(`components/${kind}`, `bad name ${name}`);
  }
  for (const [name, s] of Object.entries((components.schemas as Json | undefined) ?? {}))
    schema(`#/components/schemas/${name}`, s);
  for (const [name, r] of Object.entries((components.responses as Json | undefined) ?? {}))
    response(`#/components/responses/${name}`, r);
  const schemes = (components.securitySchemes as Record<string, Json> | undefined) ?? {};
  for (const [name, scheme] of Object.entries(schemes)) {
    if (!['apiKey', 'http', 'oauth2', 'openIdConnect'].includes(String(scheme.type)))
      fail(`securitySchemes/${name}`, 'bad type');
    if (scheme.type === 'oauth2') {
      const flows = scheme.flows as Record<string, Json>;
      if (!isObject(flows) || Object.keys(flows).length === 0) fail(`securitySchemes/${name}`, 'no flows');
      for (const [flow, f] of Object.entries(flows ?? {})) {
        if (!['implicit', 'password', 'clientCredentials', 'authorizationCode'].includes(flow))
          fail(`securitySchemes/${name}`, `bad flow ${flow}`);
        if (flow !== 'implicit' && !URL.canParse(String(f.tokenUrl)))
          fail(`securitySchemes/${name}/${flow}`, 'tokenUrl is not a URL');
        if (!isObject(f.scopes)) fail(`securitySchemes/${name}/${flow}`, 'no scopes');
      }
    }
  }
  const checkSecurity = (at: string, requirements: unknown) => {
    if (!Array.isArray(requirements)) return void fail(at, 'security is not an array');
    for (const requirement of requirements as Json[]) {
      for (const [name, scopes] of Object.entries(requirement)) {
        const scheme = schemes[name];
        if (!scheme) fail(at, `unknown security scheme ${name}`);
        else if (scheme.type === 'oauth2') {
          const known = Object.values(scheme.flows as Record<string, Json>).flatMap((f) =>
            Object.keys(f.scopes as Json),
          );
          for (const scope of scopes as string[])
            if (!known.includes(scope)) fail(at, `scope ${scope} not defined by ${name}`);
        } else if ((scopes as unknown[]).length > 0) fail(at, 'scopes on a non-OAuth scheme');
      }
    }
  };
  if ('security' in d) checkSecurity('security', d.security);

  const operationIds = new Set<string>();
  const templates = new Set<string>();
  for (const [path, item] of Object.entries((d.paths as Record<string, Json> | undefined) ?? {})) {
    if (!path.startsWith('/') || path.includes('?')) fail(path, 'path must start with / and carry no query');
    const template = path.replace(/\{[^}]+\}/g, '{}');
    if (templates.has(template)) fail(path, 'same template as another path');
    templates.add(template);
    const names = pathParameterNames(path);
    if (new Set(names).size !== names.length) fail(path, 'repeated path parameter');
    for (const [verb, op] of Object.entries(item)) {
      const at = `${verb.toUpperCase()} ${path}`;
      if (!['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].includes(verb)) {
        fail(at, 'unknown path item field');
        continue;
      }
      const o = op as Json;
      if (typeof o.operationId !== 'string' || operationIds.has(o.operationId))
        fail(at, 'missing or repeated operationId');
      operationIds.add(String(o.operationId));
      const params = (o.parameters as Json[] | undefined) ?? [];
      const seen = new Set<string>();
      for (const p of params) {
        const key = `${String(p.in)}:${String(p.name)}`;
        if (seen.has(key)) fail(at, `repeated parameter ${key}`);
        seen.add(key);
        if (!['path', 'query', 'header', 'cookie'].includes(String(p.in)))
          fail(at, `bad parameter location ${key}`);
        if (p.in === 'path' && (p.required !== true || !names.includes(String(p.name))))
          fail(at, `bad path parameter ${key}`);
        if ('schema' in p === 'content' in p) fail(at, `parameter ${key} needs schema or content`);
        if ('schema' in p) schema(`${at} ${key}`, p.schema);
      }
      for (const name of names)
        if (!seen.has(`path:${name}`)) fail(at, `path parameter ${name} not declared`);
      if ('requestBody' in o) content(`${at} requestBody`, (o.requestBody as Json).content);
      const responses = o.responses as Json | undefined;
      if (!isObject(responses) || Object.keys(responses).length === 0) fail(at, 'no responses');
      for (const [status, r] of Object.entries(responses ?? {})) {
        if (!/^([1-5](\d\d|XX)|default)$/.test(status)) fail(at, `bad status ${status}`);
        response(`${at} ${status}`, r);
      }
      if ('security' in o) checkSecurity(at, o.security);
      if (!Array.isArray(o.tags) || o.tags.some((t) => typeof t !== 'string')) fail(at, 'bad tags');
    }
  }
  return problems;
}

describe('structure', () => {
  it.each(stages.map((s) => [s] as const))(
    'the %s document is valid OpenAPI 3.0.3, as far as checked by hand',
    (stage) => {
      const d = openApiDocument(stage);
      expect(JSON.parse(JSON.stringify(d))).toEqual(d);
      expect(structuralProblems(d)).toEqual([]);
    },
  );

  it('the check finds problems when there are some', () => {
    const broken = structuredClone(doc) as unknown as Json;
    const paths = broken.paths as Record<string, Record<string, Json>>;
    const op = paths['/rest/merchants/{MID}/groups']!.post!;
    op.parameters = [];
    ((op.responses as Json)['201'] as Json).content = {
      'application/json': { schema: { $ref: '#/components/schemas/Nope' } },
    };
    ((broken.components as Json).schemas as Json).Bad = { type: 'array', maxDecimals: 2, required: [] };
    expect(structuralProblems(broken)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/path parameter MID not declared/),
        expect.stringMatching(/unresolved \$ref #\/components\/schemas\/Nope/),
        expect.stringMatching(/Bad: unknown schema keyword maxDecimals/),
        expect.stringMatching(/Bad: array without items/),
        expect.stringMatching(/Bad: bad required/),
      ]),
    );
  });
});

describe('new routes', () => {
  const extra: Route = {
    id: 'ResendNotices',
    method: 'POST',
    path: '/rest/merchants/{MID}/groups/{GroupID}/resend-notices',
    handler: 'notices/resend-notices',
    status: 200,
    summary: 'Send the scheduled-payment notices again (non-production)',
    nonProdOnly: true,
  };

  /** lib/openapi built over the route table plus `route`, with `docs` added to operationDocs. */
  function withRoute(route: Route, docs: Record<string, OperationDoc>) {
    let build: typeof openApiDocument | undefined;
    jest.isolateModules(() => {
      jest.doMock('../../lib/routes', () => ({ routes: [...routes, route] }));
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const mod = require('../../lib/openapi') as typeof import('../../lib/openapi');
      Object.assign(mod.operationDocs, docs);
      build = mod.openApiDocument;
    });
    jest.dontMock('../../lib/routes');
    return build!;
  }

  it('need an operationDocs entry, and the generator says so', () => {
    expect(() => withRoute(extra, {})('dev')).toThrow(/ResendNotices has no entry in operationDocs/);
  });

  it('become an operation from a docs entry alone (no requestBodies entry: no body)', () => {
    const build = withRoute(extra, {
      ResendNotices: {
        description: 'Sends the notices again.',
        response: { schema: { $ref: '#/components/schemas/TriggerResult' }, description: 'The result.' },
      },
    });
    const d = build('dev');
    const op = d.paths[extra.path]?.post;
    expect(op).toMatchObject({
      operationId: 'ResendNotices',
      'x-non-production-only': true,
      tags: ['Notices'],
    });
    expect(op?.requestBody).toBeUndefined();
    expect(op?.description).toMatch(/Non-production only/);
    expect(Object.keys(op?.responses ?? {})).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '429',
      '500',
      '503',
    ]);
    expect(d.tags.map((t) => t.name)).toContain('Notices');
    expect(structuralProblems(d)).toEqual([]);
  });
});
