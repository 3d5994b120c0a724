/**
 * The crash test's workload: seeded payors and groups (made before the first kill), then workers
 * that keep selling (with and without idempotencyKey), refunding settled sales, voiding unsettled
 * ones and reversing groups (void-or-refund) while the runtime is killed and restarted under them.
 * What each client saw is kept in `Observations` for the oracle.
 */
import { cardInput, checkingInput, groupInput } from '#support/fixtures/inputs';
import { CRASH_MID, type CrashClient } from '#support/crash-client';
import { sleep } from '#shared/clock';
import { between, pick } from '#support/crash-runtime';

const V1 = `/v1/rest/merchants/${CRASH_MID}`;
const SALES = `${V1}/transactions`;
const GROUPS = `/rest/merchants/${CRASH_MID}/groups`;

type Json = Record<string, unknown>;
type Random = () => number;

/** Approving methods mostly; a few declining cards from the sandbox table of docs/integrating.md. */
const APPROVING = [
  cardInput(),
  cardInput({ accountType: 'MASTERCARD', cardNumber: '5555555555554444' }),
  cardInput({ accountType: 'AMEX', cardNumber: '378282246310005' }),
  cardInput({ accountType: 'DISCOVER', cardNumber: '6011111111111117' }),
  checkingInput(),
];
const DECLINING = [
  cardInput({ cardNumber: '4000000000000002' }), // 05 do not honor, category 1
  cardInput({ cardNumber: '4000000000009995' }), // 51 insufficient funds, category 2
];

export interface CrashGroup {
  paymentGroupId: string;
  scheduleHour: number;
  paymentCount: number;
}

/** The scheduled payment whose bank debit the bank returns (the oracle checks it is applied once). */
export interface ReturnedDebit {
  paymentGroupId: string;
  paymentId: string;
}

/**
 * A CHECKING payment on the sandbox's R02 account (returned at the 1st cut-off after settlement,
 * docs/integrating.md "Sandbox processor"), of a payor of its own, added to the earliest group
 * that is never reversed (a void would leave nothing to return): its notice is applied by the
 * runtime's notices backstop while it is killed and restarted.
 */
export async function addReturnedDebit(
  client: CrashClient,
  groups: CrashGroup[],
  reversed: ReadonlyMap<string, number>,
): Promise<ReturnedDebit> {
  const group = groups.find((g) => !reversed.has(g.paymentGroupId))!;
  const payor = await created(client, `${V1}/payors`, {
    customerAccountId: 'crash-returned',
    paymentMethod: checkingInput({ accountNumber: '000111111113' }),
  });
  const payment = await created(client, `${GROUPS}/${group.paymentGroupId}/payments`, {
    paymentGroupId: group.paymentGroupId,
    profileId: `${String(payor.payorId)}/${String(payor.defaultPaymentMethodId)}`,
    amount: 42.5,
    orderId: 'returned-debit',
  });
  group.paymentCount += 1;
  return { paymentGroupId: group.paymentGroupId, paymentId: String(payment.paymentId) };
}

/** A sale the client knows Approved, as the client last saw it. */
interface KnownSale {
  approvedCents: number;
  settlesAt: number;
  /** What the client may still refund (refunds of unknown outcome counted as made). */
  refundableCents: number;
  busy: boolean;
}

export class Observations {
  /** Sales seen Approved: transactionId → approved cents. */
  readonly approved = new Map<string, number>();
  /** Refunds seen Completed: refundId → sale. */
  readonly completedRefunds = new Map<string, string>();
  readonly voided = new Set<string>();
  readonly counts = { sales: 0, keyless: 0, declined: 0, refunds: 0, voids: 0, groupReversals: 0 };
  /** Requests whose outcome the client never learnt (its deadline passed). */
  unknown = 0;
  /** 4xx answers, for the report (a refusal is not a money error by itself). */
  readonly refusals: string[] = [];
  readonly sales = new Map<string, KnownSale>();
}

