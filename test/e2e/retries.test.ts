/**
 * Issue 19, "What it must show": retries of declined scheduled payments (DESIGN section 5), on a
 * runtime of this file's own (its ticks run hours ahead, which must not process the shared
 * runtime's groups; and it is killed once). A group with the section-5 sandbox cards is processed,
 * then its retry slot's hourly event runs: the recovering card approves on attempt 2 under a new
 * transaction id, the category-1 and advice-code-03 cards are never retried, the always-declining
 * card ends `exhausted` after maxRetries, a repeated tick charges nothing again, a payment deleted
 * before its retry is not charged; a SIGKILL during a retry slot charges nothing twice; and the
 * reconciliation finds no difference.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CrashClient, CRASH_MID as MID, type Reply } from '#support/crash-client';
import { readTable, reconcileLocal } from '#support/crash-oracle';
import { CrashRuntime } from '#support/crash-runtime';
import { cardInput } from '#support/fixtures/inputs';
import { sleep } from '#shared/clock';

type Json = Record<string, any>;

const runtime = new CrashRuntime();
const since = new Date(Date.now() - 60_000).toISOString();
let client: CrashClient;

beforeAll(async () => {
  await runtime.start();
  client = new CrashClient(runtime.url, () => Date.now() + 60_000);
}, 60_000);

afterAll(async () => {
  await runtime.stop();
}, 60_000);

/** Payor and transaction paths are under /v1 (docs/integrating.md). */
const prefix = (path: string) => (/^\/(payors|transactions|events)/.test(path) ? '/v1' : '');

async function api(method: string, path: string, body?: unknown, status = 200): Promise<Json> {
  const reply: Reply<any> | undefined = await client.call(
    method,
    `${prefix(path)}/rest/merchants/${MID}${path}`,
    body,
  );
  if (reply?.status !== status)
    throw new Error(`${method} ${path}: ${reply?.status} ${reply?.text ?? '(no answer)'}`);
  return reply.body as Json;
}

async function profile(cardNumber: string, accountType = 'VISA', email?: string): Promise<string> {
  const payor = await api(
    'POST',
    '/payors',
    { paymentMethod: cardInput({ cardNumber, accountType }), ...(email !== undefined && { email }) },
    201,
  );
  return `${payor.payorId}/${payor.defaultPaymentMethodId}`;
}

const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

async function processedGroup(payments: Json[], retryPolicy: Json): Promise<Json> {
  const group = await api(
    'POST',
    '/groups',
    { servicePayId: MID, scheduleDate: tomorrow(), scheduleHour: 14, locationId: 42, retryPolicy, payments },
    201,
  );
  expect(group.retryPolicy).toEqual({ intervalHours: 24, ...retryPolicy });
  await api('POST', `/groups/${group.paymentGroupId}/process-payments`);
  await until(async () => (await api('GET', `/groups/${group.paymentGroupId}`)).status === 'processed');
  return group;
}

/** Polls `done` every 200 ms for at most `ms` (then fails). */
async function until(done: () => Promise<boolean>, ms = 30_000, why = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await done()) return;
    await sleep(200);
  }
  throw new Error(`${why} not reached in ${ms} ms`);
}

async function byOrder(groupId: string): Promise<Map<string, Json>> {
  const list = (await api('GET', `/groups/${groupId}/payments`)) as unknown as Json[];
  return new Map(list.map((p) => [p.orderId as string, p]));
}

interface Email {
  subject: string;
  body: { text?: string };
  destination: { to: string[] };
  at: number;
}

/** The e-mails the runtime's local SES accepted for `to`, oldest first, once there are `count` (bounded). */
async function emailsTo(to: string, count: number): Promise<Email[]> {
  const { sesUrl } = JSON.parse(readFileSync(join(runtime.dataDir, 'runtime.json'), 'utf8')) as {
    sesUrl: string;
  };
  let mine: Email[] = [];
  await until(
    async () => {
      const { emails } = (await (await fetch(`${sesUrl}/store`)).json()) as { emails: Email[] };
      mine = emails.filter((e) => e.destination.to.includes(to)).sort((a, b) => a.at - b.at);
      return mine.length >= count;
    },
    30_000,
    `${count} e-mails to ${to}`,
  );
  return mine;
}

const tick = (time: string) => client.local('/__local/events/hourly', { time });

/** The sandbox ledger's sales, by idempotency key. */
async function ledgerSales(): Promise<Map<string, Json>> {
  const table = await readTable(runtime.dataDir);
  return new Map(
    (table.get('sandbox-ledger') ?? [])
      .filter((l) => l.kind === 'SALE')
      .map((l) => [l.idempotencyKey as string, l]),
  );
}

