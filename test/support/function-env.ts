/**
 * The functions' environment for the integration tier, set before any test file loads: the
 * functions parse their configuration when lambdas/shared/config.ts loads, and TABLE_NAME is
 * required. Each test file makes its own table; those that use the configured table set
 * TABLE_NAME to it and call reloadConfigForTests().
 */
process.env.TABLE_NAME ??= 'integration-table-set-by-each-test-file';
process.env.SERVICE_STAGE ??= 'dev';

export {};
