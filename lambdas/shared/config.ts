/**
 * Configuration from environment variables, read once at module load: a missing required value
 * fails the cold start loudly instead of failing a request later.
 */
import { parseStage, type Stage } from '#contract/stage';

export function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`missing required environment variable ${name}`);
  return value;
}

export function optionalNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0)
    throw new Error(`environment variable ${name} must be a number >= 0`);
  return value;
}

export interface ServiceConfig {
  readonly tableName: string;
  readonly stage: Stage;
  /** Seconds a client→merchant grant is cached in a warm container. */
  readonly authzCacheSeconds: number;
}

let cached: ServiceConfig | undefined;

/** The service configuration; throws on the first call when a required variable is missing. */
export function config(): ServiceConfig {
  cached ??= {
    tableName: required('TABLE_NAME'),
    stage: parseStage(process.env.SERVICE_STAGE),
    authzCacheSeconds: optionalNumber('AUTHZ_CACHE_SECONDS', 30),
  };
  return cached;
}
