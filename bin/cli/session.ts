/**
 * The tester CLI's session: where `spay login` keeps the target (API, token endpoint, client
 * credentials, merchant, local e-mail store) for the commands that follow. It lives in
 * `$SPAY_HOME/session.json` (default `~/.spay`), readable by its owner only, since it holds the
 * client secret the client needs to fetch new tokens.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ScheduledPaymentsClient } from '../../client/index';

export interface Session {
  /** `local`, or the stage's stack name from the CDK outputs file. */
  target: string;
  baseUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** The merchant the commands act for. */
  mid: string;
  /** The local SES store (local runtime only). */
  sesUrl?: string;
}

export const LOCAL_CLIENT = { clientId: 'local-tester', clientSecret: 'local-tester-secret' };
export const DEFAULT_MID = '32350000001';

const home = (): string => process.env.SPAY_HOME ?? join(homedir(), '.spay');
const sessionFile = (): string => join(home(), 'session.json');

export function saveSession(session: Session): void {
  mkdirSync(home(), { recursive: true, mode: 0o700 });
  writeFileSync(sessionFile(), `${JSON.stringify(session, null, 2)}\n`, { mode: 0o600 });
  chmodSync(sessionFile(), 0o600);
}

export function loadSession(): Session {
  if (!existsSync(sessionFile())) throw new Error('not logged in: run `spay login` first');
  return JSON.parse(readFileSync(sessionFile(), 'utf8')) as Session;
}

export const clientOf = (session: Session): ScheduledPaymentsClient =>
  new ScheduledPaymentsClient({
    baseUrl: session.baseUrl,
    tokenUrl: session.tokenUrl,
    clientId: session.clientId,
    clientSecret: session.clientSecret,
  });

/** The local runtime as `npm start` recorded it in `<dataDir>/runtime.json`, else the default ports. */
export function localTarget(dataDir: string): Pick<Session, 'baseUrl' | 'tokenUrl' | 'sesUrl'> {
  const file = join(dataDir, 'runtime.json');
  const recorded = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as { url?: string; sesUrl?: string })
    : {};
  const baseUrl = recorded.url ?? 'http://127.0.0.1:3000';
  return { baseUrl, tokenUrl: `${baseUrl}/oauth2/token`, sesUrl: recorded.sesUrl ?? 'http://127.0.0.1:8005' };
}

/**
 * A deployed stage from `cdk deploy --outputs-file`: `{"<stack>": {"ApiUrl", "TokenUrl", ...}}`.
 * With several stacks in the file, `stack` picks one.
 */
export function stageTarget(
  outputsFile: string,
  stack?: string,
): Pick<Session, 'target' | 'baseUrl' | 'tokenUrl'> {
  const outputs = JSON.parse(readFileSync(outputsFile, 'utf8')) as Record<string, Record<string, string>>;
  const names = Object.keys(outputs).filter((name) => outputs[name]?.ApiUrl && outputs[name]?.TokenUrl);
  const name = stack ?? (names.length === 1 ? names[0] : undefined);
  if (!name || !names.includes(name)) {
    throw new Error(
      `${outputsFile}: name the stack with --stack (stacks with ApiUrl and TokenUrl: ${names.join(', ') || 'none'})`,
    );
  }
  const { ApiUrl, TokenUrl } = outputs[name]!;
  return { target: name, baseUrl: ApiUrl!, tokenUrl: TokenUrl! };
}
