/**
 * DynamoDB Local as the runtime starts it (lib/local/dynamodb-local.ts, dynamodb-local.xml): it is
 * ready when its own server listens, not when something answers on its port. On a port that
 * another DynamoDB Local holds (one that answers every DynamoDB call), it fails as Node's `listen`
 * fails on a busy port, and leaves no Java process of its own; it does not use the other one.
 * With a data directory (what `npm start` uses unless DYNAMODB_IN_MEMORY=true) the table outlives
 * the process, in the file DynamoDB Local's own launcher uses with `-sharedDb`. Without Java on
 * the PATH (not probed beforehand) the start fails saying what to install. It maps the class-data
 * sharing archive the tier's global setup recorded (lib/local/dynamodb-local-archive.ts).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { classPathArgs, JAR_DIR } from '#lib/local/dynamodb-local-archive';
import {
  DYNAMODB_LOCAL_JVM_FLAGS,
  dynamoDbLocalCommandPattern,
  startDynamoDbLocal,
} from '#lib/local/dynamodb-local';

const XML_CONFIGURATION = 'org.eclipse.jetty.xml.XmlConfiguration';

/** The Java processes of DynamoDB Local on `port` (not their watchdogs: `sh -c ... java ...`). */
const javaOn = (port: number): string[] =>
  (spawnSync('pgrep', ['-af', dynamoDbLocalCommandPattern(port)], { encoding: 'utf8' }).stdout ?? '')
    .split('\n')
    .filter((line) => /^\d+ java /.test(line));

test('on a port another DynamoDB Local holds, the start fails as a busy port and leaves no Java', async () => {
  // This worker's DynamoDB Local (test/support/ddb-global-setup.ts).
  const taken = Number(new URL(process.env.AWS_ENDPOINT_URL_DYNAMODB!).port);
  expect(javaOn(taken)).toHaveLength(1);
  await expect(startDynamoDbLocal({ port: taken })).rejects.toMatchObject({
    code: 'EADDRINUSE',
    port: taken,
    message: `listen EADDRINUSE: address already in use 127.0.0.1:${taken}`,
  });
  expect(javaOn(taken)).toHaveLength(1);
}, 90_000);

/** The major version of the Java on the PATH (`java -version`: `... version "17.0.15" ...`, `"1.8.0_412"`). */
function javaMajor(): number {
  const said = spawnSync('java', ['-version'], { encoding: 'utf8' }).stderr;
  const [first, second] = (/version "(\d+)(?:\.(\d+))?/.exec(said) ?? []).slice(1).map(Number);
  return first === 1 ? second! : first!;
}

test('DynamoDB Local starts from the class-data sharing archive the global setup recorded (Java 13+)', () => {
  const args = classPathArgs();
  // Java 11 and 12 record no archive (no -XX:ArchiveClassesAtExit): the jar's own class path.
  if (javaMajor() < 13) {
    expect(args).toEqual(['-cp', 'DynamoDBLocal.jar']);
    return;
  }
  expect(args[0]).toMatch(/^-XX:SharedArchiveFile=.*classes\.jsa$/);
  // -Xshare:on fails where the archive cannot be mapped (another Java, another class path).
  const run = spawnSync(
    'java',
    // Jetty's XmlConfiguration without arguments: it loads, says how to use it and ends.
    [...DYNAMODB_LOCAL_JVM_FLAGS, '-Xshare:on', '-Xlog:class+load=info', ...args, XML_CONFIGURATION],
    { cwd: JAR_DIR, encoding: 'utf8' },
  );
  expect(run.stdout).toMatch(
    new RegExp(`${XML_CONFIGURATION.replaceAll('.', '\\.')} source: shared objects file \\(top\\)`),
  );
});

test('without Java on the PATH, the start fails saying that Java is required', () => {
  // In a process of its own whose PATH has the watchdog's shell, and no `java`.
  const bin = mkdtempSync(join(tmpdir(), 'no-java-'));
  try {
    for (const tool of ['sh']) {
      const found = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
      symlinkSync(found, join(bin, tool));
    }
    const start =
      "require('#lib/local/dynamodb-local').startDynamoDbLocal()" +
      '.then(() => console.log("started"), (error) => console.log(error.message))';
    const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', start], {
      encoding: 'utf8',
      env: { ...process.env, PATH: bin },
    });
    expect(run.stdout.trim()).toBe(
      'Java is required for DynamoDB Local: install Java 11 or newer (e.g. `apt-get install openjdk-17-jre-headless`)',
    );
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
});

test('with a data directory, a table outlives the process', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ddb-local-disk-'));
  const clientOf = (endpoint: string) =>
    new DynamoDBClient({
      endpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
  try {
    const first = await startDynamoDbLocal({ dataDir });
    const client = clientOf(first.endpoint);
    await client.send(
      new CreateTableCommand({
        TableName: 'outlives-the-process',
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    client.destroy();
    await first.stop();
    expect(existsSync(join(dataDir, 'shared-local-instance.db'))).toBe(true);

    const second = await startDynamoDbLocal({ dataDir });
    const again = clientOf(second.endpoint);
    try {
      expect((await again.send(new ListTablesCommand({}))).TableNames).toEqual(['outlives-the-process']);
    } finally {
      again.destroy();
      await second.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 120_000);