/** Approved, unreversed sandbox charges per scheduled payment. */
function chargesPerPayment(ledger: Map<string, Json>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [key, l] of ledger) {
    if (!key.startsWith('payment:') || l.result?.approved !== true || l.reversed === true) continue;
    const paymentId = key.split(':')[1]!;
    counts.set(paymentId, (counts.get(paymentId) ?? 0) + 1);
  }
  return counts;
}

test('the section-5 sandbox cards through a group and its retry slots', async () => {
  expect(await api('PUT', '/settings', { retryPolicy: { maxRetries: 1 } })).toMatchObject({
    retryPolicy: { maxRetries: 1, intervalHours: 24 },
  });
  const cards: [string, string, string][] = [
    ['recover', '4000000000000341', 'VISA'],
    ['category1', '4000000000000002', 'VISA'],
    ['advice03', '5100000000000412', 'MASTERCARD'],
    ['always', '4000000000009995', 'VISA'],
    ['deleted', '4000000000006975', 'VISA'],
    ['payorGone', '4000000000000119', 'VISA'],
  ];
  // The always-declining card's payor asks for decline e-mails.
  const payorEmail = `declined-${Date.now()}@example.com`;
  const payments = [];
  for (const [orderId, number, type] of cards)
    payments.push({
      orderId,
      amount: 12.5,
      profileId: await profile(number, type, orderId === 'always' ? payorEmail : undefined),
      ...(orderId === 'always' && { sendDeclineNotification: true }),
    });
  // The group's own policy wins over the merchant's.
  const group = await processedGroup(payments, { maxRetries: 2 });
  const gid = group.paymentGroupId as string;

  let p = await byOrder(gid);
  expect(p.get('recover')!.retry).toMatchObject({ status: 'scheduled' });
  expect(p.get('recover')!.authResponse).toMatchObject({ responseCode: '51', declineCategory: '2' });
  expect(p.get('category1')!.retry).toMatchObject({ status: 'not_retried', reason: 'category_1' });
  expect(p.get('advice03')!.retry).toMatchObject({ status: 'not_retried', reason: 'advice_code' });
  expect(p.get('advice03')!.attempts[0]).toMatchObject({ responseCode: '51', merchantAdviceCode: '03' });
  expect(p.get('always')!.retry).toMatchObject({ status: 'scheduled' });
  const slot1 = p.get('recover')!.retry.nextAttemptAt as string;
  const firstAnswer = Date.parse(p.get('recover')!.attempts[0].at);
  expect(Date.parse(slot1) - firstAnswer).toBeGreaterThanOrEqual(24 * 3_600_000);
  expect(Date.parse(slot1) - firstAnswer).toBeLessThan(25 * 3_600_000);
  expect((await api('GET', `/groups/${gid}`)).processingSummary).toMatchObject({ retriesScheduled: 4 });

  // Deleted before its retry: never charged again. So is a payment whose payor (and method) went.
  await api('DELETE', `/groups/${gid}/payments/${p.get('deleted')!.paymentId}`, undefined, 204);
  await api('DELETE', `/payors/${(p.get('payorGone')!.profileId as string).split('/')[0]!}`, undefined, 204);

  // The retry slot's hourly event, repeated until its round is done (as the due sweep repeats it
  // every minute in the cloud: a tick that finds the group still finishing its previous run starts
  // nothing), then once more, which charges nothing.
  await until(
    async () => {
      await tick(slot1);
      const now = await byOrder(gid);
      return (
        now.get('recover')!.attempts.length === 2 &&
        now.get('always')!.attempts.length === 2 &&
        now.get('payorGone')!.retry.status === 'not_retried'
      );
    },
    30_000,
    'the first retry round',
  );
  await until(async () => (await api('GET', `/groups/${gid}`)).processingSummary?.recoveredCount === 1);
  const afterFirst = await ledgerSales();
  await tick(slot1);
  await sleep(1_500);
  expect([...(await ledgerSales()).keys()].sort()).toEqual([...afterFirst.keys()].sort());

  p = await byOrder(gid);
  const recover = p.get('recover')!;
  expect(recover.retry).toEqual({ status: 'succeeded' });
  expect(recover.attempts.map((a: Json) => a.status)).toEqual(['Declined', 'Approved']);
  expect(recover.attempts[1].transactionId).not.toBe(recover.attempts[0].transactionId);
  expect(recover.authResponse).toMatchObject({
    status: 'Approved',
    transactionId: recover.attempts[1].transactionId,
  });
  expect(p.get('category1')!.attempts).toHaveLength(1);
  expect(p.get('advice03')!.attempts).toHaveLength(1);
  expect(p.get('deleted')!.attempts).toHaveLength(1);
  expect(p.get('deleted')!.retry).toMatchObject({ status: 'not_retried', reason: 'payment_deleted' });
  expect(p.get('payorGone')!.attempts).toHaveLength(1);
  expect(p.get('payorGone')!.retry).toMatchObject({ status: 'not_retried', reason: 'method_unusable' });
  const always = p.get('always')!;
  expect(always.retry.status).toBe('scheduled');

  await until(
    async () => {
      await tick(always.retry.nextAttemptAt as string);
      return (await byOrder(gid)).get('always')!.attempts.length === 3;
    },
    30_000,
    'the second retry',
  );
  p = await byOrder(gid);
  expect(p.get('always')!.retry).toMatchObject({ status: 'exhausted', reason: 'policy_exhausted' });
  expect(p.get('recover')!.attempts).toHaveLength(2);

  const summary = (await api('GET', `/groups/${gid}`)).processingSummary;
  expect(summary).toMatchObject({ retriesScheduled: 0, recoveredCount: 1, recoveredAmount: 12.5 });

  // Events per attempt, in the payment's sequence.
  const events = (await api('GET', `/events?objectId=${recover.paymentId as string}`)).items as Json[];
  expect(events.sort((a, b) => a.sequence - b.sequence).map((e) => e.type)).toEqual([
    'payment.declined',
    'payment.retry_scheduled',
    'payment.approved',
  ]);

  // One decline e-mail per declined attempt: two say when it will be tried again, the last that it will not.
  const mails = await emailsTo(payorEmail, 3);
  expect(mails.map((m) => m.subject)).toEqual([
    expect.stringContaining('we will try again'),
    expect.stringContaining('we will try again'),
    expect.not.stringContaining('try again'),
  ]);
  expect(mails[2]!.body.text).toContain('will not be tried again');
  expect(mails[2]!.body.text).toContain('update your payment method');
  expect(mails.map((m) => m.body.text ?? '').join('')).not.toContain('4000000000009995');

  const ledger = await ledgerSales();
  const recoverId = recover.paymentId as string;
  expect(ledger.has(`payment:${recoverId}`)).toBe(true);
  expect(ledger.has(`payment:${recoverId}:2`)).toBe(true);
  expect(ledger.has(`payment:${p.get('deleted')!.paymentId}:2`)).toBe(false);
  expect(ledger.has(`payment:${p.get('payorGone')!.paymentId}:2`)).toBe(false);
  expect(ledger.has(`payment:${p.get('category1')!.paymentId}:2`)).toBe(false);
  expect(ledger.has(`payment:${p.get('advice03')!.paymentId}:2`)).toBe(false);
  expect(ledger.has(`payment:${always.paymentId}:3`)).toBe(true);
  expect(ledger.has(`payment:${always.paymentId}:4`)).toBe(false);
}, 90_000);

