/**
 * Starts the local runtime (`bin/local.ts` bundled, what `npm start` runs) in a child process on free
 * ports, with in-memory DynamoDB and a data directory of its own, and waits for its ready line.
 * The end-to-end tests and the bench both launch it through here; the crash test restarts it on
 * the same ports and data directory (`port`, `sesPort`, `dataDir`).
 */
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { dynamoDbLocalCommandPattern, freePort } from './dynamodb-local';
import { localRuntimeCommand } from './runtime-bundle';
import { sleep } from '../../lambdas/shared/clock';

const ROOT = resolve(__dirname, '..', '..');
const READY_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 20_000;
/** DynamoDB Local's watchdog stops it when its runtime ends, however: a killed runtime's Java ends soon after. */
const ORPHAN_GRACE_MS = 10_000;
/** Output kept in memory for error messages; all of it is in `<dataDir>/runtime.log`. */
const OUTPUT_TAIL_CHARS = 64_000;

interface LaunchOptions {
  /** Added to (and overriding) the inherited environment. */
  env?: Record<string, string>;
  /** Prefix of the temporary data directory's name. */
  dataDirPrefix?: string;
  /**
   * An existing data directory to use instead of a new temporary one (a restart): the caller owns
   * it, so `stop` keeps it. With `DYNAMODB_IN_MEMORY: 'false'` in `env` the table survives restarts.
   */
  dataDir?: string;
  /** The API's and local SES's ports (a restart reuses them); default: free ones. */
  port?: number;
  sesPort?: number;
  /**
   * Node flags and `--import`ed modules (a TypeScript one after `--import tsx`), before the
   * runtime's bundle on its command line (lib/local/runtime-bundle.ts).
   */
  nodeArgs?: string[];
}

export interface StopResult {
  exitCode: number | null;
  /** Command lines of DynamoDB Local processes of this runtime still running after it exited. */
  orphans: string[];
}

export interface LocalRuntimeProcess {
  readonly url: string;
  /** aws-ses-v2-local of this runtime (GET /store lists the e-mails). */
  readonly sesUrl: string;
  readonly dynamodbEndpoint: string;
  readonly tableName: string;
  readonly dataDir: string;
  readonly port: number;
  readonly sesPort: number;
  /** The child's pid: the runtime itself (signals, CPU accounting and `--cpu-prof` reach it). */
  readonly pid: number;
  /** The latest output of the runtime (stdout and stderr). */
  output(): string;
  /**
   * Sends `signal` (SIGINT: as Ctrl-C), waits for the exit (SIGKILL after 20 s), then checks that
   * no DynamoDB Local of this runtime is left (after SIGKILL its watchdog is given up to 10 s to
   * end it); a temporary data directory is removed when none is.
   */
  stop(signal?: NodeJS.Signals): Promise<StopResult>;
}

interface RuntimeFile {
  dynamodbEndpoint: string;
  tableName: string;
}

/** `promise`, or null after `ms`; the timer is cleared so that it keeps no process alive. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((ok) => (timer = setTimeout(() => ok(null), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Launches with its ports picked again when one was taken between its pick and its bind. */
const PORT_RACE_ATTEMPTS = 3;

/**
 * Starts the runtime in a child process. Ports the caller did not give are picked free here and
 * bound by the child a moment later: another process starting at once (the e2e tier launches a
 * runtime per worker together, and files launch their own) may take one in between; the child
 * then exits saying so, and the launch is tried again with new ports, never more than PORT_RACE_ATTEMPTS times. A port the caller gave is never changed.
 */
export async function launchLocalRuntime(options: LaunchOptions = {}): Promise<LocalRuntimeProcess> {
  const given = new Set([options.port, options.sesPort].filter((p) => p !== undefined).map(String));
  for (let attempt = 1; ; attempt++) {
    try {
      return await launchOnce(options);
    } catch (error) {
      const raced =
        error instanceof Error
          ? /port (\d+)(?:, picked free at start, was taken meanwhile| is already in use)/.exec(error.message)
          : null;
      if (!raced || given.has(raced[1]!) || attempt >= PORT_RACE_ATTEMPTS) throw error;
    }
  }
}

