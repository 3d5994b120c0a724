/**
 * Helpers for the processing end-to-end tests: triggering, the hourly event, waiting for groups,
 * and reading the local table (the sandbox processor's ledger and the stored transactions).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { baseUrl, call, MID } from '#support/api';
import { groupBody } from '#support/fixtures/e2e-resources';
import { sleep } from '#shared/clock';

export type Json = Record<string, any>;

type Tuple<N extends number, T extends unknown[] = []> = T['length'] extends N ? T : Tuple<N, [...T, string]>;

/** The paymentIds of a created group, in order (exactly `n` of them). */
export function paymentIdsOf<N extends number>(group: Json, n: N): Tuple<N> {
  const ids = (group.payments as Json[]).map((p) => p.paymentId as string);
  if (ids.length !== n) throw new Error(`expected ${n} payments, got ${ids.length}`);
  return ids as Tuple<N>;
}

export const merchantPath = (mid = MID) => `/rest/merchants/${mid}`;
export const groupPath = (groupId: string, mid = MID) => `${merchantPath(mid)}/groups/${groupId}`;

/** Ids of the groups this test file created (each test file has its own module instance). */
export const createdGroupIds: string[] = [];

/** Creates a group (201 expected) and returns it with its payments. */
export async function createGroup(overrides: Record<string, unknown> = {}): Promise<Json> {
  const res = await call('POST', `${merchantPath()}/groups`, groupBody(overrides));
  if (res.status !== 201) throw new Error(`group create failed: ${res.status} ${res.text}`);
  createdGroupIds.push(res.body.paymentGroupId);
  return res.body;
}

export const trigger = (groupId: string, mid = MID) =>
  call<Json>('POST', `${groupPath(groupId, mid)}/process-payments`);

export const getGroup = async (groupId: string): Promise<Json> =>
  (await call<Json>('GET', groupPath(groupId))).body;

export async function payments(groupId: string): Promise<Json[]> {
  const res = await call<Json[]>('GET', `${groupPath(groupId)}/payments`);
  if (res.status !== 200) throw new Error(`list payments failed: ${res.status} ${res.text}`);
  return res.body;
}

export async function paymentsById(groupId: string): Promise<Map<string, Json>> {
  return new Map((await payments(groupId)).map((p) => [p.paymentId as string, p]));
}

/** Polls the group until it has `status` (bounded); returns it. */
export async function waitForStatus(groupId: string, status: string, timeoutMs = 20_000): Promise<Json> {
  const until = Date.now() + timeoutMs;
  let group: Json = {};
  while (Date.now() < until) {
    group = await getGroup(groupId);
    if (group.status === status) return group;
    await sleep(150);
  }
  throw new Error(
    `group ${groupId} did not become ${status} in ${timeoutMs} ms (last: ${JSON.stringify(group)})`,
  );
}

/**
 * Jest's bound on a test that waits for a large group with waitForStatusWhileAnswered: far beyond
 * a loaded machine's pace (a quiet 2-core machine answers about 90 payments a second), so that what
 * fails such a test is a stall, which that wait reports, not the machine's speed.
 */
export const WHILE_ANSWERED_TIMEOUT_MS = 600_000;

/**
 * Polls the group until it has `status`, for as long as its payments keep being answered: it fails
 * when no further payment has been answered for `stallMs` (a group left processing, the defect the
 * callers look for), not after a fixed time, which a busy machine outlasts with a healthy group.
 * The answered payments are counted every few seconds (a page of the group's payments); Jest's
 * timeout of the test bounds the rest.
 */
export async function waitForStatusWhileAnswered(
  groupId: string,
  status: string,
  stallMs = 60_000,
): Promise<Json> {
  let answered = -1;
  let movedAt = Date.now();
  let countedAt = 0;
  for (;;) {
    const group = await getGroup(groupId);
    if (group.status === status) return group;
    if (Date.now() - countedAt >= 3_000) {
      countedAt = Date.now();
      const now = (await payments(groupId)).filter((p) => p.authResponse != null).length;
      if (now > answered) [answered, movedAt] = [now, Date.now()];
      else if (Date.now() - movedAt > stallMs)
        throw new Error(
          `group ${groupId} did not become ${status}: no payment answered for ${stallMs} ms, ${answered} answered (last: ${JSON.stringify(group)})`,
        );
    }
    await sleep(150);
  }
}

/** Delivers the hourly scheduled event the EventBridge rule would, with this time. */
export async function hourlyTick(time: Date | string): Promise<Json> {
  const res = await fetch(`${baseUrl()}/__local/events/hourly`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ time: typeof time === 'string' ? time : time.toISOString() }),
  });
  if (res.status !== 200) throw new Error(`hourly tick failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as Json;
}

/** Delivers one run of the due sweep (every minute in the cloud) with this time: its answer. */
export async function dueSweep(time: Date | string): Promise<Json> {
  const res = await fetch(`${baseUrl()}/__local/events/due`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ time: typeof time === 'string' ? time : time.toISOString() }),
  });
  if (res.status !== 200) throw new Error(`due sweep failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as Json;
}

