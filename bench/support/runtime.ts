/**
 * The runtime under test, launched by lib/local/launcher.ts (the child pid is the runtime itself:
 * signals, CPU accounting and `--cpu-prof` reach it directly), with the DynamoDB call census
 * preloaded.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { launchLocalRuntime, type LocalRuntimeProcess, type StopResult } from '../../lib/local/launcher';
import { sleep } from '../../lambdas/shared/clock';

export interface BenchRuntime extends Omit<LocalRuntimeProcess, 'stop'> {
  /** DynamoDB calls made by the runtime so far, by command name. */
  census(): Promise<Record<string, number>>;
  /** The calls' count and total time (ms) so far, by client (`''` DynamoDB, `SFN.`...), read with a census. */
  callTiming(): Promise<Record<string, { calls: number; ms: number }>>;
  /** SIGINT (as Ctrl-C), wait for exit; then checks that no DynamoDB Local of ours is left. */
  stop(): Promise<StopResult>;
}

interface StartOptions {
  /** Directory for a V8 CPU profile of the runtime (written when it exits). */
  cpuProfDir?: string;
  env?: Record<string, string>;
}

export async function startBenchRuntime(options: StartOptions = {}): Promise<BenchRuntime> {
  const runtime = await launchLocalRuntime({
    dataDirPrefix: 'sps-bench',
    nodeArgs: [
      ...(options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`] : []),
      // tsx for the census's TypeScript (the runtime itself is a bundle: lib/local/runtime-bundle.ts).
      '--import',
      'tsx',
      '--import',
      './bench/support/ddb-census.ts',
    ],
    env: { POWERTOOLS_LOG_LEVEL: 'WARN', ...options.env },
  });
  const censusFile = join(runtime.dataDir, 'ddb-census.json');
  const timingFile = join(runtime.dataDir, 'ddb-timing.json');
  const bench: BenchRuntime = {
    ...runtime,
    stop: () => runtime.stop('SIGINT'),
    async callTiming() {
      await bench.census();
      return JSON.parse(readFileSync(timingFile, 'utf8')) as Record<string, { calls: number; ms: number }>;
    },
    async census() {
      rmSync(censusFile, { force: true });
      process.kill(runtime.pid, 'SIGUSR2');
      for (let i = 0; i < 200 && !existsSync(censusFile); i++) await sleep(10);
      // The file is written synchronously in one call; a short grace for the rename-free write.
      await sleep(10);
      return JSON.parse(readFileSync(censusFile, 'utf8')) as Record<string, number>;
    },
  };
  return bench;
}
