/** E2E tier: one local runtime for the run (each test works on its own groups). */
import { startRuntimeProcess, type RuntimeProcess } from './runtime';

export default async function setup(): Promise<void> {
  const runtime = await startRuntimeProcess({ AUTHZ_CACHE_SECONDS: '0' });
  process.env.E2E_BASE_URL = runtime.url;
  process.env.E2E_DATA_DIR = runtime.dataDir;
  (globalThis as { __E2E_RUNTIME__?: RuntimeProcess }).__E2E_RUNTIME__ = runtime;
}
