/**
 * The handler-test environment with INFO logs, for tests that read what the logger prints
 * (Powertools takes the level at construction and restores it at every invocation).
 */
import '#support/handlers/env';

process.env.POWERTOOLS_LOG_LEVEL = 'INFO';

export {};
