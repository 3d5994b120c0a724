/**
 * The OpenAPI document (lib/openapi/): every route as an operation, the route's schemas as request
 * bodies and responses, and the document validated by a maintained validator
 * (@apidevtools/swagger-parser, in scripts/openapi.ts). That the views match the response schemas is checked by the
 * compiler: each view returns the type derived from its schema (contract/schemas).
 */
import '#support/handlers/env';
import packageJson from '../../package.json';
import { DECLINE_CODES } from '#contract/declines';
import { BANK_ACCOUNT_TYPES } from '#contract/schemas/common';
import { ProcessMerchant } from '#generated/validators';
import { HEALTH } from '#contract/health';
import { MAX_PAGE_SIZE, MAX_UNPAGED_GROUPS } from '#contract/limits';
import { unpaged } from '#core/lists';
import { BadRequestError } from '#shared/errors';
import { pathParamNames as pathParameterNames } from '#contract/params';
import { routeList as routes, type Route } from '#contract/routes/index';
import { listGroupsQuerySchema } from '#contract/schemas/groups';
import {
  cardMethodSchema,
  cardTokenMethodSchema,
  checkingMethodSchema,
  checkingTokenMethodSchema,
  searchPayorsQuerySchema,
} from '#contract/schemas/payors';
import { apiScope, stages } from '#contract/stage';
import {
  openApiDocument,
  SECURITY_SCHEME,
  toOpenApiSchema,
  type OpenApiDocument,
  type OperationObject,
} from '#lib/openapi/index';

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

/** The alias target of a route. */
const aliasOf = (route: Route): Route | undefined => routes.find((r) => r.id === route.aliasOf);

