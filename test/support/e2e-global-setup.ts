/**
 * E2E tier: one local runtime per Jest worker (E2E_WORKERS, default 3, as `npm run test:e2e`
 * passes to --maxWorkers), so that three test files run at once, each against a runtime of its
 * own: files running at the same time never see each other's groups, e-mails or faults. Files that
 * follow one another on a worker share its runtime's data, so a file acts on what it made (its
 * groups, a slot or a merchant of its own), never on all of a merchant's. Each worker reads its
 * runtime's addresses through the unsuffixed variables (test/support/e2e-worker-env.ts).
 */
import { mkdtempSync, statSync } from 'node:fs';
import { prepareDynamoDbLocalArchive } from '#lib/local/dynamodb-local';
import { launchLocalRuntime, type LocalRuntimeProcess } from '#lib/local/launcher';
import { COMPILE_CACHE_DIR } from '#lib/local/runtime-bundle';
import { E2E_SETTLEMENT_MS } from '#support/settlement-timing';

export const e2eWorkers = (): number => Math.max(1, Number(process.env.E2E_WORKERS ?? 3) || 1);

export default async function setup(): Promise<void> {
  // Every runtime of the e2e run (these, and the files' own, launched with this process's
  // environment): no timer at the real UTC hour. The files deliver their ticks for the slots they
  // choose; a real hour's tick supervising the same groups raced processing-supervision's own tick
  // (CI, 2026-11-26 17:00; lib/local/daily-timer.ts hourlyTickEnabled).
  process.env.LOCAL_HOURLY_TICK = 'off';
  // The tier starts some 40 runtimes, each loading the same modules: each after the first takes
  // their compiled code from Node's compile cache.
  process.env.NODE_COMPILE_CACHE ??= COMPILE_CACHE_DIR;
  process.env.TMPDIR = scratchDir();
  // Every DynamoDB Local of the tier (some 25) maps the classes this one records, unless an
  // earlier run (the integration tier's) already did (lib/local/dynamodb-local-archive.ts).
  await prepareDynamoDbLocalArchive();
  const launched = await Promise.allSettled(
    Array.from({ length: e2eWorkers() }, () =>
      launchLocalRuntime({
        dataDirPrefix: 'sps-e2e',
        // Short settlement cut-offs so that refunds can be tested; INFO logs so that leaks would
        // show. No due sweep: the files' current-hour groups are started by their own ticks and
        // triggers (test/e2e/current-hour.test.ts runs a runtime of its own with the sweep). No
        // sweeper timer: the files sweep when they mean to (POST /__local/events/sweep), and a timer's
        // sweep in between settled money-safety's stale Pending sale before its GET (lib/local/sweeper.ts). No
        // notices timer: a file delivers the sandbox's notices when it means to (lib/local/notices.ts).
        // E-mail retries at most 2 s apart (prod: 15 minutes): an e-mail throttled or refused five
        // times is then retried within seconds, as notifications' SES-fault tests make it, not
        // after half a minute of the doubling delays; what counts as an attempt is unchanged.
        env: {
          EMAIL_RETRY_MAX_DELAY_SECONDS: '2',
          AUTHZ_CACHE_SECONDS: '0',
          SANDBOX_SETTLEMENT_SECONDS: String(E2E_SETTLEMENT_MS / 1000),
          POWERTOOLS_LOG_LEVEL: 'INFO',
          LOCAL_DUE_SWEEP_SECONDS: '0',
          LOCAL_SWEEP_TIMER: 'off',
          LOCAL_NOTICES_TIMER: 'off',
        },
      }),
    ),
  );
  const runtimes = launched.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = launched.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    // The runtimes that did start are stopped: Jest runs no teardown after a failed setup, and a
    // runtime left running holds its ports and its DynamoDB Local past the run.
    await Promise.allSettled(runtimes.map((r) => r.stop()));
    throw failed.reason;
  }
  for (const [i, runtime] of runtimes.entries()) {
    process.env[`E2E_BASE_URL_${i + 1}`] = runtime.url;
    process.env[`E2E_DATA_DIR_${i + 1}`] = runtime.dataDir;
    process.env[`E2E_SES_URL_${i + 1}`] = runtime.sesUrl;
  }
  (globalThis as { __E2E_RUNTIMES__?: LocalRuntimeProcess[] }).__E2E_RUNTIMES__ = runtimes;
}

/** Where the tier's runtimes keep their data: memory where the machine offers it (Linux's /dev/shm). */
export const SHM = '/dev/shm';

/**
 * A directory for every temporary file of the tier (the runtimes' data directories among them,
 * through TMPDIR): in memory where the machine has a tmpfs at /dev/shm, else the usual one.
 * DynamoDB Local keeps a runtime's tables in an SQLite file and syncs it at each write: on a disk
 * that is half its CPU and most of a request's time (5,000 writes and queries: 14 CPU-s and 60 s
 * with ext4, 7.5 CPU-s and 10 s with tmpfs, as with `-inMemory`). A killed runtime's files stay
 * (the crash tests restart on them), as they would on disk. The teardown removes the directory.
 */
function scratchDir(): string {
  try {
    if (statSync(SHM).isDirectory()) return mkdtempSync(`${SHM}/sps-e2e-tmp-`);
  } catch {
    // No /dev/shm (macOS) or not writable: the usual temporary directory.
  }
  return process.env.TMPDIR ?? '/tmp';
}
