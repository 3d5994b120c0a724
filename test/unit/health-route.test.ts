/**
 * The health route in the OpenAPI document (contract/health.ts): `GET /health` without security,
 * no parameters, its one fixed answer as the example of its schema, and the gateway's own answers
 * (405 for another method, 403 from the WAF, 429 throttled); its samples send no token. The local
 * gateway's and API Gateway's answers are tested in test/e2e/health.test.ts and
 * test/infra/health.test.ts.
 */
import Ajv from 'ajv';
import { HEALTH, healthSchema } from '#contract/health';
import { openApiDocument } from '#lib/openapi/index';

const doc = openApiDocument('dev', {
  serverUrl: 'https://api.example/dev',
  tokenUrl: 'https://auth.example/oauth2/token',
});
const op = doc.paths[HEALTH.path]!.get!;

test('is GET /health with no security, no parameters and no request body', () => {
  expect(Object.keys(doc.paths[HEALTH.path]!)).toEqual(['get']);
  expect(op).toMatchObject({ operationId: 'GetHealth', security: [], parameters: [], tags: ['Health'] });
  expect(op).not.toHaveProperty('requestBody');
  // The document's default is the bearer token: the empty list is what lifts it here.
  expect(doc.security).not.toEqual([]);
});

test('answers its fixed body, documented as its schema and example, and nothing else', () => {
  const ok = op.responses['200'] as {
    content: Record<string, { schema: unknown; examples: Record<string, { value: unknown }> }>;
  };
  const media = ok.content['application/json']!;
  expect(media.schema).toEqual({ $ref: '#/components/schemas/Health' });
  expect(media.examples).toEqual({ success: { summary: expect.any(String), value: { status: 'ok' } } });
  const validate = new Ajv().compile(healthSchema);
  expect(validate(HEALTH.body)).toBe(true);
  // No field may be added unnoticed (a version, a stage, a time): the schema refuses it.
  expect(validate({ ...HEALTH.body, version: '0.1.0' })).toBe(false);
  expect(Object.keys(op.responses).sort()).toEqual(['200', '403', '405', '429']);
});

test("its samples call it without a token, at the document's base URL", () => {
  const [curl, typescript] = op['x-codeSamples'];
  expect(curl).toEqual({ lang: 'Shell', label: 'curl', source: "curl 'https://api.example/dev/health'" });
  expect(typescript!.source).toContain('await client.getHealth();');
  expect(typescript!.source).not.toContain('TOKEN');
});

test('the overview and the security scheme say that it needs no token', () => {
  expect(doc.info.description).toContain('but the health check `GET /health` (no token');
  expect(JSON.stringify(doc.components.securitySchemes)).toContain(
    'but the health check (`GET /health`, no token)',
  );
});
