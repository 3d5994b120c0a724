/**
 * The runtime under test: `bin/local.ts` (what `npm start` runs) in a child process on a free
 * port, in-memory DynamoDB, its own data directory. Started as `node --import tsx` rather than
 * through the tsx CLI so that the child pid is the runtime itself (signals, CPU accounting and
 * `--cpu-prof` reach it directly), with the DynamoDB call census preloaded.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../../lib/local/dynamodb-local';

export const ROOT = resolve(__dirname, '..', '..');

export interface RuntimeInfo {
  url: string;
  dynamodbEndpoint: string;
  tableName: string;
}

export interface BenchRuntime extends RuntimeInfo {
  readonly pid: number;
  readonly dataDir: string;
  /** DynamoDB calls made by the runtime so far, by command name. */
  census(): Promise<Record<string, number>>;
  /** SIGINT (as Ctrl-C), wait for exit; then checks that no DynamoDB Local of ours is left. */
  stop(): Promise<{ exitCode: number | null; orphans: string[] }>;
}

export interface StartOptions {
  /** Directory for a V8 CPU profile of the runtime (written when it exits). */
  cpuProfDir?: string;
  env?: Record<string, string>;
}

export async function startBenchRuntime(options: StartOptions = {}): Promise<BenchRuntime> {
  const port = await freePort();
  const sesPort = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'sps-bench-'));
  const nodeArgs = [
    ...(options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`] : []),
    '--import',
    'tsx',
    '--import',
    './bench/support/ddb-census.ts',
    'bin/local.ts',
  ];
  const child: ChildProcess = spawn(process.execPath, nodeArgs, {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      SES_PORT: String(sesPort),
      DATA_DIR: dataDir,
      DYNAMODB_IN_MEMORY: 'true',
      POWERTOOLS_LOG_LEVEL: 'WARN',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(join(dataDir, 'runtime.log'));
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  let output = '';
  const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
  const ready = new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`runtime did not start in 90 s:\n${output}`)), 90_000);
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8000);
      const m = /ready at (http:\/\/\S+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        ok(m[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`runtime exited with ${code} before it was ready:\n${output}`));
    });
  });
  let url: string;
  try {
    url = await ready;
  } catch (error) {
    // Not ready in time (or exited): make sure it is gone, and DynamoDB Local with it.
    if (child.exitCode === null) {
      child.kill('SIGINT');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const info = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')) as RuntimeInfo;
  const dynamoPort = new URL(info.dynamodbEndpoint).port;
  const censusFile = join(dataDir, 'ddb-census.json');

  return {
    url,
    dynamodbEndpoint: info.dynamodbEndpoint,
    tableName: info.tableName,
    pid: child.pid!,
    dataDir,
    async census() {
      rmSync(censusFile, { force: true });
      child.kill('SIGUSR2');
      for (let i = 0; i < 200 && !existsSync(censusFile); i++) await new Promise((r) => setTimeout(r, 10));
      // The file is written synchronously in one call; a short grace for the rename-free write.
      await new Promise((r) => setTimeout(r, 10));
      return JSON.parse(readFileSync(censusFile, 'utf8')) as Record<string, number>;
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGINT');
      const exitCode = await Promise.race([
        exited,
        new Promise<null>((r) => setTimeout(() => r(null), 20_000)),
      ]);
      if (child.exitCode === null) child.kill('SIGKILL');
      // DynamoDB Local of this runtime is the java process listening on its port.
      const probe = spawnSync('pgrep', ['-f', `DynamoDBLocal.jar -port ${dynamoPort} `], {
        encoding: 'utf8',
      });
      const orphans = probe.stdout.split('\n').filter((l) => l.trim() !== '');
      if (orphans.length === 0) rmSync(dataDir, { recursive: true, force: true });
      return { exitCode, orphans };
    },
  };
}