/** The body a route declares. */
const bodyOf = (id: string) => routes.find((r) => r.id === id)?.body;

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
  it('has one operation per route, the health check, and nothing else', () => {
    const count = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    expect(count).toBe(routes.length + 1);
    expect(Object.keys(doc.paths[HEALTH.path] ?? {})).toEqual(['get']);
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
      '**Deprecated**: identical alias of `POST /rest/merchants/{MID}/groups/{GroupID}/payments`',
    );
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
  it('AddMethod is a card or a bank account, by numbers or by token, as parseMethodInput validates', () => {
    const list = bodyOf('AddMethod')?.schema as readonly object[];
    expect(list).toEqual([
      cardMethodSchema,
      checkingMethodSchema,
      cardTokenMethodSchema,
      checkingTokenMethodSchema,
    ]);
    expect(bodyOf('CreatePayor')?.validatedInCode?.paymentMethod).toBe(list);
  });

  /** The body schema of an operation with every $ref resolved. */
  const bodySchema = (route: Route) =>
    deref(doc, operationOf(doc, route).requestBody?.content['application/json']?.schema) as Json | undefined;
  const inline = (schema: object | readonly object[]): unknown =>
    Array.isArray(schema) ? (schema as object[]).map((s) => toOpenApiSchema(s)) : toOpenApiSchema(schema);

  it.each(routes.map((r) => [r.id, r] as const))(
    '%s: the body documented is the validator’s, translated',
    (_id, route) => {
      const spec = route.body ?? aliasOf(route)?.body;
      const op = operationOf(doc, route);
      if (!spec) {
        expect(op.requestBody).toBeUndefined();
        return;
      }
      expect(op.requestBody?.required).toBe(spec.optional !== true);
      const schema = bodySchema(route)!;
      const expected = inline(spec.schema) as Json;
      if (spec.validatedInCode) {
        // Properties validated in code are documented as the schemas the handler checks them with.
        const properties = { ...(schema.properties as Json) };
        for (const [property, list] of Object.entries(spec.validatedInCode)) {
          expect((properties[property] as Json).oneOf).toEqual(inline(list));
          properties[property] = (expected.properties as Json)[property];
        }
        expect({ ...schema, properties }).toEqual(expected);
        return;
      }
      expect(Array.isArray(spec.schema) ? schema.oneOf : schema).toEqual(expected);
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

  it("defect: the merchant trigger's description said scheduleHour alone selected that hour on any date, which its body's schema refuses (400): it says it is refused", () => {
    const description = operationOf(
      doc,
      routes.find((r) => r.id === 'ProcessMerchant')!,
    ).description;
    expect(description).toContain('scheduleHour without scheduleDate is 400');
    expect(description).not.toMatch(/scheduleHour alone/);
    const validate = ProcessMerchant.body!.validate!;
    expect(validate({ scheduleHour: 5 })).toBe(false);
    expect(validate({ scheduleDate: '2031-01-01', scheduleHour: 5 })).toBe(true);
  });

  it("defect: the group and series lists' descriptions promised an array of every matching item without paging, but past MAX_UNPAGED_GROUPS (or Lambda's 6 MB) the answer is a 400 asking to page: they say so", () => {
    const cap = `up to ${MAX_UNPAGED_GROUPS.toLocaleString('en-US')} of them`;
    for (const id of ['ListGroups', 'ListPendingGroups', 'ListSeries'])
      expect(
        operationOf(
          doc,
          routes.find((r) => r.id === id)!,
        ).description,
      ).toContain(cap);
    const items = Array.from({ length: MAX_UNPAGED_GROUPS + 1 }, (_, i) => ({ i }));
    expect(() => unpaged(items, 'groups')).toThrow(BadRequestError);
    expect(unpaged(items.slice(1), 'groups')).toHaveLength(MAX_UNPAGED_GROUPS);
  });

  it('the method descriptions name every bank account type the schemas take, the mandate and the processor token (SAVINGS, accepted since NOCs, was missing)', () => {
    const create =
      operationOf(
        doc,
        routes.find((r) => r.id === 'CreatePayor')!,
      ).description ?? '';
    const add =
      operationOf(
        doc,
        routes.find((r) => r.id === 'AddMethod')!,
      ).description ?? '';
    for (const type of BANK_ACCOUNT_TYPES) {
      expect(create).toContain(type);
      expect(add).toContain(type);
    }
    expect(create).toMatch(/mandate/);
    expect(create).toMatch(/processorToken/);
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

  it('tells a method by numbers from one by processorToken by their required fields, not accountType alone', () => {
    const method = doc.components.schemas.NewSavedPaymentMethod!;
    // accountType names the kind (card or bank) in both forms, so it cannot discriminate the four.
    expect(method.discriminator).toBeUndefined();
    expect(method.oneOf).toEqual(
      ['NewCardMethod', 'NewCheckingMethod', 'NewCardTokenMethod', 'NewCheckingTokenMethod'].map((name) => ({
        $ref: `#/components/schemas/${name}`,
      })),
    );
    const required = (name: string) => (doc.components.schemas[name] as { required: string[] }).required;
    expect(required('NewCardMethod')).toContain('cardNumber');
    expect(required('NewCheckingMethod')).toContain('accountNumber');
    expect(required('NewCardTokenMethod')).toContain('processorToken');
    expect(required('NewCheckingTokenMethod')).toContain('processorToken');
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
    expect((doc.components.schemas.CustomerData as Json).description).toMatch(
      /^Keys are at most 100 characters\. These keys are reserved \(400\): `__proto__`, `constructor`, /,
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
    // Exactly one of customerAccountId and expiringBefore: each optional, the pair checked in code.
    expect(params('SearchPayors')).toEqual(
      (['customerAccountId', 'expiringBefore', 'pageToken'] as const).map((name) =>
        expect.objectContaining({
          name,
          required: false,
          schema: toOpenApiSchema(searchPayorsQuerySchema.properties[name]),
        }),
      ),
    );
    expect(params('GetGroup')).toEqual([]);
  });
});

describe('path parameters', () => {
  const UUIDS = [
    'GroupID',
    'PaymentID',
    'PayorID',
    'PaymentMethodID',
    'TransactionID',
    'WebhookEndpointID',
    'SeriesID',
    'DisputeID',
  ];

  it.each(routes.map((r) => [r.id, r] as const))(
    '%s declares exactly the {params} of its path',
    (_id, route) => {
      const declared = operationOf(doc, route).parameters.filter((p) => p.in === 'path');
      expect(declared.map((p) => p.name)).toEqual(pathParameterNames(route.path));
      for (const param of declared) {
        expect(param.required).toBe(true);
        if (param.name === 'MID') {
          expect(param.schema).toEqual({ type: 'string', pattern: '^\\d{8}(\\d{3})?$' });
        } else if (param.name === 'EventID') {
          expect(param.schema).toEqual({ type: 'string', pattern: '^evt_[0-9a-f]{32}$' });
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
      // A route whose work may continue in the background answers 202 too (route.accepted).
      // (Integer-like keys list in numeric order: a 204 comes after the 202.)
      expect(success.sort()).toEqual([String(route.status), ...(route.accepted ? ['202'] : [])].sort());
      const ok = op.responses[String(route.status)] as { content?: Json };
      if (route.status === 204) expect(ok.content).toBeUndefined();
      else {
        // With its example (test/unit/openapi-examples.test.ts checks the examples).
        // Other outcomes of the same request may follow the success (contract/examples otherResponses).
        expect(ok.content?.['application/json']).toEqual({
          schema: expect.any(Object),
          examples: expect.objectContaining({ success: expect.any(Object) }),
        });
      }

      const expected = ['400', '401', '403', '429', '500', '503'];
      if (pathParameterNames(route.path).some((p) => p !== 'MID')) expected.push('404');
      for (const status of expected) {
        // The 400 is the operation's own (its example); the others are shared components.
        const entry = op.responses[status] as { $ref?: string };
        const response = (entry.$ref === undefined ? entry : resolvePointer(doc, entry.$ref)) as {
          description: string;
          content: Record<string, Json>;
        };
        expect(response.description.length).toBeGreaterThan(5);
        expect(Object.keys(response.content)).toEqual(['application/json']);
        expect(response.content['application/json']!.schema).toEqual(errorSchema);
        if (status === '400') {
          expect(response.description).toMatch(/`errors`: every problem found/);
          expect(response.content['application/json']!.examples).toEqual({ invalid: expect.any(Object) });
        } else {
          expect(response.content['application/json']!.examples).toBeUndefined();
        }
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

  it('describes the error body, with errors[] of a 400 for a body or query that fails its schema', () => {
    expect(doc.components.schemas.Error).toMatchObject({
      type: 'object',
      required: ['message', 'responseCode'],
      properties: {
        message: { type: 'string' },
        responseCode: { type: 'integer' },
        errors: {
          type: 'array',
          items: {
            type: 'object',
            required: ['field', 'message'],
            properties: { field: { type: 'string' }, message: { type: 'string' } },
          },
        },
      },
    });
    expect(
      (doc.components.schemas.Error as { properties: { errors: Json } }).properties.errors.description,
    ).toMatch(/A 400 for a body or query that failed its schema only: every problem found/);
  });

  it('has a license and a description of every tag (redocly.yaml, linted by npm run openapi)', () => {
    expect(doc.info.license).toEqual({
      name: expect.stringMatching(/^Proprietary/),
      url: expect.any(String),
    });
    for (const tag of doc.tags) expect(tag.description).toEqual(expect.any(String));
  });
});

describe('structure', () => {
  // Validity against the OpenAPI 3.0 schema is checked by @apidevtools/swagger-parser in
  // `npm run openapi` (scripts/openapi.ts), which npm test runs; the validator is ESM-only.
  it.each(stages.map((s) => [s] as const))('the %s document is plain JSON', (stage) => {
    const d = openApiDocument(stage);
    expect(JSON.parse(JSON.stringify(d))).toEqual(d);
  });
});

describe('new routes', () => {
  it('a route that answers a body must declare its response schema', () => {
    const route: Route = {
      ...routes[0]!,
      id: 'Extra',
      path: '/rest/merchants/{MID}/extra',
      response: undefined,
    };
    jest.isolateModules(() => {
      jest.doMock('../../contract/routes/index', () => ({ routes: { Extra: route } }));
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const mod = require('#lib/openapi/index') as typeof import('#lib/openapi/index');
      expect(() => mod.openApiDocument('dev')).toThrow(/Extra answers 200 but declares no response schema/);
    });
    jest.dontMock('../../contract/routes/index');
  });
});
