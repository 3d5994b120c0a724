/**
 * fast-check arbitraries for hostile requests over every operation of openapi.json: random and
 * mutated paths, query names (Object.prototype's included) and values, headers, content types and
 * bodies. Each case records the mutations it carries and the reasons it must be refused, so that
 * the properties (test/e2e/fuzz.test.ts) and the known-defect patterns can read them.
 */
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bodyOf, idsIn, lookalike, pathOf, type Ids, type Operation } from '#support/security-operations';

export interface FuzzCase {
  operationId: string;
  method: string;
  path: string;
  query: [string, string][];
  /** Appended to the query string as is (not encoded): broken escapes and the like. */
  rawQuery: string;
  headers: Record<string, string>;
  /** The JSON value before serialization, when the body is JSON text of one. */
  value?: unknown;
  body?: string;
  /** `body` is the base64 of the bytes to send (bytes that are not UTF-8 among them). */
  bodyIsBase64?: true;
  /** Why this request may not succeed (2xx), whatever else it carries. */
  mustRefuse: string[];
  /** The operation takes no token and reads no input (the health check): its 2xx is its fixed body. */
  open?: boolean;
}

/** 10 MB is API Gateway's payload limit (lib/local/http-server.ts). */
const OVER_LIMIT = 10 * 1024 * 1024 + 16;

const PROTOTYPE_NAMES = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  '__defineGetter__',
] as const;

/** The operations of openapi.json that take the `Idempotency-Key` header (every keyed POST). */
export function keyedOperations(): Set<string> {
  const doc = JSON.parse(readFileSync(join(__dirname, '..', '..', 'openapi.json'), 'utf8')) as {
    paths: Record<
      string,
      Record<string, { operationId?: string; parameters?: { in?: string; name?: string }[] }>
    >;
  };
  const out = new Set<string>();
  for (const item of Object.values(doc.paths))
    for (const op of Object.values(item))
      if (
        op?.operationId &&
        (op.parameters ?? []).some((p) => p.in === 'header' && p.name === 'Idempotency-Key')
      )
        out.add(op.operationId);
  return out;
}

/** The header's rule (lambdas/shared/http.ts); anything else must be refused with 400. */
const KEY_PATTERN = /^[A-Za-z0-9_.:-]{1,100}$/;

/** Declared query parameter names of each operation (openapi.json). */
export function declaredQuery(): Map<string, Set<string>> {
  const doc = JSON.parse(readFileSync(join(__dirname, '..', '..', 'openapi.json'), 'utf8')) as {
    paths: Record<
      string,
      Record<string, { operationId?: string; parameters?: { in?: string; name?: string }[] }>
    >;
  };
  const out = new Map<string, Set<string>>();
  for (const item of Object.values(doc.paths))
    for (const op of Object.values(item))
      if (op?.operationId)
        out.set(
          op.operationId,
          new Set((op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name!)),
        );
  return out;
}

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('', ' ', 'a\r\nBcc: x@evil.example', '\u0000', '\u202e', '😀'.repeat(30), 'x'.repeat(5000)),
);

