/**
 * Runs in each e2e worker before each test file: the worker's own runtime (the global setup
 * starts one per worker) becomes E2E_BASE_URL, E2E_DATA_DIR and E2E_SES_URL, which every helper
 * reads. A file run alone (in band) is worker 1.
 */
const worker = Number(process.env.JEST_WORKER_ID ?? 1);
const runtimes = Number(process.env.E2E_WORKERS ?? 3) || 1;
// Jest numbers workers from 1; with fewer runtimes than workers (E2E_WORKERS=1), they share.
const slot = ((worker - 1) % runtimes) + 1;
for (const name of ['E2E_BASE_URL', 'E2E_DATA_DIR', 'E2E_SES_URL']) {
  const value = process.env[`${name}_${slot}`];
  if (value === undefined) throw new Error(`${name}_${slot} is not set: the e2e global setup did not run`);
  process.env[name] = value;
}