export async function crashAfterSale(paymentIds: string[]): Promise<void> {
  const res = await fetch(`${baseUrl()}/__local/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ crashAfterSale: paymentIds }),
  });
  if (res.status !== 200) throw new Error(`faults failed: ${res.status} ${await res.text()}`);
}

interface LocalExecutionView {
  executionArn: string;
  name: string;
  status: string;
  stats: { historyEvents: number; maxPayloadBytes: number; retries: number };
  [key: string]: unknown;
}

export async function allExecutions(): Promise<LocalExecutionView[]> {
  const res = await fetch(`${baseUrl()}/__local/executions`);
  if (res.status !== 200) throw new Error(`executions failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as LocalExecutionView[];
}

/** The group of an execution name (`pg-<groupId>-<attempt>`: one name per processing attempt). */
const groupOfExecution = (name: string): string | undefined => /^pg-(.+)-\d+$/.exec(name)?.[1];

/**
 * The executions of `groupIds` (a test file's groups): once none is RUNNING (bounded: a processed
 * group's execution may still wait for its settlement cut-off), every one SUCCEEDED, at most one
 * per group, and at least `minimum` of them.
 */
export async function expectExecutionsOfGroupsSucceeded(groupIds: string[], minimum: number): Promise<void> {
  const groups = new Set(groupIds);
  let mine: LocalExecutionView[] = [];
  for (let i = 0; i < 100; i++) {
    mine = (await allExecutions()).filter((e) => groups.has(groupOfExecution(e.name) ?? ''));
    if (mine.every((e) => e.status !== 'RUNNING')) break;
    await sleep(200);
  }
  expect(mine.length).toBeGreaterThanOrEqual(minimum);
  expect(new Set(mine.map((e) => groupOfExecution(e.name))).size).toBe(mine.length);
  expect(mine.filter((e) => e.status !== 'SUCCEEDED')).toEqual([]);
}

export async function executionsNamed(name: string): Promise<LocalExecutionView[]> {
  return (await allExecutions()).filter((e) => e.name === name);
}

/** The runtime's table, read directly (DynamoDB Local). */
let table: { client: DynamoDBDocumentClient; tableName: string } | undefined;
export function localTable() {
  if (table) return table;
  const runtime = JSON.parse(readFileSync(join(process.env.E2E_DATA_DIR!, 'runtime.json'), 'utf8'));
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: runtime.dynamodbEndpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
    }),
  );
  table = { client, tableName: runtime.tableName as string };
  return table;
}

export function closeLocalTable(): void {
  table?.client.destroy();
  table = undefined;
}

/** The sandbox processor's ledger item of a key (`payment:<paymentId>`, `void:<txnId>`, ...). */
export async function ledger(kind: 'SALE' | 'VOID' | 'REFUND', key: string): Promise<Json | undefined> {
  const { client, tableName } = localTable();
  const { Item } = await client.send(
    new GetCommand({
      TableName: tableName,
      Key: { pk: `SANDBOX#${kind}#${key}`, sk: 'LEDGER' },
      ConsistentRead: true,
    }),
  );
  return Item;
}

/** Every item of the table matching a filter (a full scan: the in-memory table is small). */
export async function scan(
  filter: string,
  values: Record<string, unknown>,
  names?: Record<string, string>,
): Promise<Json[]> {
  const { client, tableName } = localTable();
  const items: Json[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: filter,
        ExpressionAttributeValues: values,
        ...(names && { ExpressionAttributeNames: names }),
        ExclusiveStartKey,
        ConsistentRead: true,
      }),
    );
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/**
 * Stored transactions (sales) that charged each of these scheduled payments, by payment: one scan
 * for all of them (a scan reads the whole shared table, whatever its filter).
 */
export async function transactionsOfPayments(paymentIds: readonly string[]): Promise<Map<string, Json[]>> {
  const wanted = new Set(paymentIds);
  const found = new Map(paymentIds.map((id): [string, Json[]] => [id, []]));
  for (const t of await scan('#e = :t', { ':t': 'transaction' }, { '#e': 'entity' }))
    if (wanted.has(t.paymentId as string)) found.get(t.paymentId as string)!.push(t);
  return found;
}

/** Sandbox ledger sale items recorded for this scheduled payment. */
export const saleLedgerItemsOfPayment = (paymentId: string) =>
  scan(
    '#e = :e AND #k = :k AND #key = :key',
    { ':e': 'sandbox-ledger', ':k': 'SALE', ':key': `payment:${paymentId}` },
    { '#e': 'entity', '#k': 'kind', '#key': 'idempotencyKey' },
  );

/** `yyyy-MM-dd` and hour of a time (UTC). */
export const slotOfTime = (t: Date) => ({
  scheduleDate: t.toISOString().slice(0, 10),
  scheduleHour: t.getUTCHours(),
});

/** A future date no other e2e file uses (they stay within a few weeks). */
export const farFutureDate = (daysAhead: number) =>
  new Date(Date.now() + daysAhead * 86_400_000).toISOString().slice(0, 10);
