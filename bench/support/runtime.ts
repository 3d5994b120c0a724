/**
 * The runtime under test, launched by lib/local/launcher.ts (the child pid is the runtime itself:
 * signals, CPU accounting and `--cpu-prof` reach it directly), with the DynamoDB call census and
 * the handler CPU probe preloaded.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { launchLocalRuntime, type LocalRuntimeProcess, type StopResult } from '../../lib/local/launcher';
import { sleep } from '../../lambdas/shared/clock';
import type { HandlerCpuProbe } from './handler-cpu-probe';

export interface BenchRuntime extends Omit<LocalRuntimeProcess, 'stop'> {
  /** DynamoDB calls made by the runtime so far, by command name. */
  census(): Promise<Record<string, number>>;
  /** The calls' count and total time (ms) so far, by client (`''` DynamoDB, `SFN.`...), read with a census. */
  callTiming(): Promise<Record<string, { calls: number; ms: number }>>;
  /** Each route's API handler invocations so far and the CPU of its last ones (handler-cpu-probe.ts). */
  handlerCpu(): Promise<HandlerCpuProbe>;
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
      '--import',
      './bench/support/handler-cpu-probe.ts',
    ],
    env: { POWERTOOLS_LOG_LEVEL: 'WARN', ...options.env },
  });
  const censusFile = join(runtime.dataDir, 'ddb-census.json');
  const timingFile = join(runtime.dataDir, 'ddb-timing.json');
  const handlerCpuFile = join(runtime.dataDir, 'handler-cpu.json');
  /** SIGUSR2: the preloaded modules write their files; `file` read once it is there. */
  const signalled = async <T>(file: string): Promise<T> => {
    rmSync(file, { force: true });
    process.kill(runtime.pid, 'SIGUSR2');
    for (let i = 0; i < 200 && !existsSync(file); i++) await sleep(10);
    // The file is written synchronously in one call; a short grace for the rename-free write.
    await sleep(10);
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  };
  const bench: BenchRuntime = {
    ...runtime,
    stop: () => runtime.stop('SIGINT'),
    async callTiming() {
      await bench.census();
      return JSON.parse(readFileSync(timingFile, 'utf8')) as Record<string, { calls: number; ms: number }>;
    },
    census: () => signalled<Record<string, number>>(censusFile),
    handlerCpu: () => signalled<HandlerCpuProbe>(handlerCpuFile),
  };
  return bench;
}
