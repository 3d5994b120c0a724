/**
 * knip (run by `npm run checks`): no unused file, export, type or dependency. The entry points are
 * listed here; what knip cannot follow is named below with the reason. Run `npx knip` to see the
 * findings alone.
 */
import { readFileSync } from 'node:fs';
import type { KnipConfig } from 'knip';

// CDK names each Lambda handler by a string (`groups/create-group`, lib/cdk/service-function.ts
// handlerEntry), which knip cannot follow. The handlers are the keys of the generated
// lib/cdk/function-access.json: one per handler module, kept current by `npm run access -- --check`.
const handlers = Object.keys(
  JSON.parse(readFileSync(new URL('./lib/cdk/function-access.json', import.meta.url), 'utf8')) as object,
).map((handler) => `lambdas/${handler}.ts`);

const config: KnipConfig = {
  entry: [
    ...handlers,
    'bin/*.ts',
    'scripts/*.{ts,mjs}',
    // The client package's entry and build (client/package.json).
    'client/index.ts',
    'client/build.mjs',
    // Jest's test files and setup modules (jest.config.js) are found by knip's Jest plugin.
    // Files the tests and the bench run by path rather than import:
    // - preloaded into the benchmarked runtime with `node --import` (bench/support/runtime.ts);
    'bench/support/ddb-census.ts',
    'bench/support/handler-cpu-probe.ts',
    // - the Stripe stand-in's own process, spawned by path (bench/sections/processor-cpu.ts);
    'bench/support/stripe-stand-in-process.ts',
    // - a CDK app the quiet-synth test runs with tsx (test/infra/quiet-synth.test.ts);
    'test/support/cdk/one-function-app.ts',
    // - run against the packed client in a scratch project (test/e2e/client-package.test.ts);
    'test/support/fixtures/client-package/every-operation.mjs',
    // - typechecked by its own TypeScript program (test/unit/openapi-client-payor.test.ts).
    'test/support/fixtures/create-payor-client.ts',
  ],
  // Not *.d.mts: eslint.config.d.mts only types eslint.config.mjs for TypeScript.
  project: ['**/*.{ts,mjs,js,cjs}'],
  ignoreDependencies: [
    // Run by its path, node_modules/@redocly/cli/bin/cli.js (lib/openapi/lint.ts).
    '@redocly/cli',
    // The Node 22 the scripts run on (package.json engines; scripts/check-node.mjs).
    'node',
    // The packed client, installed in the scratch project that runs every-operation.mjs.
    '@scheduled-payments/client',
    // Prettier's parser for TypeScript and JavaScript, named in .prettierrc.json's overrides (knip's
    // Prettier plugin reads only the top-level plugins).
    '@prettier/plugin-oxc',
  ],
  ignoreIssues: {
    // Generated (scripts/generate-validators.ts): one check per route of the table by construction;
    // an alias route's handler runs its target's check, so the alias checks go unused.
    // ajv's standalone code exports each validator under its key, and the module names it too.
    'lambdas/generated/validators.ts': ['exports', 'duplicates'],
  },
};

export default config;
