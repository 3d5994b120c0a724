/**
 * The operator's admin CLI (bin/admin.ts) against docs/operating.md, run for real against the
 * tier's DynamoDB Local (as `--local`, through a runtime.json naming the test's table), or its store
 * functions directly where a fault has to be injected between two writes.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { tableName } from '#contract/table';
import { ensureTable } from '#lib/local/table';
import { localToolCommand } from '#lib/local/runtime-bundle';
import type { OutboxItem } from '#domain/notifications';
import { newId } from '#shared/ids';
import { keys } from '#store/keys';
import { MerchantAdmin } from '#store/merchant-admin';
import { OutboxStore, requeue } from '#store/outbox';
import { localAdminCli, type LocalAdminCli } from '#support/admin-cli';
import { createTestTable, type TestTable } from '#support/ddb';
import { receiptOutboxItem } from '#support/fixtures/index';

const MERCHANT = { merchantId: '32350000071', shortId: '23500071', name: 'Reviewed Elementary' };
const OTHER = { merchantId: '32350000072', shortId: '23500072', name: 'Reviewed Middle' };

let table: TestTable;
let admin: LocalAdminCli;
beforeAll(async () => {
  table = await createTestTable();
  admin = localAdminCli(table.tableName, 'sps-admin-review-');
  const registry = new MerchantAdmin(table.db, table.tableName);
  await registry.register(MERCHANT);
  await registry.register(OTHER);
});
afterAll(async () => {
  admin.remove();
  await table.drop();
});

/** What a failed run of the CLI printed and how it exited. */
async function failure(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await admin(...args);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

const failedItem = (outboxId: string): OutboxItem => receiptOutboxItem(outboxId, MERCHANT.name);

test('defect: resend-notification interrupted between its delete and its put loses the e-mail for good (not one transaction)', async () => {
  const outbox = new OutboxStore(table.db, table.tableName);
  const outboxId = `receipt:${newId()}`;
  expect(await outbox.putOnce(failedItem(outboxId))).toBe(true);
  expect('item' in (await outbox.claim(outboxId, new Date()))).toBe(true);
  await outbox.markFailed(outboxId, 'MessageRejected: Email address is not verified');

  // The operator's run dies after its first write (the item deleted), before the item is written
  // anew (a dropped connection, Ctrl-C, expired credentials): its second write is refused.
  let writes = 0;
  const interrupted = {
    send: (command: unknown) =>
      command instanceof TransactWriteCommand && ++writes === 2
        ? Promise.reject(new Error('socket hang up'))
        : table.db.send(command as Parameters<DynamoDBDocumentClient['send']>[0]),
  } as unknown as DynamoDBDocumentClient;
  await expect(requeue(interrupted, table.tableName, outboxId)).rejects.toThrow('socket hang up');
  expect(await outbox.get(outboxId)).toBeUndefined();

  // The runbook says to run the command again once the cause is fixed: the item must still be there
  // (failed, or pending), never gone with the e-mail it stood for.
  const again = await failure('resend-notification', '--outbox', outboxId);
  expect(again.stderr).not.toContain('not found');
  expect(again.stdout).toContain(`queued ${outboxId} (receipt to payor@example.com) again`);
  expect(await outbox.get(outboxId)).toMatchObject({ status: 'pending', attempts: 0 });
  // Done: a third run requeues the pending item as any other (its record of the requeue is gone).
  expect((await failure('resend-notification', '--outbox', outboxId)).code).toBe(0);
}, 60_000);

test('defect: `admin audit --until <not a time>` fails with "Invalid time value", not naming --until', async () => {
  const run = await failure('audit', '--until', 'yesterday');
  expect(run.code).toBe(1);
  // --since is checked and named (`--since x is not an ISO-8601 time`); --until must be too.
  expect(run.stderr).toContain('--until yesterday is not an ISO-8601 time');
}, 60_000);

test('defect: `admin reconcile --stale-minutes <not a number>` fails with "Invalid time value", not naming --stale-minutes', async () => {
  const run = await failure('reconcile', '--stale-minutes', 'thirty');
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('--stale-minutes');
}, 60_000);

/** A live secret key's shape (not a real key): what going-live's step 1 puts in Secrets Manager. */
const SECRET_KEY = 'sk_live_51Qx7TestOnlyNotARealKey0000000000000000000000000000000000aa';

test('defect: `admin merchant --mid M --stripe-account <a secret key>` refuses it by printing the whole key back', async () => {
  // Going live puts the key in Secrets Manager (step 1), then maps each merchant to its acct_ (step
  // 2): a key pasted in the account's place is refused, and the tools never print a secret.
  const run = await failure('merchant', '--mid', MERCHANT.merchantId, '--stripe-account', SECRET_KEY);
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('stripe');
  expect(`${run.stdout}${run.stderr}`).not.toContain(SECRET_KEY);
}, 60_000);

test('defect: `admin merchant --stripe-account <a secret key>` (the way back) prints the whole key in its "no merchant\'s account" error', async () => {
  const run = await failure('merchant', '--stripe-account', SECRET_KEY);
  expect(run.code).toBe(1);
  expect(`${run.stdout}${run.stderr}`).not.toContain(SECRET_KEY);
}, 60_000);

test('defect: `admin revoke` of a grant the client never held says "revoked" and writes a revoke audit record', async () => {
  // A typo in the client id: no such grant exists, so nothing is revoked (the real client keeps
  // its access), yet the operator is told it was and the audit trail records a revocation.
  const client = 'review-client-typo';
  const registry = new MerchantAdmin(table.db, table.tableName);
  expect(await registry.grantsOf(client)).toEqual([]);
  const since = new Date().toISOString();
  const run = await failure('revoke', '--client', client, '--mid', MERCHANT.merchantId);

  const month = new Date().toISOString().slice(0, 7);
  const { Items = [] } = await table.db.send(
    new QueryCommand({
      TableName: table.tableName,
      KeyConditionExpression: 'pk = :pk AND sk >= :since',
      ExpressionAttributeValues: { ':pk': keys.auditMonth(month), ':since': since },
      ConsistentRead: true,
    }),
  );
  const records = Items.filter((i) => i.clientId === client);
  // Nothing changed, so no audit record of a change, and no "revoked" on stdout: an error naming it.
  expect(records).toEqual([]);
  expect(run.stdout).not.toMatch(/^revoked /);
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(`${client} holds no grant of ${MERCHANT.merchantId}`);
}, 60_000);

test('defect: `admin register-merchant` with an 8-digit form another merchant holds fails with DynamoDB\'s "Transaction cancelled" text, not naming --mid8 or its owner', async () => {
  const run = await failure(
    'register-merchant',
    '--mid',
    '32350000073',
    '--mid8',
    OTHER.shortId,
    '--name',
    'Taken Form Academy',
  );
  expect(run.code).toBe(1);
  expect(run.stderr).not.toMatch(/Transaction cancelled/i);
  expect(run.stderr).toContain(`the 8-digit MID ${OTHER.shortId} is merchant ${OTHER.merchantId}'s`);
}, 60_000);

describe('account-updater --stage', () => {
  // A stage's table, as `--stage dev` names it, in the tier's DynamoDB Local (the operator's AWS
  // credentials and region, here DynamoDB Local's endpoint).
  const stageTable = tableName('dev');
  const client = new DynamoDBClient({});
  const db = DynamoDBDocumentClient.from(client);
  let lambda: Server;
  let invocations: string[];
  beforeAll(async () => {
    await ensureTable(client, stageTable, { stream: false });
    invocations = [];
    // The Lambda API the operator's credentials reach (AWS_ENDPOINT_URL_LAMBDA): records each Invoke.
    lambda = createServer((req, res) => {
      invocations.push(decodeURIComponent(req.url ?? ''));
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            since: '',
            until: '',
            listed: 0,
            applied: 0,
            appliedBefore: 0,
            noMethod: 0,
            left: 0,
            late: 0,
          }),
        );
      });
    });
    await new Promise<void>((done) => lambda.listen(0, '127.0.0.1', done));
  });
  afterAll(async () => {
    lambda.closeAllConnections();
    await new Promise((done) => lambda.close(done));
    await client.send(new DeleteTableCommand({ TableName: stageTable }));
    client.destroy();
  });

  test("defect: `admin account-updater --stage` runs the job here with the sandbox processor (the stage's PROCESSOR/STRIPE_* are the functions' own) and moves the stage's cursor to now", async () => {
    // The stage's job last ran two days ago. On a Stripe stage (prod goes live with Stripe) its
    // updates are listed from Stripe with the stage's key, which the operator's shell does not
    // have: run here, the job lists the sandbox's ledger instead, applies nothing, and still moves
    // the stage's cursor, so the next daily run starts an hour before now and never lists the
    // updates in between. reconcile --stage invokes the stage's own function for this reason.
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString();
    await db.send(
      new PutCommand({
        TableName: stageTable,
        Item: { pk: 'ACCOUNTUPDATER', sk: 'CURSOR', entity: 'account-updater-cursor', until: twoDaysAgo },
      }),
    );
    const [command, commandArgs] = localToolCommand('admin', ['account-updater', '--stage', 'dev', '--json']);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_ENDPOINT_URL_LAMBDA: `http://127.0.0.1:${(lambda.address() as AddressInfo).port}`,
      DATA_DIR: tmpdir(),
    };
    for (const name of ['PROCESSOR', 'STRIPE_MODE', 'STRIPE_SECRET_KEY', 'STRIPE_API', 'TABLE_NAME'])
      delete env[name];
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((done) =>
      execFile(command, commandArgs, { env, timeout: 120_000 }, (error, stdout, stderr) =>
        done({ code: error ? Number(error.code) : 0, stdout, stderr }),
      ),
    );
    const { Item } = await db.send(
      new GetCommand({
        TableName: stageTable,
        Key: { pk: 'ACCOUNTUPDATER', sk: 'CURSOR' },
        ConsistentRead: true,
      }),
    );
    // Either the stage's function did the run (its cursor is the function's to move), or nothing
    // moved it: a run that never asked the stage's processor must not advance the stage's cursor.
    expect({ code: run.code, cursor: Item?.until as string }).toEqual({ code: 0, cursor: twoDaysAgo });
    expect(invocations.some((url) => url.includes('account-updates'))).toBe(true);
  }, 150_000);
});