async function launchOnce(options: LaunchOptions): Promise<LocalRuntimeProcess> {
  const port = options.port ?? (await freePort());
  const sesPort = options.sesPort ?? (await freePort([port]));
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), `${options.dataDirPrefix ?? 'sps-local'}-`));
  mkdirSync(dataDir, { recursive: true });
  const removeDataDir = () => {
    if (ownsDataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  const [command, args] = localRuntimeCommand(options.nodeArgs);
  const child = spawn(command, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      SES_PORT: String(sesPort),
      DATA_DIR: dataDir,
      DYNAMODB_IN_MEMORY: 'true',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Everything the runtime prints is kept in <dataDir>/runtime.log (tests search it for leaks).
  const log = createWriteStream(join(dataDir, 'runtime.log'), { flags: 'a' });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  const tail = outputTail(OUTPUT_TAIL_CHARS);
  child.stdout.on('data', tail.add);
  child.stderr.on('data', tail.add);
  const output = tail.text;
  const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));

  const killAndWait = async (signal: NodeJS.Signals): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    const exitCode = await within(exited, STOP_TIMEOUT_MS);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    return exitCode;
  };

  let url: string;
  try {
    url = await readyUrl(child.stdout, child.stderr, exited, output);
  } catch (error) {
    // Not ready in time (or exited): make sure it is gone, and DynamoDB Local with it.
    await killAndWait('SIGINT');
    removeDataDir();
    throw error;
  }
  const info = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')) as RuntimeFile;
  const dynamoPort = new URL(info.dynamodbEndpoint).port;

  return {
    url,
    sesUrl: `http://127.0.0.1:${sesPort}`,
    dynamodbEndpoint: info.dynamodbEndpoint,
    tableName: info.tableName,
    dataDir,
    port,
    sesPort,
    pid: child.pid!,
    output,
    async stop(signal: NodeJS.Signals = 'SIGINT') {
      const exitCode = await killAndWait(signal);
      // A DynamoDB given by DYNAMODB_ENDPOINT is not the runtime's: it stays up by design.
      if (options.env?.DYNAMODB_ENDPOINT) {
        removeDataDir();
        return { exitCode, orphans: [] };
      }
      let orphans = dynamoProcesses(dynamoPort);
      // Killed without a chance to stop it, the runtime leaves Java to its watchdog.
      for (const until = Date.now() + ORPHAN_GRACE_MS; orphans.length > 0 && Date.now() < until;) {
        await sleep(200);
        orphans = dynamoProcesses(dynamoPort);
      }
      if (orphans.length === 0) removeDataDir();
      return { exitCode, orphans };
    },
  };
}

/** DynamoDB Local of a runtime is the java process listening on its port: their command lines. */
function dynamoProcesses(dynamoPort: string): string[] {
  const probe = spawnSync('pgrep', ['-af', dynamoDbLocalCommandPattern(dynamoPort)], { encoding: 'utf8' });
  return (probe.stdout ?? '').split('\n').filter((line) => line.trim() !== '');
}

/**
 * The last `chars` characters of a process's output, kept as its chunks: a chunk is added without
 * copying what is kept (a runtime at INFO prints a line per request, for a whole test run), and
 * the text is joined when asked for (an error message, a test's search).
 */
function outputTail(chars: number): { add: (chunk: Buffer) => void; text: () => string } {
  const chunks: string[] = [];
  let length = 0;
  return {
    add(chunk) {
      const text = chunk.toString();
      chunks.push(text);
      length += text.length;
      while (chunks.length > 1 && length - chunks[0]!.length >= chars) length -= chunks.shift()!.length;
    },
    text: () => chunks.join('').slice(-chars),
  };
}

/** The URL of the runtime's `ready at` line; fails when it exits first or takes over 90 s. */
function readyUrl(
  stdout: NodeJS.ReadableStream,
  stderr: NodeJS.ReadableStream,
  exited: Promise<number | null>,
  output: () => string,
): Promise<string> {
  return new Promise<string>((ok, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`runtime did not start in ${READY_TIMEOUT_MS / 1000} s:\n${output()}`)),
      READY_TIMEOUT_MS,
    );
    // Until the line comes: the runtime's output after it is not searched (its INFO logs, a test's
    // whole run).
    const onData = () => {
      const match = /ready at (http:\/\/\S+)/.exec(output());
      if (match) {
        clearTimeout(timer);
        stdout.off('data', onData);
        stderr.off('data', onData);
        ok(match[1]!);
      }
    };
    stdout.on('data', onData);
    stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`runtime exited with ${code} before it was ready:\n${output()}`));
    });
  });
}
