/**
 * Helpers for the e-mail end-to-end tests: the runtime's local SES store (shared by every e-mail
 * test file, so e-mails are always picked by recipient), its outbox items in the local table, and
 * the SES fault switch.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { baseUrl } from '#support/api';
import { sleep } from '#shared/clock';
import { mapLimit } from '#shared/concurrency';

export interface SesEmail {
  messageId: string;
  from: string;
  destination: { to: string[]; cc?: string[]; bcc?: string[] };
  subject: string;
  body: { text?: string; html?: string };
  at: number;
}

export type Json = Record<string, any>;
type OutboxRecord = Json;

/** A recipient address no other test (or test file) uses. */
export const uniqueAddress = (tag: string) => `${tag}-${randomUUID()}@example.com`;

const sesUrl = (): string => {
  const url = process.env.E2E_SES_URL;
  if (!url) throw new Error('E2E_SES_URL is not set: the e2e global setup did not run');
  return url;
};

/** Every e-mail the local SES has accepted so far (all test files). */
export async function sesEmails(): Promise<SesEmail[]> {
  const res = await fetch(`${sesUrl()}/store`);
  if (res.status !== 200) throw new Error(`SES store: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { emails: SesEmail[] }).emails;
}

const isTo = (address: string) => (email: SesEmail) =>
  email.destination.to.some((to) => to.toLowerCase() === address.toLowerCase());

export async function emailsTo(address: string): Promise<SesEmail[]> {
  return (await sesEmails()).filter(isTo(address));
}

/** Polls until each address has at least `count` e-mails (bounded); returns them by address. */
export async function waitForEmails(
  addresses: string[],
  count = 1,
  timeoutMs = 30_000,
): Promise<Map<string, SesEmail[]>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const all = await sesEmails();
    const byAddress = new Map(addresses.map((a) => [a, all.filter(isTo(a))]));
    const missing = [...byAddress].filter(([, emails]) => emails.length < count).map(([a]) => a);
    if (missing.length === 0) return byAddress;
    if (Date.now() > until) {
      throw new Error(`no ${count} e-mail(s) within ${timeoutMs} ms to: ${missing.join(', ')}`);
    }
    await sleep(250);
  }
}

/** POST /__local/faults {"sesFailures": n}: the next n sends (by any sender) fail as throttled. */
export async function setSesFailures(n: number): Promise<void> {
  await setSesFaults({ sesFailures: n });
}

/** POST /__local/faults with SES faults (sesFailures, sesRefusals, sesRateLimit); the switch's state. */
export async function setSesFaults(faults: Record<string, number>): Promise<Json> {
  const res = await fetch(`${baseUrl()}/__local/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(faults),
  });
  if (res.status !== 200) throw new Error(`faults: ${res.status} ${await res.text()}`);
  return (await res.json()) as Json;
}

/** The runtime's table, read directly (DynamoDB Local). */
let table: { raw: DynamoDBClient; doc: DynamoDBDocumentClient; tableName: string } | undefined;
export function localTable() {
  if (table) return table;
  const runtime = JSON.parse(readFileSync(join(process.env.E2E_DATA_DIR!, 'runtime.json'), 'utf8'));
  const raw = new DynamoDBClient({
    endpoint: runtime.dynamodbEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  table = { raw, doc: DynamoDBDocumentClient.from(raw), tableName: runtime.tableName as string };
  return table;
}

export function closeLocalTable(): void {
  table?.raw.destroy();
  table = undefined;
}

const outboxKey = (outboxId: string) => ({ pk: `OUTBOX#${outboxId}`, sk: 'OUTBOX' });

/** The outbox item `notice:<paymentId>` / `receipt:<paymentId>` as stored, or undefined. */
export async function outboxItem(outboxId: string): Promise<OutboxRecord | undefined> {
  const { doc, tableName } = localTable();
  const read = async () =>
    (await doc.send(new GetCommand({ TableName: tableName, Key: outboxKey(outboxId), ConsistentRead: true })))
      .Item;
  // SES holds the e-mail a moment before the notifier records it sent: a `sending` item is read
  // again until it settles (bounded; issue 25, a CI run read it in between).
  let item = await read();
  for (let i = 0; i < 50 && item?.status === 'sending'; i++) {
    await new Promise((ok) => setTimeout(ok, 200));
    item = await read();
  }
  return item;
}

export async function putOutboxItem(item: OutboxRecord): Promise<void> {
  const { doc, tableName } = localTable();
  await doc.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...item, ...outboxKey(item.outboxId as string) },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/** Polls the outbox item until it has one of `statuses` (bounded); returns it. */
export async function waitForOutbox(
  outboxId: string,
  statuses: string[],
  timeoutMs = 30_000,
): Promise<OutboxRecord> {
  const until = Date.now() + timeoutMs;
  let item: OutboxRecord | undefined;
  for (;;) {
    item = await outboxItem(outboxId);
    if (item && statuses.includes(item.status as string)) return item;
    if (Date.now() > until) {
      throw new Error(
        `outbox ${outboxId} not ${statuses.join('|')} in ${timeoutMs} ms: ${JSON.stringify(item)}`,
      );
    }
    await sleep(200);
  }
}

/**
 * Waits until the e-mail pipeline has done all it could for these outbox items, the positive
 * marker after which "nothing more was sent" means nothing more ever will be: each item is settled
 * (sent or failed), the runtime's stream reader has handed on every record written before this
 * call (a record delivered again included: its retries come before it reads on), and its queue
 * holds no message naming them (a redelivery or a message put back included). A second e-mail
 * for one of them would be in SES by then (the notifier sends before its message is deleted).
 */
export async function waitForDrained(outboxIds: string[], timeoutMs = 30_000): Promise<void> {
  const since = Date.now();
  const until = since + timeoutMs;
  const ids = new Set(outboxIds);
  // Sent and failed are final: an item once read so is not read again.
  let unsettled = [...ids];
  for (;;) {
    const items = await mapLimit(unsettled, 20, (id) => outboxItem(id));
    unsettled = unsettled.filter((_id, i) => !['sent', 'failed'].includes(items[i]?.status as string));
    const res = await fetch(`${baseUrl()}/__local/notifications`);
    if (res.status !== 200) throw new Error(`notifications state: ${res.status} ${await res.text()}`);
    const state = (await res.json()) as { streamCaughtUpAt: string | null; queued: { outboxId?: string }[] };
    const queued = state.queued.filter((m) => ids.has(m.outboxId as string));
    const caughtUp = state.streamCaughtUpAt !== null && Date.parse(state.streamCaughtUpAt) >= since;
    if (unsettled.length === 0 && queued.length === 0 && caughtUp) return;
    if (Date.now() > until) {
      throw new Error(
        `e-mail pipeline not drained in ${timeoutMs} ms: unsettled ${JSON.stringify(unsettled)}, ` +
          `queued ${JSON.stringify(queued)}, stream caught up at ${state.streamCaughtUpAt}`,
      );
    }
    await sleep(100);
  }
}

/** Every text of an e-mail in one string: subject, text and HTML bodies. */
export const allTextOf = (email: SesEmail) =>
  [email.subject, email.body.text ?? '', email.body.html ?? ''].join('\n');