const hostileNumber = fc.oneof(
  fc.constantFrom(1e308, -1e308, 5e-324, -0, 2 ** 53 + 2, 0.1 + 0.2, Number('10.000000000000001'), 1.234),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** Nested arrays or objects, `depth` deep, as JSON text (JSON.stringify of such would recurse). */
const deep = fc
  .tuple(fc.integer({ min: 10, max: 5000 }), fc.boolean())
  .map(([depth, arrays]) =>
    arrays ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth),
  );

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileNumber,
  text,
  fc.constantFrom(null, true, false, [], {}, [1, 'x'], { a: { b: [] } }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Built when drawn (rarely), not when the arbitrary is: 10 MB per operation would add up. */
const oversized = fc.constant(null).map(() => `{"a":"${'x'.repeat(OVER_LIMIT)}"}`);

/** An object whose own keys include a prototype name (JSON.stringify writes `__proto__` as a key). */
const prototypeKeys = fc
  .tuple(fc.subarray([...PROTOTYPE_NAMES], { minLength: 1 }), text)
  .map(([names, value]) => Object.fromEntries(names.map((n) => [n, value])));

/** Operations whose body has the free-text `orderId`. */
const FREE_TEXT_OPERATIONS = new Set([
  'AddPayment',
  'AddPaymentAlias',
  'UpdatePayment',
  'UpdatePaymentAlias',
  'CreateSale',
]);

type BodyMutation = { value?: unknown; body?: string; bodyIsBase64?: true; mustRefuse?: string };

/** Text that is not well-formed: lone surrogates, and U+FFFD (what bytes that are not UTF-8 decode to). */
const MALFORMED_TEXT = ['\ud800', 'x\udfff', 'INV-\ud83d', 'Caf\uFFFD'] as const;

/** Byte sequences no UTF-8 text holds: a lone 0xFF, Latin-1's é, a cut sequence, an encoded surrogate, an overlong form. */
const NOT_UTF8 = [[0xff], [0xe9], [0xc3], [0xed, 0xa0, 0x80], [0xc0, 0xaf]] as const;

/** The body with field `name` a string that holds `bytes` (raw), as base64 of the bytes to send. */
function withBytes(base: Record<string, unknown>, name: string, bytes: readonly number[]): string {
  const [before, after] = JSON.stringify({ ...base, [name]: '\u0000' }).split('\\u0000') as [string, string];
  return Buffer.concat([Buffer.from(`${before}x`), Buffer.from(bytes), Buffer.from(`y${after}`)]).toString(
    'base64',
  );
}

function bodyMutation(op: Operation, base: Record<string, unknown>): fc.Arbitrary<BodyMutation> {
  const keys = Object.keys(base);
  const field =
    keys.length > 0 ? fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 12 })) : fc.string();
  const withField = (name: string, v: unknown) => ({ ...base, [name]: v });
  const choices: fc.WeightedArbitrary<BodyMutation>[] = [
    { weight: 100, arbitrary: fc.constant<BodyMutation>({ value: base }) },
    { weight: 300, arbitrary: fc.tuple(field, hostileValue).map(([k, v]) => ({ value: withField(k, v) })) },
    {
      weight: 100,
      arbitrary: fc
        .tuple(fc.constantFrom('customAttributes', 'customerData'), prototypeKeys)
        .map(([k, v]) => ({ value: withField(k, v) })),
    },
    {
      weight: 'amount' in base ? 50 : 0,
      arbitrary: fc.constantFrom(0.1 + 0.2, Number('10.000000000000001'), 1.234, 0.001).map((amount) => ({
        value: withField('amount', amount),
        mustRefuse: 'an amount with more than 2 decimals',
      })),
    },
    {
      weight: FREE_TEXT_OPERATIONS.has(op.operationId) ? 50 : 0,
      arbitrary: fc
        .constantFrom('a\r\nX-Injected: 1', 'line\nline', 'tab\tand\u0000nul', 'bell\u0007')
        .map((orderId) => ({
          value: withField('orderId', orderId),
          mustRefuse: 'control characters in free text',
        })),
    },
    {
      // Issue 22, item 4: a full card number in free text, as written (groups, separators).
      weight: FREE_TEXT_OPERATIONS.has(op.operationId) ? 50 : 0,
      arbitrary: fc
        .tuple(
          fc.constantFrom(
            '4012888888881881',
            '4111 1111 1111 1111',
            '5555-5555-5555-4444',
            '378282246310005',
          ),
          fc.constantFrom('', 'order ', 'card: '),
        )
        .map(([pan, prefix]) => ({
          value: withField('orderId', `${prefix}${pan}`),
          mustRefuse: 'a card number in free text',
        })),
    },
    {
      weight: 'customAttributes' in base || 'customerData' in base ? 50 : 0,
      arbitrary: fc.constantFrom('4012888888881881', 'pan 6011111111111117').map((pan) => ({
        value: withField('customAttributes' in base ? 'customAttributes' : 'customerData', { note: pan }),
        mustRefuse: 'a card number in free text',
      })),
    },
    {
      // Any string or key of any body, wherever it is: refused before the schema reads it.
      weight: 50,
      arbitrary: fc
        .tuple(field, fc.constantFrom(...MALFORMED_TEXT), fc.boolean())
        .map(([k, text, asKey]) => ({
          value: withField(k, asKey ? { [`key${text}`]: 'v' } : text),
          mustRefuse: 'text that is not well-formed Unicode',
        })),
    },
    {
      weight: 30,
      arbitrary: fc.tuple(field, fc.constantFrom(...NOT_UTF8)).map(([k, bytes]) => ({
        body: withBytes(base, k, bytes),
        bodyIsBase64: true as const,
        mustRefuse: 'bytes that are not UTF-8',
      })),
    },
    { weight: 50, arbitrary: deep.map((body) => ({ body, mustRefuse: 'a nested body of the wrong shape' })) },
    {
      weight: 100,
      arbitrary: fc
        .tuple(fc.nat(), fc.constantFrom('', '}', ',', "'", '\u0000', 'garbage'))
        .map(([cut, tail]) => {
          const json = JSON.stringify(base);
          return { body: json.slice(0, cut % Math.max(1, json.length)) + tail, mustRefuse: 'invalid JSON' };
        })
        // An empty body is no body (the case below: refused only where the body is required).
        .filter((m) => {
          if (m.body.trim() === '') return false;
          try {
            JSON.parse(m.body);
            return false;
          } catch {
            return true;
          }
        }),
    },
    {
      weight: 50,
      arbitrary: fc
        .constantFrom('[]', '"x"', '1', 'true', '[{}]')
        .map((body) => ({ body, mustRefuse: 'a body that is not an object' })),
    },
    { weight: 50, arbitrary: fc.constant<BodyMutation>({ body: '' }) },
    op.hasBody
      ? {
          weight: 1,
          arbitrary: oversized.map((body) => ({ body, mustRefuse: 'a body over the size limit' })),
        }
      : { weight: 1, arbitrary: oversized.map((body) => ({ body })) },
  ];
  return fc.oneof(...choices.filter((c) => c.weight > 0));
}

