/**
 * `npm run bench`: starts the local runtime (in-memory DynamoDB Local) in a child process,
 * runs every section (or `--only=<name>[,<name>]`), prints a table and writes bench/results.json
 * and bench/results.md, then stops the runtime and checks that no DynamoDB Local is left over.
 *
 * Flags: --only=create-payment,list-groups   --concurrency=16   --warmup=3   --duration=60
 *        --rounds=24        each side's measured time is cut into slices that alternate with the
 *                           other side's (A B, B A, ...), so drift (JIT, table growth, other load)
 *                           hits both alike
 *        --order=api,raw    or raw,api: which side opens the first round
 *        --list-groups=200  --payment-groups=16   --no-write (print only)
 *        --processing-payments=10000   payments per group of the processing section (issue 4: 10,000)
 *        --receipts-payments=10000     payments (receipts) of the receipts section's group (issue 25)
 *        --delivery-payments=10000     payments of the delivery section's group (issue 18: its webhooks)
 *        --webhook-concurrency=40      the runtime's webhook invocations at once (default prod's 40, or
 *                                      LOCAL_WEBHOOK_CONCURRENCY): delivery measured as prod runs it
 *        --report-payments=100000      payments of the group-report section's group (issue 21: its CSV)
 *        --handler-requests=30         measured requests per route of the handler-cpu section (issue 36)
 *        --settlement-seconds=5        the runtime's SANDBOX_SETTLEMENT_SECONDS (the execution's wait)
 *        --profile          runtime under --cpu-prof; prints where its CPU time went (implies --no-write)
 *        --seed=1 --processor-rate=1000   the peak-slot model's workload seed and processor limit
 *                           (that section is a model: run alone, the bench starts no runtime)
 *        --model-only       no runtime: a section holding a model beside its measurement (peak-local)
 *                           computes its model again from the measurement saved in bench/results.json
 */
