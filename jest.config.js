/** Test tiers: each is a Jest project; `npm test` runs them all (see README "Tests"). */
const transform = { '^.+\\.(t|j|mj)sx?$': '<rootDir>/test/support/esbuild-transform.js' };
// ESM-only packages that Jest must transpile to CommonJS.
const transformIgnorePatterns = ['/node_modules/(?!(@middy|jose|uuid)/)'];
// Jest's Node environment, with workers that end as soon as their work is done (the module says why).
const base = {
  transform,
  transformIgnorePatterns,
  testEnvironment: '<rootDir>/test/support/prompt-exit-environment.js',
};
// Every tier's DynamoDB Locals (its own, the runtimes it starts) on the JVM's first tier: their
// tables live minutes (lib/local/dynamodb-local.ts). npm start and the bench keep the JVM's defaults.
process.env.DYNAMODB_LOCAL_JVM ??= 'first-tier';
// Their local runtimes and tools with V8's garbage collection on one thread (lib/local/runtime-bundle.ts),
// as package.json's test scripts run Jest itself: on two cores busy with the tier, V8's GC helper
// threads cost more CPU than they save (docs/testing.md).
process.env.LOCAL_NODE_GC ??= 'single-threaded';

module.exports = {
  // Each tier's longest files first (a fresh clone has no timings of its own): test/support/test-sequencer.js.
  testSequencer: '<rootDir>/test/support/test-sequencer.js',
  projects: [
    {
      ...base,
      displayName: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/unit-global-setup.ts',
      globalTeardown: '<rootDir>/test/support/unit-global-teardown.ts',
    },
    {
      ...base,
      displayName: 'integration',
      setupFiles: ['<rootDir>/test/support/function-env.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/slow-timeout.ts'],
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/ddb-global-setup.ts',
      globalTeardown: '<rootDir>/test/support/ddb-global-teardown.ts',
    },
    {
      ...base,
      displayName: 'infra',
      testMatch: ['<rootDir>/test/infra/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/cdk/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/cdk/global-teardown.ts',
    },
    {
      ...base,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/e2e-global-setup.ts',
      globalTeardown: '<rootDir>/test/support/e2e-global-teardown.ts',
      setupFiles: ['<rootDir>/test/support/e2e-worker-env.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/slow-timeout.ts'],
    },
  ],
};
