/**
 * The examples of openapi.json (contract/examples, wired by lib/openapi/examples.ts): every
 * operation has them, and each is valid against the schema it illustrates (ajv, as an integrator's
 * validator would check it). test/e2e/contract-examples.test.ts sends them to the local runtime.
 */
import { operationExamples, PLACEHOLDERS } from '#contract/examples/index';
import { HEALTH } from '#contract/health';
import { routeList } from '#contract/routes/index';
import { openApiDocument } from '#lib/openapi/index';
import {
  openApi,
  problemsOf,
  requestSchemaPointer,
  responseSchemaPointer,
  validatorAt,
} from '#support/openapi-schemas';

type Json = Record<string, unknown>;
interface Example {
  summary: string;
  value: unknown;
}

const operations = Object.entries(openApi.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => [String(op.operationId), { path, method, op }] as const),
);

const examplesIn = (media: Json | undefined): Record<string, Example> =>
  (media?.examples ?? {}) as Record<string, Example>;

/** ajv's verdict on `value` against the schema at `pointer`, with the problems when invalid. */
function verdict(pointer: string, value: unknown) {
  const validate = validatorAt(pointer);
  const valid = validate(value);
  return { valid, problems: valid ? [] : problemsOf(validate) };
}
const VALID = { valid: true, problems: [] };

it('openapi.json is the document of contract/examples (npm run openapi -- --check also says so)', () => {
  expect(JSON.parse(JSON.stringify(openApiDocument('dev')))).toEqual(openApi);
});

it('every route has examples, an invalid request among them, and an alias shows its target’s', () => {
  for (const route of routeList) {
    const examples = operationExamples[route.aliasOf ?? route.id];
    expect({ route: route.id, has: examples?.invalid !== undefined }).toEqual({
      route: route.id,
      has: true,
    });
  }
});

describe.each(operations)('%s', (_id, { path, method, op }) => {
  const responses = op.responses as Record<string, Json>;
  // The operation's own success (a 202 beside it is the background answer of route.accepted).
  const successes = Object.keys(responses).filter((s) => s.startsWith('2'));
  const success = successes.find((s) => s !== '202') ?? successes[0]!;
  const requestMedia = (op.requestBody as { content: Record<string, Json> } | undefined)?.content[
    'application/json'
  ];

  it('has a valid example of each request body', () => {
    if (!requestMedia) return;
    const examples = Object.values(examplesIn(requestMedia));
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) {
      expect(verdict(requestSchemaPointer(path, method), example.value)).toEqual(VALID);
    }
  });

  it('has a valid example of its success body', () => {
    const pointer = responseSchemaPointer(path, method, success);
    if (pointer === undefined) return;
    const media = (responses[success]!.content as Record<string, Json>)['application/json'];
    // The success, and the other outcomes the operation documents (contract/examples otherResponses).
    const examples = Object.values(examplesIn(media));
    expect(examples.length).toBeGreaterThanOrEqual(1);
    for (const example of examples) expect(verdict(pointer, example.value)).toEqual(VALID);
  });

  // Every operation takes input it can refuse but the health check, which reads none.
  if (responses['400'] !== undefined || op.operationId !== HEALTH.id)
    it('has a 400 example with errors[], of an invalid request', () => {
      const media = (responses['400']!.content as Record<string, Json>)['application/json'];
      const { invalid } = examplesIn(media);
      expect(verdict(responseSchemaPointer(path, method, '400')!, invalid?.value)).toEqual(VALID);
      const body = invalid!.value as { message: string; errors: { message: string }[] };
      expect(body.errors.length).toBeGreaterThan(0);
      expect(body.errors[0]!.message).toBe(body.message);
      const route = routeList.find((r) => r.id === op.operationId)!;
      const request = operationExamples[route.aliasOf ?? route.id]!.invalid!;
      if (request.body !== undefined) {
        expect(verdict(requestSchemaPointer(path, method), request.body).valid).toBe(false);
      }
    });

  it('has parameter examples of their schemas, the placeholders for resources', () => {
    for (const parameter of op.parameters as Json[]) {
      if (parameter.example === undefined) continue;
      const schema = parameter.schema as Json;
      if (parameter.in === 'path') {
        expect(parameter.example).toBe(PLACEHOLDERS[parameter.name as keyof typeof PLACEHOLDERS]);
      }
      if (typeof schema.pattern === 'string') {
        expect(String(parameter.example)).toMatch(new RegExp(schema.pattern));
      }
    }
  });
});