export interface Workload {
  client: CrashClient;
  observed: Observations;
  profiles: string[];
  groups: CrashGroup[];
  /** Groups that are reversed (void-or-refund) twice each: once while processing, once after. */
  reversals: Map<string, number>;
  stopping: () => boolean;
}

async function created(client: CrashClient, path: string, body: unknown): Promise<Json> {
  const reply = await client.call<Json>('POST', path, body);
  if (reply?.status !== 201) throw new Error(`setup ${path}: ${reply?.status} ${reply?.text}`);
  return reply.body;
}

/** `count` payors, about one in eight with a declining card; their profileIds. */
export async function seedPayors(client: CrashClient, random: Random, count: number): Promise<string[]> {
  const profiles: string[] = [];
  for (let i = 0; i < count; i++) {
    const method = random() < 0.125 ? pick(random, DECLINING) : pick(random, APPROVING);
    const payor = await created(client, `${V1}/payors`, {
      customerAccountId: `crash-${i}`,
      paymentMethod: method,
    });
    profiles.push(`${String(payor.payorId)}/${String(payor.defaultPaymentMethodId)}`);
  }
  return profiles;
}

/** Groups of 100-300 payments on one date, group k at hour k (a tick of hour k makes it due). */
export async function createGroups(
  client: CrashClient,
  random: Random,
  profiles: string[],
  scheduleDate: string,
  count: number,
): Promise<CrashGroup[]> {
  const groups: CrashGroup[] = [];
  for (let k = 0; k < count; k++) {
    const payments = Array.from({ length: between(random, 100, 300) }, (_, i) => ({
      profileId: pick(random, profiles),
      amount: between(random, 500, 8000) / 100,
      orderId: `g${k}-p${i}`,
    }));
    const group = await created(client, GROUPS, groupInput({ scheduleDate, scheduleHour: k, payments }));
    groups.push({
      paymentGroupId: String(group.paymentGroupId),
      scheduleHour: k,
      paymentCount: payments.length,
    });
  }
  return groups;
}

const cents = (amount: unknown) => Math.round(Number(amount) * 100);

/**
 * GETs a sale until it is no longer Pending (a GET only reads: the sweeper, which the test's driver
 * runs every few seconds, settles a stale one); undefined if never.
 */
async function settled(w: Workload, transactionId: string): Promise<Json | undefined> {
  for (;;) {
    const reply = await w.client.call<Json>('GET', `${SALES}/${transactionId}`);
    if (!reply || reply.status !== 200) return undefined;
    if (reply.body.status !== 'Pending') return reply.body;
    if (w.stopping()) return undefined;
    await sleep(1_000);
  }
}

function remember(w: Workload, sale: Json): void {
  if (sale.status === 'Voided') w.observed.voided.add(String(sale.transactionId));
  if (sale.status !== 'Approved') return;
  const id = String(sale.transactionId);
  const approvedCents = cents(sale.approvedAmount);
  w.observed.approved.set(id, approvedCents);
  if (!w.observed.sales.has(id))
    w.observed.sales.set(id, {
      approvedCents,
      settlesAt: Date.parse(String(sale.settlementTime)),
      refundableCents: approvedCents,
      busy: false,
    });
}

/** One sale intent, retried unchanged until answered; a 19 names the first attempt's sale. */
async function sell(w: Workload, random: Random, orderId: string, keyed: boolean): Promise<void> {
  const body = {
    profileId: pick(random, w.profiles),
    amount: between(random, 100, 9000) / 100,
    orderId,
    ...(keyed && { idempotencyKey: `crash-${orderId}` }),
  };
  w.observed.counts.sales += 1;
  if (!keyed) w.observed.counts.keyless += 1;
  const reply = await w.client.call<Json>('POST', SALES, body);
  if (!reply) return void (w.observed.unknown += 1);
  if (reply.status !== 201) return void w.observed.refusals.push(`sale ${reply.status} ${reply.text}`);
  let sale: Json | undefined = reply.body;
  if (sale.responseCode === '19' && typeof sale.originalTransactionId === 'string')
    sale = await settled(w, sale.originalTransactionId);
  else if (sale.status === 'Pending') sale = await settled(w, String(sale.transactionId));
  if (!sale) return void (w.observed.unknown += 1);
  if (sale.status === 'Declined') w.observed.counts.declined += 1;
  remember(w, sale);
}

