/**
 * The functions' environment for the integration tier, set before any test file loads: the
 * functions parse their configuration when lambdas/shared/config.ts loads, and TABLE_NAME is
 * required. Each test file makes its own table; those that use the configured table set
 * TABLE_NAME to it and call reloadConfigForTests(). Each worker talks to its own DynamoDB Local
 * (test/support/ddb-global-setup.ts).
 */
process.env.TABLE_NAME ??= 'integration-table-set-by-each-test-file';
process.env.SERVICE_STAGE ??= 'dev';
const endpoints = (process.env.DDB_LOCAL_ENDPOINTS ?? '').split(',').filter(Boolean);
if (endpoints.length > 0) {
  const worker = Number(process.env.JEST_WORKER_ID ?? '1');
  process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoints[(worker - 1) % endpoints.length];
}

export {};
