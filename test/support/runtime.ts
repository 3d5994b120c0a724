/**
 * Starts the real local runtime (`tsx bin/local.ts`, as `npm start` does) in a child process on
 * a free port with in-memory DynamoDB and its own data directory, and waits for its ready line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../../lib/local/dynamodb-local';

export interface RuntimeProcess {
  readonly url: string;
  /** aws-ses-v2-local of this runtime (GET /store lists the e-mails). */
  readonly sesUrl: string;
  readonly dataDir: string;
  readonly child: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const ROOT = resolve(__dirname, '..', '..');

export async function startRuntimeProcess(env: Record<string, string> = {}): Promise<RuntimeProcess> {
  const port = await freePort();
  const sesPort = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'sps-e2e-'));
  const child = spawn(join(ROOT, 'node_modules', '.bin', 'tsx'), ['bin/local.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      SES_PORT: String(sesPort),
      DATA_DIR: dataDir,
      DYNAMODB_IN_MEMORY: 'true',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  // Everything the runtime prints is kept in <dataDir>/runtime.log (tests search it for leaks).
  const log = createWriteStream(join(dataDir, 'runtime.log'));
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`runtime did not start in 90 s:\n${output}`)), 90_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
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
  return {
    url,
    sesUrl: `http://127.0.0.1:${sesPort}`,
    dataDir,
    child,
    output: () => output,
    async stop(signal: NodeJS.Signals = 'SIGINT') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}
