/** E2E tier: one local runtime for the run (each test works on its own groups). */
import { launchLocalRuntime, type LocalRuntimeProcess } from '#lib/local/launcher';

export default async function setup(): Promise<void> {
  // Short settlement cut-offs so that refunds can be tested; INFO logs so that leaks would show.
  const runtime = await launchLocalRuntime({
    dataDirPrefix: 'sps-e2e',
    // No due sweep: the files' current-hour groups are started by their own ticks and triggers
    // (test/e2e/current-hour.test.ts runs a runtime of its own with the sweep).
    env: {
      AUTHZ_CACHE_SECONDS: '0',
      SANDBOX_SETTLEMENT_SECONDS: '8',
      POWERTOOLS_LOG_LEVEL: 'INFO',
      LOCAL_DUE_SWEEP_SECONDS: '0',
    },
  });
  process.env.E2E_BASE_URL = runtime.url;
  process.env.E2E_DATA_DIR = runtime.dataDir;
  process.env.E2E_SES_URL = runtime.sesUrl;
  (globalThis as { __E2E_RUNTIME__?: LocalRuntimeProcess }).__E2E_RUNTIME__ = runtime;
}