test('a SIGKILL during a retry slot charges no attempt twice; the reconciliation sees no difference', async () => {
  const payments = [];
  for (let i = 0; i < 6; i++)
    payments.push({ orderId: `crash-${i}`, amount: 7.25, profileId: await profile('4000000000000341') });
  const group = await processedGroup(payments, { maxRetries: 1, intervalHours: 24 });
  const gid = group.paymentGroupId as string;
  const first = await byOrder(gid);
  const slot = first.get('crash-0')!.retry.nextAttemptAt as string;
  expect([...first.values()].every((x) => x.retry?.status === 'scheduled')).toBe(true);

  await tick(slot);
  await sleep(250);
  await runtime.kill();
  await runtime.start();
  client = new CrashClient(runtime.url, () => Date.now() + 60_000);

  // Ticks and sweeps as the schedule would run them, until every retry is answered.
  await until(
    async () => {
      await tick(slot);
      await client.local('/__local/events/sweep', { olderThanSeconds: 0 });
      return [...(await byOrder(gid)).values()].every((x) => x.retry?.status !== 'scheduled');
    },
    45_000,
    'every retry answered after the restart',
  );
  const after = await byOrder(gid);
  for (const payment of after.values()) {
    expect(payment.retry).toEqual({ status: 'succeeded' });
    expect(payment.attempts.map((a: Json) => a.attempt)).toEqual([1, 2]);
  }
  const charges = chargesPerPayment(await ledgerSales());
  for (const payment of after.values()) expect(charges.get(payment.paymentId as string)).toBe(1);

  // Retries are ordinary sales to the reconciliation (this runtime settles every 30 s).
  const run = await reconcileLocal(runtime.dataDir, since);
  expect(run.report.unhealed).toBe(0);
  expect(run.code).toBe(0);
}, 150_000);
