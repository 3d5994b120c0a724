/**
 * The code samples of the OpenAPI document (lib/openapi/code-samples.ts): per operation a curl
 * command and a TypeScript call of the client package, both made from the examples the contract
 * test sends; every operation has a client method that exists, and every TypeScript sample
 * type-checks against the client (the TypeScript compiler, the client's own source); the
 * deprecated `/transactions` aliases are marked and out of the page's menu; the base URL is real.
 */
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { operationExamples, PLACEHOLDERS } from '#contract/examples/index';
import { HEALTH } from '#contract/health';
import { routeList as routes, type Route } from '#contract/routes/index';
import { CLIENT_PACKAGE, clientMethodOf } from '#lib/openapi/code-samples';
import { openApiDocument, type OpenApiDocument, type OperationObject } from '#lib/openapi/index';
import { ScheduledPaymentsClient } from '../../client/index';

const ROOT = resolve(__dirname, '..', '..');
const doc = openApiDocument('dev');

const operationOf = (d: OpenApiDocument, route: Route): OperationObject =>
  d.paths[route.path]![route.method.toLowerCase() as 'get']!;

const sample = (d: OpenApiDocument, route: Route, label: string): string => {
  const found = operationOf(d, route)['x-codeSamples'].find((s) => s.label === label);
  if (!found) throw new Error(`${route.id} has no ${label} sample`);
  return found.source;
};

const targetId = (route: Route): string => route.aliasOf ?? route.id;
const takesKey = (route: Route): boolean => route.idempotency !== undefined && route.idempotency !== 'none';

describe('the client method of each operation', () => {
  it('is derived from the route table, and the client class has it', () => {
    const prototype = ScheduledPaymentsClient.prototype as unknown as Record<string, unknown>;
    const absent = routes.filter((r) => typeof prototype[clientMethodOf(r)] !== 'function');
    expect(absent.map((r) => `${r.id}: ${clientMethodOf(r)}`)).toEqual([]);
  });

  it("is the operation id with a lower-case first letter, but for a series' cancel; an alias calls its target", () => {
    expect(clientMethodOf({ id: 'CreateGroup' })).toBe('createGroup');
    expect(clientMethodOf({ id: 'DeleteSeries' })).toBe('cancelSeries');
    const alias = routes.find((r) => r.aliasOf !== undefined)!;
    expect(clientMethodOf(alias)).toBe(clientMethodOf(routes.find((r) => r.id === alias.aliasOf)!));
  });

  it('no two operations share a method, aliases apart', () => {
    const methods = routes.filter((r) => r.aliasOf === undefined).map(clientMethodOf);
    expect(methods.filter((m, i) => methods.indexOf(m) !== i)).toEqual([]);
  });
});

describe('every operation shows a curl and a TypeScript sample', () => {
  it.each(routes.map((r) => [r.id, r] as const))('%s', (_id, route) => {
    const op = operationOf(doc, route);
    expect(op['x-codeSamples'].map((s) => [s.lang, s.label])).toEqual([
      ['Shell', 'curl'],
      ['TypeScript', 'TypeScript'],
    ]);
    const examples = operationExamples[targetId(route)]!;
    const path = route.path.replace(
      /\{(\w+)\}/g,
      (_, name: string) => PLACEHOLDERS[name as keyof typeof PLACEHOLDERS],
    );
    const query = examples.query ? `?${new URLSearchParams(examples.query).toString()}` : '';

    // curl: the request line on the local runtime's base, the token, the key of a keyed POST, the body.
    const curl = sample(doc, route, 'curl');
    const line = curl.split(' \\\n')[0];
    expect(line).toBe(
      `curl ${route.method === 'GET' ? '' : `-X ${route.method} `}'http://127.0.0.1:3000${path}${query}'`,
    );
    expect(curl).toContain('-H "Authorization: Bearer $TOKEN"');
    expect(curl.includes('Idempotency-Key:')).toBe(takesKey(route));
    const body = route.body ? Object.values(examples.requests ?? {})[0]?.value : undefined;
    const sent = /-d '([\s\S]*)'$/.exec(curl)?.[1];
    expect(sent === undefined ? undefined : JSON.parse(sent)).toEqual(body);
    const bodyKey = (body as { idempotencyKey?: string } | undefined)?.idempotencyKey;
    if (takesKey(route) && bodyKey !== undefined) expect(curl).toContain(`-H 'Idempotency-Key: ${bodyKey}'`);

    // TypeScript: the package, the document's URLs, the operation's method.
    const typescript = sample(doc, route, 'TypeScript');
    expect(typescript).toContain(`from '${CLIENT_PACKAGE}'`);
    expect(typescript).toContain("baseUrl: 'http://127.0.0.1:3000'");
    expect(typescript).toContain(`await client.${clientMethodOf(route)}(`);
  });
});

