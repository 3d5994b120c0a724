/**
 * `npm run admin -- … --local` run for real by the integration tier against its DynamoDB Local:
 * a data directory whose runtime.json names the test's table (what `--local` reads to find a
 * runtime), and the CLI run as a child process with DATA_DIR pointing at it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { localToolCommand } from '#lib/local/runtime-bundle';

const ROOT = resolve(__dirname, '..', '..');
const run = promisify(execFile);

export interface LocalAdminCli {
  /** Runs `bin/admin.ts <args> --local`; rejects (with stdout and stderr) on a non-zero exit. */
  (...args: string[]): Promise<{ stdout: string; stderr: string }>;
  /** Removes the data directory. */
  remove(): void;
}

/** An admin CLI for the table `tableName` of the tier's DynamoDB Local. */
export function localAdminCli(tableName: string, prefix = 'sps-admin-'): LocalAdminCli {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(
    join(dataDir, 'runtime.json'),
    JSON.stringify({ dynamodbEndpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB, tableName }),
  );
  const admin = (...args: string[]) => {
    const [command, commandArgs] = localToolCommand('admin', [...args, '--local']);
    return run(command, commandArgs, { cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir } });
  };
  return Object.assign(admin, { remove: () => rmSync(dataDir, { recursive: true, force: true }) });
}
