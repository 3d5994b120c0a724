/**
 * A start whose first StartExecution went through, but whose answer was lost (a 5xx, or a
 * dropped connection), and whose SDK retries were then refused with a 4xx (throttled: the busy
 * slot's StartExecution bucket): the SDK's last error is a client fault, so core/processing.ts
 * `surelyNotStarted` takes the start for one that surely started nothing and releases the claim.
 * But the first attempt started the execution: it runs and charges while the group reads
 * `pending` again (editable, deletable), and the next starter claims it again and starts a second
 * execution of the same group.
 *
 * Step Functions is a stand-in HTTP endpoint reached through the real SFN client (its real
 * retries): the first StartExecution of a name starts it and answers 500; every later call answers
 * 400 ThrottlingException.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { newGroup, type Group } from '#domain/groups';
import { reloadConfigForTests } from '#shared/config';
import { newId } from '#shared/ids';
import { DynamoClaimStore } from '#store/claims';
import { DynamoGroupStore } from '#store/groups';
import { createTestTable, type TestTable } from '#support/ddb';

const MACHINE = 'arn:aws:states:us-east-1:000000000000:stateMachine:test';
const MERCHANT = '32350000001';

/** Executions the stand-in started, by name; and every StartExecution call it received. */
const started = new Set<string>();
const calls: string[] = [];

let server: Server;
let table: TestTable;
let groups: DynamoGroupStore;
let claims: DynamoClaimStore;
let startProcessing: typeof import('#core/processing').startProcessing;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as { name?: string };
      const name = String(body.name);
      calls.push(name);
      const reply = (status: number, payload: object) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify(payload));
      };
      if (!started.has(name)) {
        // The execution starts; its answer is lost (a 5xx after the start).
        started.add(name);
        return reply(500, { __type: 'InternalFailure', message: 'internal failure' });
      }
      // The SDK's retries: throttled (a 4xx, a client fault).
      return reply(400, { __type: 'ThrottlingException', message: 'Rate exceeded' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  table = await createTestTable();
  Object.assign(process.env, {
    TABLE_NAME: table.tableName,
    STATE_MACHINE_ARN: MACHINE,
    AWS_ENDPOINT_URL_SFN: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  });
  reloadConfigForTests();
  groups = new DynamoGroupStore(table.db, table.tableName);
  claims = new DynamoClaimStore(table.db, table.tableName);
  ({ startProcessing } = await import('#core/processing'));
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await table.drop();
});

async function aPendingGroup(): Promise<Group> {
  const now = new Date();
  const slot = { scheduleDate: now.toISOString().slice(0, 10), scheduleHour: now.getUTCHours() };
  const group = newGroup({ servicePayId: MERCHANT, ...slot, locationId: 1 }, MERCHANT, newId(), now);
  await groups.createGroup(group, []);
  return group;
}

test('defect: a start whose first attempt started the execution, then throttled on the SDK retries, released the claim: the running execution is orphaned and a second start runs a second execution of the group', async () => {
  const group = await aPendingGroup();
  const id = group.paymentGroupId;
  const first = await startProcessing(group, new Date());
  // The stand-in started attempt 1's execution, and the SDK retried the same call after it.
  expect(started.has(`pg-${id}-1`)).toBe(true);
  expect(calls.filter((n) => n === `pg-${id}-1`).length).toBeGreaterThan(1);
  // An execution of attempt 1 runs: the group must stay claimed by it (not pending again).
  expect(await claims.read(id)).toMatchObject({ status: 'processing', executionName: `pg-${id}-1` });
  expect(first).not.toEqual({ paymentGroupId: id, error: 'processing could not be started; try again' });

  // What the release lets happen: the next starter (the due start a minute later) claims the
  // group again and starts a second execution while the first runs.
  const read = (await claims.read(id))!;
  await startProcessing(read, new Date());
  expect([...started].filter((n) => n.startsWith(`pg-${id}-`))).toEqual([`pg-${id}-1`]);
}, 60_000);

test('defect: the same for a retry round: its claim is released while the round it started runs, and the next due start runs the round a second time', async () => {
  const { startDueRetryRounds } = await import('#core/retry-rounds');
  const group = await aPendingGroup();
  const id = group.paymentGroupId;
  // Processed, a retry scheduled at the current slot: the group waits for its round.
  const now = new Date();
  const claim = await claims.claim(group, now);
  if (!claim.claimed) throw new Error('not claimed');
  started.add(claim.executionName);
  const slot = now.toISOString().slice(0, 13);
  await claims.complete(id, {
    approved: 0,
    partial: 0,
    declined: 1,
    failed: 0,
    skipped: 0,
    approvedCents: 0,
    settlesAt: null,
    retriesScheduled: 1,
    nextRetrySlot: slot,
    processedAt: now.toISOString(),
  });
  const waiting = (await claims.read(id))!;
  expect(waiting).toMatchObject({ awaitingRetry: true, retrySlot: slot });

  await startDueRetryRounds([waiting], slot, new Date());
  // The stand-in started the round's execution (attempt 2), and the SDK retried the call after it.
  expect(started.has(`pg-${id}-2`)).toBe(true);
  expect(calls.filter((n) => n === `pg-${id}-2`).length).toBeGreaterThan(1);
  // That round runs: the group must stay claimed by it, not wait for a round again.
  expect(await claims.read(id)).toMatchObject({ executionName: `pg-${id}-2` });
  expect(await claims.read(id)).not.toHaveProperty('awaitingRetry');

  // The next due start claims the round again and starts a second execution of it.
  await startDueRetryRounds([(await claims.read(id))!], slot, new Date());
  expect([...started].filter((n) => n.startsWith(`pg-${id}-`))).toEqual([`pg-${id}-1`, `pg-${id}-2`]);
}, 60_000);