test('every TypeScript sample type-checks against the client', () => {
  // Each sample as a module of its own, its import resolved to the client's source.
  // The health check's too (not a route of the table: contract/health.ts).
  const health = doc.paths[HEALTH.path]!.get!['x-codeSamples'].find((s) => s.label === 'TypeScript')!;
  const files = new Map([
    ...routes.map(
      (r) => [join(ROOT, 'test', 'samples', `${r.id}.ts`), sample(doc, r, 'TypeScript')] as const,
    ),
    [join(ROOT, 'test', 'samples', `${HEALTH.id}.ts`), health.source] as const,
  ]);
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
    baseUrl: ROOT,
    paths: { [CLIENT_PACKAGE]: ['client/index.ts'] },
  };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  const exists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => files.get(name) ?? read(name);
  host.fileExists = (name) => files.has(name) || exists(name);
  host.getSourceFile = (name, version, ...rest) => {
    const text = files.get(name);
    return text === undefined
      ? getSourceFile(name, version, ...rest)
      : ts.createSourceFile(name, text, version, true);
  };
  const program = ts.createProgram([...files.keys()], options, host);
  const problems = ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) =>
        `${d.file?.fileName.replace(ROOT, '') ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    );
  expect(problems).toEqual([]);
}, 60_000);

describe('the deprecated /transactions aliases', () => {
  const aliases = routes.filter((r) => r.aliasOf !== undefined);

  it('are each marked deprecated, in a tag no menu group names; nothing else is', () => {
    expect(aliases.length).toBeGreaterThan(0);
    for (const route of routes) {
      expect({ id: route.id, deprecated: operationOf(doc, route).deprecated }).toEqual({
        id: route.id,
        deprecated: route.aliasOf !== undefined ? true : undefined,
      });
    }
    const grouped = new Set(doc['x-tagGroups'].flatMap((g) => g.tags));
    const hidden = doc.tags.map((t) => t.name).filter((t) => !grouped.has(t));
    expect(hidden).toEqual(['Deprecated aliases']);
    for (const route of aliases) expect(operationOf(doc, route).tags).toEqual(['Deprecated aliases']);
  });

  it('are named in the description of the operation they repeat', () => {
    const target = routes.find((r) => r.id === 'AddPayment')!;
    expect(operationOf(doc, target).description).toContain(
      'at the deprecated `POST /rest/merchants/{MID}/groups/{GroupID}/transactions`',
    );
  });
});

describe('the base URL', () => {
  it('is the given server in the overview and in every sample', () => {
    const base = 'https://abc123.execute-api.eu-west-1.amazonaws.com/dev';
    const tokenUrl = 'https://auth.example/oauth2/token';
    const d = openApiDocument('dev', { serverUrl: base, tokenUrl });
    expect(d.info.description).toContain(`Paths are relative to the base URL: \`${base}\`.`);
    expect(d.info.description).not.toContain('{base_url}');
    for (const route of routes) {
      expect(sample(d, route, 'curl')).toContain(`'${base}/`);
      expect(sample(d, route, 'TypeScript')).toContain(`baseUrl: '${base}'`);
      expect(sample(d, route, 'TypeScript')).toContain(`tokenUrl: '${tokenUrl}'`);
    }
  });

  it('without one, is the deployed template and the local runtime, and the samples the local runtime', () => {
    expect(doc.info.description).not.toContain('{base_url}');
    expect(doc.info.description).toContain('`http://127.0.0.1:3000` for the local runtime');
  });
});
