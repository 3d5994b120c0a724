/**
 * client/generated/schema.d.ts is generated from openapi.json (`npm run client:types`). This fails when the API
 * description changed and the client's types were not regenerated, as `npm run openapi -- --check` does
 * for openapi.json itself.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '../..');
const bin = (name: string) => join(root, 'node_modules/.bin', name);

test('client/generated/schema.d.ts is what openapi-typescript makes of openapi.json (run `npm run client:types`)', () => {
  const options = {
    cwd: root,
    encoding: 'utf8' as const,
    stdio: ['pipe', 'pipe', 'pipe'] as ('pipe' | 'inherit')[],
  };
  const generated = execFileSync(bin('openapi-typescript'), ['openapi.json'], options);
  const formatted = execFileSync(bin('prettier'), ['--stdin-filepath', 'client/generated/schema.d.ts'], {
    ...options,
    input: generated,
  });
  expect(readFileSync(join(root, 'client/generated/schema.d.ts'), 'utf8') === formatted).toBe(true);
}, 60_000);