/** A known Approved sale that is free, settled (`settled`) or safely before its cut-off. */
function candidate(w: Workload, random: Random, settledOnly: boolean): [string, KnownSale] | undefined {
  const now = Date.now();
  const free = [...w.observed.sales].filter(
    ([, s]) =>
      !s.busy &&
      s.refundableCents > 0 &&
      (settledOnly
        ? s.settlesAt < now - 1_000
        : s.settlesAt > now + 5_000 && s.refundableCents === s.approvedCents),
  );
  return free.length === 0 ? undefined : pick(random, free);
}

async function refund(w: Workload, random: Random, n: number): Promise<boolean> {
  const chosen = candidate(w, random, true);
  if (!chosen) return false;
  const [transactionId, sale] = chosen;
  const amountCents = between(random, 1, sale.refundableCents);
  sale.busy = true;
  sale.refundableCents -= amountCents;
  w.observed.counts.refunds += 1;
  const reply = await w.client.call<Json>('POST', `${SALES}/${transactionId}/refunds`, {
    amount: amountCents / 100,
    idempotencyKey: `crash-refund-${n}`,
  });
  sale.busy = false;
  if (!reply) w.observed.unknown += 1;
  else if (reply.status !== 201) w.observed.refusals.push(`refund ${reply.status} ${reply.text}`);
  else if (reply.body.status === 'Completed')
    w.observed.completedRefunds.set(String(reply.body.refundId), transactionId);
  return true;
}

async function voidSale(w: Workload, random: Random): Promise<boolean> {
  const chosen = candidate(w, random, false);
  if (!chosen) return false;
  const [transactionId, sale] = chosen;
  // Never refunded later: a void asked for, whatever its outcome, may have been reserved.
  sale.busy = true;
  sale.refundableCents = 0;
  w.observed.counts.voids += 1;
  const reply = await w.client.call<Json>('POST', `${SALES}/${transactionId}/void`);
  if (!reply) w.observed.unknown += 1;
  else if (reply.status !== 200) w.observed.refusals.push(`void ${reply.status} ${reply.text}`);
  else remember(w, reply.body);
  return true;
}

/** void-or-refund of a chosen group: first once it is processing, again once it is processed. */
async function reverseGroup(w: Workload): Promise<boolean> {
  for (const [groupId, done] of w.reversals) {
    if (done >= 2) continue;
    const group = await w.client.call<Json>('GET', `${GROUPS}/${groupId}`);
    const wanted = done === 0 ? ['processing', 'processed'] : ['processed'];
    if (!group || !wanted.includes(String(group.body.status))) continue;
    w.reversals.set(groupId, done + 1);
    w.observed.counts.groupReversals += 1;
    const reply = await w.client.call<Json>('POST', `${GROUPS}/${groupId}/void-or-refund`);
    if (!reply) w.observed.unknown += 1;
    else if (reply.status !== 200) w.observed.refusals.push(`void-or-refund ${reply.status} ${reply.text}`);
    return true;
  }
  return false;
}

/** One client: a seeded sequence of actions until the workload stops. */
export async function runWorker(w: Workload, index: number, random: Random): Promise<void> {
  for (let n = 0; !w.stopping(); n++) {
    const roll = random();
    const orderId = `w${index}-${n}`;
    let done = false;
    if (roll < 0.12) done = await refund(w, random, index * 1_000_000 + n);
    else if (roll < 0.18) done = await voidSale(w, random);
    else if (roll < 0.26) done = await reverseGroup(w);
    if (!done) await sell(w, random, orderId, roll > 0.44 || roll < 0.26);
    await sleep(between(random, 10, 100));
  }
}
