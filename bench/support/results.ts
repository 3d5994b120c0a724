/**
 * bench/results.json as the sections and models read it: each section owns its part, merged two
 * levels deep. Apart from the report (sections/report.ts), so that the models (bench/peak/) and
 * the sections read results without importing what renders them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type Results = Record<string, unknown>;

export const RESULTS_JSON = join(__dirname, '..', 'results.json');

export function readResults(): Results {
  if (!existsSync(RESULTS_JSON)) return {};
  try {
    return JSON.parse(readFileSync(RESULTS_JSON, 'utf8')) as Results;
  } catch {
    return {};
  }
}

/** Two-level merge: `{api: {listGroups}}` into `{api: {createPayment}}` keeps both. */
export function mergeResults(into: Results, patch: Results): Results {
  const out: Results = { ...into };
  for (const [k, v] of Object.entries(patch)) {
    const prev = out[k];
    const isObject = (x: unknown): x is Record<string, unknown> =>
      typeof x === 'object' && x !== null && !Array.isArray(x);
    out[k] = isObject(prev) && isObject(v) ? { ...prev, ...v } : v;
  }
  return out;
}