// First: the raw side's SDK calls run without the X-Ray SDK's async hook, as the runtime's do.
import '../lib/local/x-ray';
import { mkdtempSync, readdirSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { WEBHOOK_DELIVERY } from '../contract/webhooks';
import { sections } from './sections';
import type { AnySection, Results } from './sections/section';
import { createContext, type BenchConfig, type PhaseResult } from './support/context';
import { renderProfile, summarizeProfile, type ProfileWindow } from './support/profile';
import { consoleReport, writeResults, writeResultsJson } from './sections/report';
import { mergeResults, readResults } from './support/results';
import { startBenchRuntime, type BenchRuntime } from './support/runtime';

/**
 * The whole run is bounded: past this the runtime is stopped and the bench fails. A quiet 2-core
 * machine ran every section in 2,072 s on 2026-11-26 (the two API-versus-raw workloads about 2.5
 * minutes each; processing-latency starts two runtimes of its own; group-report writes 100,000
 * payments; peak-local runs 300 groups); a loaded one takes up to twice that. The limit was 20
 * minutes, which a whole run had outgrown (about 31 minutes before the two workloads were
 * measured for 60 s a side).
 */
const HARD_LIMIT_MS = 75 * 60_000;

function parseOrder(raw: string | undefined): ('api' | 'raw')[] {
  if (raw === undefined || raw === 'api,raw') return ['api', 'raw'];
  if (raw === 'raw,api') return ['raw', 'api'];
  throw new Error('--order must be api,raw or raw,api');
}

function parseArgs(argv: string[]) {
  const flags = new Map<string, string>();
  for (const arg of argv) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!m) throw new Error(`unknown argument ${arg}`);
    flags.set(m[1]!, m[2] ?? 'true');
  }
  const num = (name: string, fallback: number) => {
    const raw = flags.get(name);
    const value = raw === undefined ? fallback : Number(raw);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number`);
    return value;
  };
  const known = new Set([
    'only',
    'concurrency',
    'warmup',
    'duration',
    'rounds',
    'order',
    'list-groups',
    'payment-groups',
    'webhook-concurrency',
    'processing-payments',
    'receipts-payments',
    'delivery-payments',
    'report-payments',
    'settlement-seconds',
    'no-write',
    'profile',
    'seed',
    'processor-rate',
    'model-only',
    'handler-requests',
  ]);
  for (const name of flags.keys()) if (!known.has(name)) throw new Error(`unknown flag --${name}`);
  const only = flags.get('only')?.split(',').filter(Boolean);
  const selected: AnySection[] = only
    ? only.map((n) => {
        const s = sections.find((x) => x.name === n);
        if (!s) throw new Error(`no section ${n}; sections: ${sections.map((x) => x.name).join(', ')}`);
        return s;
      })
    : [...sections];
  const config: BenchConfig = {
    concurrency: num('concurrency', 16),
    warmupSeconds: num('warmup', 3),
    durationSeconds: num('duration', 60),
    rounds: num('rounds', 24),
    listGroups: num('list-groups', 200),
    paymentGroups: num('payment-groups', 16),
    pageSize: 25,
    processingPayments: num('processing-payments', 10_000),
    receiptsPayments: num('receipts-payments', 10_000),
    deliveryPayments: num('delivery-payments', 10_000),
    webhookConcurrency: num(
      'webhook-concurrency',
      Number(process.env.LOCAL_WEBHOOK_CONCURRENCY ?? WEBHOOK_DELIVERY.prodConcurrency),
    ),
    reportPayments: num('report-payments', 100_000),
    settlementSeconds: num('settlement-seconds', Number(process.env.SANDBOX_SETTLEMENT_SECONDS ?? 5)),
    order: parseOrder(flags.get('order')),
    authzCacheSeconds: Number(process.env.AUTHZ_CACHE_SECONDS ?? 30),
    peakSeed: num('seed', 1),
    processorRate: num('processor-rate', 1000),
    handlerRequests: num('handler-requests', 30),
  };
  const profile = flags.has('profile');
  const modelOnly = flags.has('model-only');
  if (modelOnly)
    for (const s of selected)
      if (s.kind === 'compare' || (s.kind === 'custom' && !s.remodel))
        throw new Error(`--model-only: section ${s.name} has no model to compute again`);
  return { selected, config, profile, modelOnly, write: !flags.has('no-write') && !profile };
}

/** The code measured: BENCH_CODE_REF if set (e.g. a snapshot outside git), else git's HEAD. */
function codeRef(): { commit?: string; uncommittedChanges?: boolean } {
  if (process.env.BENCH_CODE_REF) return { commit: process.env.BENCH_CODE_REF };
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  if (head.status !== 0) return {};
  const dirty = spawnSync('git', ['status', '--porcelain', '--', 'lambdas', 'lib', 'bin', 'statemachines'], {
    encoding: 'utf8',
  });
  return { commit: head.stdout.trim(), uncommittedChanges: dirty.stdout.trim() !== '' };
}

/** DynamoDB Local processes on the machine (other projects' and test runs' included). */
const dynamoDbProcesses = () =>
  (spawnSync('pgrep', ['-f', 'DynamoDBLocal'], { encoding: 'utf8' }).stdout ?? '')
    .split('\n')
    .filter(Boolean);

/** Runs the sections that measure the local runtime: starts it, runs them, stops it. */
async function measure(
  selected: AnySection[],
  config: BenchConfig,
  windows: ProfileWindow[],
  profileDir: string | undefined,
  code: { commit?: string; uncommittedChanges?: boolean },
): Promise<Results> {
  const startedAt = Date.now();
  let patch: Results = {};
  console.log(`bench: starting the local runtime${profileDir ? ' under --cpu-prof' : ''} ...`);
  const runtime: BenchRuntime = await startBenchRuntime({
    ...(profileDir && { cpuProfDir: profileDir }),
    // The local settlement cut-off: short, so that a processed group's execution ends soon.
    env: {
      SANDBOX_SETTLEMENT_SECONDS: String(config.settlementSeconds),
      LOCAL_WEBHOOK_CONCURRENCY: String(config.webhookConcurrency),
    },
  });
  let stopped = false;
  const stop = async () => {
    if (stopped) return { exitCode: null, orphans: [] as string[] };
    stopped = true;
    return runtime.stop();
  };
  const guard = setTimeout(() => {
    console.error(`bench: over ${HARD_LIMIT_MS / 1000} s, stopping`);
    void stop().finally(() => process.exit(2));
  }, HARD_LIMIT_MS);
  // Ctrl-C, a `kill` or a closed terminal: the runtime and its DynamoDB Local go with the bench.
  const signals = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
  const onSignal = (signal: keyof typeof signals) => () => {
    console.error(`bench: ${signal}, stopping the runtime`);
    void stop().finally(() => process.exit(signals[signal]));
  };
  for (const signal of Object.keys(signals) as (keyof typeof signals)[])
    process.once(signal, onSignal(signal));

  try {
    console.log(
      `bench: runtime ready at ${runtime.url} (pid ${runtime.pid}) in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
    );
    const ctx = await createContext(config, runtime);
    for (const section of selected) {
      if (section.kind === 'model') continue;
      console.log(`bench: section ${section.name}`);
      const result = await section.run(ctx);
      // When and at which code each section was measured: a later run of other sections keeps it.
      // With the machine's load average (1, 5, 15 minutes): a shared machine's load moves CPU costs.
      const load = loadavg().map((x) => Math.round(x * 100) / 100);
      const measuredAt = { date: new Date().toISOString(), ...code, loadAverage: load };
      patch = mergeResults(patch, { ...result, measured: { [section.name]: measuredAt } });
      const api = (result.api ?? {}) as Record<string, PhaseResult>;
      for (const [key, p] of Object.entries(api)) {
        windows.push({
          name: `api ${key}`,
          windowsUs: p.windowsUs,
          operations: p.requests + p.errors,
          cpu: p.cpuMsPerOp,
        });
      }
    }
    ctx.api.close();
    ctx.db.destroy();
  } finally {
    const { exitCode, orphans } = await stop();
    clearTimeout(guard);
    const others = dynamoDbProcesses().filter((pid) => !orphans.includes(pid));
    console.log(
      `bench: runtime stopped (exit ${exitCode}); its DynamoDB Local: ${orphans.length === 0 ? 'gone' : `STILL RUNNING (${orphans.join(', ')})`}` +
        (others.length > 0
          ? `; other DynamoDB Local processes on this machine (not the bench's): ${others.length}`
          : ''),
    );
    if (orphans.length > 0) process.exitCode = 1;
  }

  return patch;
}