function pathMutation(op: Operation, ids: Ids): fc.Arbitrary<string> {
  const ownIds = idsIn(op);
  const idValue = fc.oneof(
    fc.constantFrom(
      '%00',
      '..',
      '%2e%2e',
      '%zz',
      'null',
      'undefined',
      '__proto__',
      'constructor',
      '0',
      '-1',
      ' ',
    ),
    fc.string({ maxLength: 30 }).map(encodeURIComponent),
    fc.constant(null).map(() => lookalike(ids.GroupID)),
    fc.constant('a'.repeat(3000)),
  );
  const midValue = fc.constantFrom(
    ids.MID,
    '41000001',
    '32350000002',
    '00000000000',
    '1',
    'x'.repeat(11),
    '%34%31',
  );
  return fc.oneof(
    { weight: 5, arbitrary: fc.constant(pathOf(op, ids)) },
    {
      weight: 4,
      arbitrary: fc
        .tuple(fc.constantFrom('MID', ...ownIds), idValue, midValue)
        .map(([param, id, mid]) =>
          pathOf(op, { ...ids, MID: mid, ...(param === 'MID' ? {} : { [param]: id }) }),
        ),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom('/', '//', '/x', '/%2F', '/..', '/__proto__', '/.%00'), fc.boolean())
        .map(([suffix, front]) => (front ? suffix + pathOf(op, ids) : pathOf(op, ids) + suffix)),
    },
  );
}

const queryName = (declared: Set<string>) =>
  fc.oneof(
    fc.constantFrom(...PROTOTYPE_NAMES),
    ...(declared.size > 0 ? [fc.constantFrom(...declared)] : []),
    fc.constantFrom('pageSize', 'pageNumber', 'date', 'time', 'locationID', 'customerAccountId'),
    fc.string({ minLength: 1, maxLength: 12 }),
  );

const queryValue = fc.oneof(
  fc.constantFrom(
    '1',
    '0',
    '-1',
    '500',
    '501',
    '4294968',
    '999999999',
    '1e308',
    '2026-13-45',
    '',
    '%',
    'NaN',
    '0x10',
  ),
  fc.integer().map(String),
  text,
);

