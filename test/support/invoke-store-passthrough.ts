/**
 * A stand-in for `@aws/lambda-invoke-store` in unit tests of lib/local/: the real store needs ESM's
 * dynamic import, which Jest's CommonJS runtime lacks. Each invocation simply runs (no per-invocation
 * context); the e2e tier runs the real one. Use before loading the module under test:
 * `jest.doMock('@aws/lambda-invoke-store', passThroughInvokeStore)`, then a dynamic import.
 */
export const passThroughInvokeStore = () => ({
  InvokeStore: {
    getInstanceAsync: () =>
      Promise.resolve(
        new (class InvokeStoreMulti {
          run = <T>(_meta: unknown, fn: () => T): T => fn();
        })(),
      ),
  },
  InvokeStoreBase: { PROTECTED_KEYS: { REQUEST_ID: 'requestId' } },
});