async function main(): Promise<void> {
  const { selected, config, profile, modelOnly, write } = parseArgs(process.argv.slice(2));
  const startedAt = Date.now();
  const code = codeRef(); // at the start: others may commit while the bench runs
  const profileDir = profile ? mkdtempSync(join(tmpdir(), 'sps-bench-prof-')) : undefined;

  let patch: Results = {};
  const windows: ProfileWindow[] = [];
  const measured = modelOnly ? [] : selected.filter((s) => s.kind !== 'model');
  if (measured.length > 0) patch = await measure(measured, config, windows, profileDir, code);
  for (const section of selected) {
    if (modelOnly && section.kind === 'custom' && section.remodel) {
      console.log(`bench: section ${section.name}: its model again, from its saved measurement`);
      patch = mergeResults(patch, await section.remodel());
      continue;
    }
    if (section.kind !== 'model') continue;
    console.log(`bench: section ${section.name} (a model: no runtime)`);
    patch = mergeResults(patch, await section.run(config));
  }

  // A run of models alone keeps the last measured run's date, machine and configuration.
  const meta =
    measured.length === 0
      ? {}
      : {
          date: new Date().toISOString(),
          machine: {
            cpus: cpus().length,
            cpuModel: cpus()[0]?.model?.trim(),
            node: process.version,
            platform: `${process.platform}-${process.arch}`,
          },
          config: {
            ...config,
            sections: selected.map((s) => s.name),
            runSeconds: Math.round((Date.now() - startedAt) / 1000),
          },
          code,
          target: { ratio: 0.7 },
        };
  const results = mergeResults(write ? readResults() : {}, { ...meta, ...patch });
  if (write) await writeResultsJson(results);
  console.log('');
  console.log(
    consoleReport(
      results,
      sections.filter((s) => selected.includes(s) || !profile),
    ),
  );

  if (profileDir) {
    const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) console.log(`bench: no CPU profile was written in ${profileDir}`);
    else {
      console.log(renderProfile(summarizeProfile(join(profileDir, file), windows)));
      console.log(`\nbench: profile kept at ${join(profileDir, file)} (open it in Chrome DevTools)`);
    }
  }
  if (write) {
    await writeResults(results, sections);
    console.log('\nbench: wrote bench/results.json and bench/results.md');
  }
  console.log(`bench: done in ${((Date.now() - startedAt) / 1000).toFixed(0)} s`);
  // Idle keep-alive sockets (fetch's pool) must not hold the process open after the report.
  process.exit();
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