const headerValue = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 200,
});

const contentType = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'application/json; charset=utf-16',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/xml',
    '*/*',
  ),
  headerValue,
);

/**
 * Whether a path has a dot segment (`..`, `%2e%2e`): URLs resolve it, so the request reaches
 * another route (`/payors/<id>/..` is the payors list), whose query parameters differ.
 */
const dotSegments = (path: string): boolean =>
  path.split('/').some((segment) => segment === '..' || segment.toLowerCase() === '%2e%2e');

/**
 * An `Idempotency-Key` now and then: a few fixed keys (so keys are reused with other requests, the
 * 422 path) and hostile values (too long, spaces, slashes, empty).
 */
const idempotencyKey = fc.option(
  fc.oneof(
    fc.constantFrom('fuzz-key-1', 'fuzz-key-2', 'fuzz:key.3', 'x'.repeat(100)),
    fc.constantFrom('', ' ', 'x'.repeat(101), 'a/b', 'a b', '../etc'),
    headerValue,
  ),
  { freq: 4 },
);

export function fuzzCase(
  op: Operation,
  ids: Ids,
  declared: Set<string>,
  keyed: Set<string> = new Set(),
): fc.Arbitrary<FuzzCase> {
  const base = (bodyOf(op, ids) ?? {}) as Record<string, unknown>;
  return fc
    .record({
      method: fc.oneof(
        { weight: 9, arbitrary: fc.constant(op.method) },
        { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD') },
      ),
      path: pathMutation(op, ids),
      query: fc.array(fc.tuple(queryName(declared), queryValue), { maxLength: 4 }),
      rawQuery: fc.oneof(
        { weight: 9, arbitrary: fc.constant('') },
        { weight: 1, arbitrary: fc.constantFrom('%zz=1', '=', '&&', 'a=%', '%E0%A4%A=1', '__proto__[x]=1') },
      ),
      contentType: fc.option(contentType, { freq: 3 }),
      extraHeaders: fc.dictionary(fc.stringMatching(/^x-[a-z0-9-]{1,20}$/), headerValue, { maxKeys: 3 }),
      idempotencyKey,
      body: op.hasBody ? bodyMutation(op, base) : fc.option(bodyMutation(op, base), { freq: 5 }),
    })
    .map((r) => {
      const mustRefuse: string[] = [];
      const unknown = r.query.filter(([name]) => !declared.has(name));
      // The health check reads no input at all (API Gateway answers it): a query is ignored there.
      if (unknown.length > 0 && !op.open) mustRefuse.push('an unknown query parameter');
      const mutation = r.body ?? undefined;
      // A body the operation does not declare is not read: its faults need not be refused.
      if (mutation?.mustRefuse && op.hasBody) mustRefuse.push(mutation.mustRefuse);
      const body = mutation === undefined ? undefined : (mutation.body ?? JSON.stringify(mutation.value));
      const headers: Record<string, string> = { ...r.extraHeaders };
      if (r.contentType !== null) headers['content-type'] = r.contentType;
      if (r.idempotencyKey !== null) {
        headers['idempotency-key'] = r.idempotencyKey;
        if (keyed.has(op.operationId) && !KEY_PATTERN.test(r.idempotencyKey))
          mustRefuse.push('a malformed Idempotency-Key');
      }
      return {
        operationId: op.operationId,
        method: r.method,
        path: r.path,
        query: r.query,
        rawQuery: r.rawQuery,
        headers,
        ...(mutation?.body === undefined && mutation !== undefined && { value: mutation.value }),
        ...(body !== undefined && { body }),
        ...(mutation?.bodyIsBase64 && { bodyIsBase64: true as const }),
        // Only for requests that reach the operation as declared: a dot segment leaves its path
        // (`/health/..` is `/`, the docs page, not the health check).
        mustRefuse: r.method === op.method && !dotSegments(r.path) ? mustRefuse : [],
        ...(op.open && !dotSegments(r.path) && { open: true }),
      };
    });
}

/**
 * The requests issue 9 reports, run before the random ones (fast-check `examples`): each known
 * defect is then met on every run, whatever the seed draws.
 */
export function issueExamples(ops: readonly Operation[], ids: Ids): FuzzCase[] {
  const op = (id: string) => ops.find((o) => o.operationId === id)!;
  const plain = (id: string, over: Partial<FuzzCase> = {}): FuzzCase => {
    const value = bodyOf(op(id), ids);
    return {
      operationId: id,
      method: op(id).method,
      path: pathOf(op(id), ids),
      query: [],
      rawQuery: '',
      headers: { 'content-type': 'application/json' },
      ...(value !== undefined && { value, body: JSON.stringify(value) }),
      mustRefuse: [],
      ...over,
    };
  };
  const withBody = (id: string, extra: Record<string, unknown>, mustRefuse: string[] = []) => {
    const value = { ...(bodyOf(op(id), ids) as object), ...extra };
    return plain(id, { value, body: JSON.stringify(value), mustRefuse });
  };
  return [
    withBody('AddPayment', { customAttributes: Object.fromEntries([['constructor', 'x']]) }),
    withBody('UpdatePayor', { customerData: Object.fromEntries([['__proto__', 'x']]) }),
    plain('ListGroups', {
      query: [
        ['pageSize', '500'],
        ['pageNumber', '4294968'],
      ],
    }),
    withBody('AddPayment', { orderId: 'a\r\nBcc: x@evil.example' }, ['control characters in free text']),
    withBody('AddPayment', { amount: 0.1 + 0.2 }, ['an amount with more than 2 decimals']),
    withBody('AddPayment', { orderId: '4012888888881881' }, ['a card number in free text']),
    withBody('CreatePayor', { customerAccountId: '4012888888881881' }, ['a card number in free text']),
    plain('GetGroup', { query: [['unknownName', '1']], mustRefuse: ['an unknown query parameter'] }),
    // Issue 21: the report's CSV pages take only a cursor they made for this group.
    plain('GroupReport', {
      headers: { 'content-type': 'application/json', accept: 'text/csv' },
      query: [['cursor', 'WyIwMTkzIiwwLDAsNTAwMF0.AAAAAAAAAAAAAAAAAAAAAA']],
      mustRefuse: ['a forged report cursor'],
    }),
    plain('GroupReport', { query: [['cursor', 'abc']], mustRefuse: ['a cursor on a JSON report'] }),
    // Issue 21: expiring cards take a month (yyyy-MM) and only a page token they made.
    plain('SearchPayors', { query: [['expiringBefore', '2027-1']], mustRefuse: ['a month not as yyyy-MM'] }),
    plain('SearchPayors', {
      query: [
        ['expiringBefore', '2027-03'],
        ['pageToken', 'MjAyNy0wMSN4I3k'],
      ],
      mustRefuse: ['a forged page token'],
    }),
    // Issue 32: text that is not well-formed Unicode, in a value or a key, and bytes that are not UTF-8.
    withBody('AddPayment', { orderId: 'INV-\ud800' }, ['text that is not well-formed Unicode']),
    withBody('UpdatePayor', { customerData: { ['note\udc00']: 'x' } }, [
      'text that is not well-formed Unicode',
    ]),
    plain('CreatePayor', {
      body: withBytes(bodyOf(op('CreatePayor'), ids) as Record<string, unknown>, 'customerAccountId', [0xe9]),
      bodyIsBase64: true,
      mustRefuse: ['bytes that are not UTF-8'],
    }),
    // Issue 23: a malformed Idempotency-Key on a sale is refused before anything is charged.
    plain('CreateSale', {
      headers: { 'content-type': 'application/json', 'idempotency-key': 'a key/with spaces' },
      mustRefuse: ['a malformed Idempotency-Key'],
    }),
    // The health check ignores what it is sent and answers only its fixed body.
    plain('GetHealth', {
      query: [['__proto__', 'x']],
      headers: { 'content-type': 'text/plain', 'x-forwarded-for': '127.0.0.1' },
      open: true,
    }),
    plain('GetHealth', { method: 'POST', body: '{"status":"down"}', open: true }),
  ];
}
