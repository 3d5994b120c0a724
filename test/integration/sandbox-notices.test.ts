/**
 * The sandbox's notices and the notices backstop against DynamoDB Local: a bank debit approved at
 * the sandbox plans its notices with its ledger entry; the test clock brings the next cut-off's
 * forward; the backstop lists them since its cursor and applies each once (core/notice-backstop.ts,
 * core/notices.ts), however often and however many runs at once.
 */
import { runNoticeBackstop } from '#core/notice-backstop';
import { applyNotice } from '#core/notices';
import { listReturns } from '#core/returns';
import { runSale } from '#core/sale';
import type { ServiceEvent } from '#domain/events';
import { useProcessor } from '#processor/index';
import type { ProcessorNotice } from '#processor/processor';
import { SandboxProcessor } from '#processor/sandbox';
import { bringNoticesForward, plannedNoticeItems, voidedMark } from '#processor/sandbox-notices';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { eventStore } from '#store/events';
import { outboxStore } from '#store/outbox';
import { type Merchant } from '#store/merchants';
import { MerchantAdmin } from '#store/merchant-admin';
import { BatchWriteCommand, DeleteCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#store/keys';
import { DynamoPayorStore, payorStore } from '#store/payors';
import { transactionStore } from '#store/transactions';
import { createTestTable, type TestTable } from '#support/ddb';
import { makePayor } from '#support/fixtures/index';
import { saleRequest } from '#support/sales';

const MERCHANT: Merchant = { merchantId: '32360000001', shortId: '23600001', name: 'Shelbyville Elementary' };
const MID = MERCHANT.merchantId;
/** Cut-offs every minute: the notices of a debit approved now are an hour or less ahead. */
const SCHEDULE = { periodSeconds: 60, offsetSeconds: 0 };

let table: TestTable;
let sandbox: SandboxProcessor;
beforeAll(async () => {
  table = await createTestTable();
  Object.assign(process.env, { TABLE_NAME: table.tableName, SERVICE_STAGE: 'dev' });
  reloadConfigForTests();
  await new MerchantAdmin(table.db, table.tableName).register(MERCHANT);
  sandbox = new SandboxProcessor(ddb(), table.tableName, SCHEDULE);
  useProcessor(sandbox);
});
afterAll(async () => {
  useProcessor(undefined);
  await table.drop();
});

/** A stored payor whose CHECKING account behaves as `profile` at the sandbox: its profileId. */
async function checkingProfile(merchantId: string, profile: string): Promise<string> {
  const { payor, method } = makePayor(merchantId, { email: 'payor@example.com' }, profile);
  const checking = { ...method, accountType: 'CHECKING' as const, maskedAccountNumber: '********2227' };
  delete checking.expiryMonth;
  delete checking.expiryYear;
  await new DynamoPayorStore(table.db, table.tableName).create(payor, checking);
  return `${payor.payorId}/${checking.savedPaymentMethodId}`;
}

/** An approved $40 debit of a new payor whose account behaves as `profile`: its transaction id. */
async function approvedDebit(profile: string, merchantId = MID): Promise<string> {
  const request = saleRequest(merchantId, await checkingProfile(merchantId, profile), 4000);
  const result = await runSale(request, new Date());
  expect(result).toMatchObject({ status: 'Approved' });
  return request.transactionId;
}

const saleOf = async (transactionId: string) => (await transactionStore().find(transactionId))!.transaction;

async function eventsOf(transactionId: string, merchantId = MID): Promise<ServiceEvent[]> {
  return (await eventStore().page(merchantId, { objectId: transactionId }, 100)).events;
}

const backstop = () => runNoticeBackstop(new Date(), Date.now() + 30_000);

/** The merchant's notices due now, as the backstop lists them: every page, from the first. */
async function dueNoticesOf(merchantId: string): Promise<ProcessorNotice[]> {
  const now = new Date().toISOString();
  const found: ProcessorNotice[] = [];
  let cursor: string | undefined;
  for (let more = true; more;) {
    const page = await sandbox.listNotices({ limit: 100, now, ...(cursor !== undefined && { cursor }) });
    found.push(...page.notices.filter((n) => n.merchantId === merchantId));
    ({ cursor, more } = page);
  }
  return found;
}

it('a debit of the R01 test account is returned when the test clock brings its notice forward, once however often the backstop runs', async () => {
  const transactionId = await approvedDebit('nR01');
  // Not due yet: its return is at the 2nd cut-off after its settlement.
  await backstop();
  expect(await saleOf(transactionId)).toMatchObject({ status: 'Approved' });

  expect(await sandbox.noticesNow({ merchantId: MID })).toEqual({ broughtForward: 1 });
  const first = await backstop();
  expect(first.listed.applied).toBe(1);
  expect(await saleOf(transactionId)).toMatchObject({
    status: 'Returned',
    return: { code: 'R01', category: 'nsf' },
  });
  // Listed again (the cursor reads a little back): marked, nothing applied twice.
  const second = await backstop();
  expect(second.listed.applied).toBe(0);
  expect((await eventsOf(transactionId)).filter((e) => e.type === 'transaction.returned')).toHaveLength(1);
  // Listed once among the merchant's returns.
  const { items } = await listReturns(MID, {});
  expect(items.filter((r) => r.transactionId === transactionId)).toEqual([
    expect.objectContaining({ code: 'R01', category: 'nsf', amount: 40 }),
  ]);
  // Its payor is e-mailed once (one outbox item per returned sale).
  expect(await outboxStore().get(`return:${transactionId}`)).toMatchObject({
    kind: 'debit-returned',
    recipient: 'payor@example.com',
    data: { code: 'R01', reason: 'Insufficient funds', amountCents: 4000 },
  });
});

it("the returns list pages newest first with tokens of this merchant's list only", async () => {
  const merchant: Merchant = { merchantId: '32360000007', shortId: '23600007', name: 'Cypress Creek' };
  await new MerchantAdmin(table.db, table.tableName).register(merchant);
  const returned = [];
  for (let i = 0; i < 3; i++) {
    returned.push(await approvedDebit('nR01', merchant.merchantId));
    await sandbox.noticesNow({ merchantId: merchant.merchantId });
    await backstop();
  }
  const first = await listReturns(merchant.merchantId, { pageSize: '2' });
  expect(first.items.map((r) => r.transactionId)).toEqual([returned[2], returned[1]]);
  const second = await listReturns(merchant.merchantId, { pageToken: first.meta.nextPageToken! });
  expect(second.items.map((r) => r.transactionId)).toEqual([returned[0]]);
  expect(second.meta.nextPageToken).toBeUndefined();
  await expect(listReturns(MID, { pageToken: first.meta.nextPageToken! })).rejects.toThrow(
    'pageToken is not a token of this list',
  );
});

it('defect: a returns page that holds the last returns exactly (as many as pageSize) carries a nextPageToken to an empty page (the token is absent on the last page)', async () => {
  const merchant: Merchant = { merchantId: '32360000017', shortId: '23600017', name: 'Exact Page' };
  await new MerchantAdmin(table.db, table.tableName).register(merchant);
  for (let i = 0; i < 2; i++) {
    await approvedDebit('nR01', merchant.merchantId);
    await sandbox.noticesNow({ merchantId: merchant.merchantId });
    await backstop();
  }
  const page = await listReturns(merchant.merchantId, { pageSize: '2' });
  expect(page.items).toHaveLength(2);
  const next = page.meta.nextPageToken
    ? await listReturns(merchant.merchantId, { pageToken: page.meta.nextPageToken })
    : undefined;
  expect({ nextPageToken: page.meta.nextPageToken, nextPageItems: next?.items.length }).toEqual({
    nextPageToken: undefined,
    nextPageItems: undefined,
  });
});

it('an ordinary account clears at its 2nd cut-off, and the R10 account clears then is returned unauthorized a cut-off later', async () => {
  const merchant: Merchant = { merchantId: '32360000002', shortId: '23600002', name: 'Ogdenville Middle' };
  await new MerchantAdmin(table.db, table.tableName).register(merchant);
  const ordinary = await approvedDebit('bank', merchant.merchantId);
  const unauthorized = await approvedDebit('nR10', merchant.merchantId);

  // One banking day sooner: both accounts' clearings (due at the same cut-off) are due now.
  expect(await sandbox.noticesNow({ merchantId: merchant.merchantId })).toEqual({ broughtForward: 2 });
  await backstop();
  expect(await saleOf(ordinary)).toMatchObject({ status: 'Approved', cleared: true });
  expect(await saleOf(unauthorized)).toMatchObject({ status: 'Approved', cleared: true });

  expect(await sandbox.noticesNow({ merchantId: merchant.merchantId })).toEqual({ broughtForward: 1 });
  await backstop();
  expect(await saleOf(unauthorized)).toMatchObject({
    status: 'Returned',
    return: { code: 'R10', category: 'unauthorized' },
  });
  expect(await saleOf(ordinary)).toMatchObject({ status: 'Approved', cleared: true });
  // Nothing is left to bring forward.
  expect(await sandbox.noticesNow({ merchantId: merchant.merchantId })).toEqual({ broughtForward: 0 });
});

it('8 backstop runs at once apply a notice once: one return, one event', async () => {
  const merchant: Merchant = { merchantId: '32360000003', shortId: '23600003', name: 'Capital City High' };
  await new MerchantAdmin(table.db, table.tableName).register(merchant);
  const transactionId = await approvedDebit('nR02', merchant.merchantId);
  await sandbox.noticesNow({ merchantId: merchant.merchantId });

  const runs = await Promise.all(Array.from({ length: 8 }, () => backstop()));
  expect(runs.reduce((n, r) => n + r.listed.applied, 0)).toBe(1);
  expect(await saleOf(transactionId)).toMatchObject({
    status: 'Returned',
    return: { code: 'R02', category: 'administrative' },
  });
  const returned = (await eventsOf(transactionId, merchant.merchantId)).filter(
    (e) => e.type === 'transaction.returned',
  );
  expect(returned).toHaveLength(1);
});

/** The saved method a profile names, as stored. */
async function methodOf(profileId: string, merchantId: string) {
  const [payorId, methodId] = profileId.split('/') as [string, string];
  const found = await payorStore().find(payorId, merchantId);
  return found?.methods.find((m) => m.savedPaymentMethodId === methodId);
}

it('a NOC corrects the vaulted account once (masked number, correctedBy noc, payment_method.corrected); the debit that carried it stays Approved and clears', async () => {
  const merchant: Merchant = { merchantId: '32360000005', shortId: '23600005', name: 'Brockway Elementary' };
  await new MerchantAdmin(table.db, table.tableName).register(merchant);
  const profileId = await checkingProfile(merchant.merchantId, 'nC01');
  const request = saleRequest(merchant.merchantId, profileId, 4000);
  expect(await runSale(request, new Date())).toMatchObject({ status: 'Approved' });

  expect(await sandbox.noticesNow({ merchantId: merchant.merchantId })).toEqual({ broughtForward: 1 });
  expect((await backstop()).listed.applied).toBe(1);
  const method = (await methodOf(profileId, merchant.merchantId))!;
  expect(method).toMatchObject({ maskedAccountNumber: '********8884', correctedBy: 'noc' });
  // A NOC corrects an account that still takes debits: its status is untouched (active).
  expect(method.status ?? 'active').toBe('active');
  const sale = await saleOf(request.transactionId);
  expect(sale.status).toBe('Approved');
  expect(sale.cleared).toBeUndefined();
  // Listed again: the method's mark makes it a repeat.
  expect((await backstop()).listed.applied).toBe(0);
  const corrected = (
    await eventStore().page(merchant.merchantId, { objectId: method.savedPaymentMethodId }, 100)
  ).events.filter((e) => e.type === 'payment_method.corrected');
  expect(corrected).toHaveLength(1);

  expect(await sandbox.noticesNow({ merchantId: merchant.merchantId })).toEqual({ broughtForward: 1 });
  await backstop();
  expect(await saleOf(request.transactionId)).toMatchObject({ status: 'Approved', cleared: true });
});

it('a NOC for a method deleted since is skipped and counted, changing nothing', async () => {
  const merchant: Merchant = { merchantId: '32360000006', shortId: '23600006', name: 'Waverly Hills' };
  await new MerchantAdmin(table.db, table.tableName).register(merchant);
  const profileId = await checkingProfile(merchant.merchantId, 'nC01');
  expect(await runSale(saleRequest(merchant.merchantId, profileId, 4000), new Date())).toMatchObject({
    status: 'Approved',
  });
  const [payorId, methodId] = profileId.split('/') as [string, string];
  await table.db.send(new DeleteCommand({ TableName: table.tableName, Key: keys.method(payorId, methodId) }));

  await sandbox.noticesNow({ merchantId: merchant.merchantId });
  const run = await backstop();
  expect(run.listed).toMatchObject({ applied: 0, skipped: 1 });
  // Marked: listed again, it is a repeat, not a second skip.
  expect((await backstop()).listed).toMatchObject({ skipped: 0 });
});

it('a declined debit and a card charge plan no notices', async () => {
  const merchant: Merchant = { merchantId: '32360000004', shortId: '23600004', name: 'North Haverbrook' };
  await new MerchantAdmin(table.db, table.tableName).register(merchant);
  const request = saleRequest(merchant.merchantId, await checkingProfile(merchant.merchantId, '51'), 4000);
  expect(await runSale(request, new Date())).toMatchObject({ status: 'Declined' });
  const { payor, method } = makePayor(merchant.merchantId);
  await new DynamoPayorStore(table.db, table.tableName).create(payor, method);
  const card = saleRequest(merchant.merchantId, `${payor.payorId}/${method.savedPaymentMethodId}`, 4000);
  expect(await runSale(card, new Date())).toMatchObject({ status: 'Approved' });
  expect(await sandbox.noticesNow({ merchantId: merchant.merchantId })).toEqual({ broughtForward: 0 });
});

it('a voided charge sends none of its planned notices: a voided R01 debit is never returned, in the notices or the activity report, and a voided dispute card is never disputed', async () => {
  const merchant: Merchant = { merchantId: '32360000010', shortId: '23600010', name: 'Springfield Tech' };
  await new MerchantAdmin(table.db, table.tableName).register(merchant);
  const mid = merchant.merchantId;
  const since = new Date().toISOString();
  const chargeOf = async (transactionId: string) => (await saleOf(transactionId)).processorTransactionId!;
  const voided = await chargeOf(await approvedDebit('nR01', mid));
  const kept = await chargeOf(await approvedDebit('nR01', mid));
  const { payor, method } = makePayor(mid, {}, 'dFRD');
  await new DynamoPayorStore(table.db, table.tableName).create(payor, method);
  const card = saleRequest(mid, `${payor.payorId}/${method.savedPaymentMethodId}`, 4000);
  expect(await runSale(card, new Date())).toMatchObject({ status: 'Approved' });
  const disputed = await chargeOf(card.transactionId);
  // Voided at the sandbox, seconds after their sales: their notices are all due a cut-off (60 s)
  // or more after their settlement. (This file's service settles on another schedule.)
  for (const charge of [voided, disputed]) {
    const request = { idempotencyKey: `void:${charge}`, merchantId: mid, processorTransactionId: charge };
    expect(await sandbox.void({ ...request, amountCents: 4000 })).toMatchObject({ approved: true });
  }

  // The test clock brings forward the kept debit's return alone (the voided debit's return and the
  // card's dispute, opened and closed, would have been three more), however many cut-offs it takes.
  let moved = 0;
  for (let cutoff = 1; cutoff <= 4; cutoff++)
    moved += (await sandbox.noticesNow({ merchantId: mid })).broughtForward;
  expect(moved).toBe(1);
  const sent = await dueNoticesOf(mid);
  expect(sent.map((n) => [n.kind, n.objectId])).toEqual([['returned', kept]]);
  const activity = await sandbox.listActivity(since);
  const returned = activity.filter((a) => a.kind === 'return' && a.merchantId === mid);
  expect(returned.map((a) => a.processorTransactionId)).toEqual([kept]);
});

it('the test clock drops the voided charges’ notices it meets: two hundred of them before the next cut-off’s never hold it back', async () => {
  const merchant: Merchant = { merchantId: '32360000011', shortId: '23600011', name: 'Ogdenville Prep' };
  await new MerchantAdmin(table.db, table.tableName).register(merchant);
  const mid = merchant.merchantId;
  // The kept debit's return is due at its 2nd cut-off, 2-3 minutes ahead; the voided debits' at
  // their 1st, from a settlement now: before it. Planned and marked as the sandbox does both.
  const kept = (await saleOf(await approvedDebit('nR01', mid))).processorTransactionId!;
  const settlesAt = new Date().toISOString();
  const items = Array.from({ length: 200 }, (_, i) => {
    const charge = `sbx_voided-${i}`;
    const planned = { merchantId: mid, idempotencyKey: `sale:v${i}`, token: 'sbx.nR02.v', settlesAt };
    return [
      ...plannedNoticeItems('nR02', { ...planned, processorTransactionId: charge, amountCents: 4000 }, 60),
      voidedMark(charge, settlesAt),
    ];
  }).flat();
  for (let i = 0; i < items.length; i += 25) {
    const writes = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    await table.db.send(new BatchWriteCommand({ RequestItems: { [table.tableName]: writes } }));
  }

  expect(await sandbox.noticesNow({ merchantId: mid })).toEqual({ broughtForward: 1 });
  const sent = await dueNoticesOf(mid);
  expect(sent.map((n) => [n.kind, n.objectId])).toEqual([['returned', kept]]);
  // The voided ones are gone from the merchant's pending notices.
  const left = await table.db.send(
    new QueryCommand({
      TableName: table.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `SANDBOX#NOTICES#${mid}` },
    }),
  );
  expect(left.Items!.map((item) => item.processorTransactionId)).toEqual([kept]);
});

it('the listing and the activity report leave out the notices a void took back, and keep those due before it', async () => {
  const merchant: Merchant = { merchantId: '32360000012', shortId: '23600012', name: 'Brockway Academy' };
  await new MerchantAdmin(table.db, table.tableName).register(merchant);
  const mid = merchant.merchantId;
  // Three R01 debits settled ten minutes ago, returned two minutes later (already due, so the test
  // clock never meets them): one voided before its return was due, one after, one not voided.
  const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
  const settlesAt = at(10);
  const charge = (name: string) => ({
    merchantId: mid,
    idempotencyKey: `sale:${name}`,
    token: 'sbx.nR01.t',
    processorTransactionId: `sbx_${name}`,
    settlesAt,
    amountCents: 4000,
  });
  const items = [
    ...plannedNoticeItems('nR01', charge('before-due'), 60),
    voidedMark('sbx_before-due', at(9)),
    ...plannedNoticeItems('nR01', charge('after-due'), 60),
    voidedMark('sbx_after-due', at(5)),
    ...plannedNoticeItems('nR01', charge('not-voided'), 60),
  ];
  await table.db.send(
    new BatchWriteCommand({
      RequestItems: { [table.tableName]: items.map((Item) => ({ PutRequest: { Item } })) },
    }),
  );

  const listed = (await dueNoticesOf(mid)).map((n) => n.objectId);
  expect(listed.sort()).toEqual(['sbx_after-due', 'sbx_not-voided']);
  const activity = await sandbox.listActivity(at(60));
  const returned = activity.filter((a) => a.kind === 'return' && a.merchantId === mid);
  expect(returned.map((a) => a.processorTransactionId).sort()).toEqual(['sbx_after-due', 'sbx_not-voided']);
});

it('the test clock never brings a notice forward twice: a call whose time is before an earlier call’s leaves what that call moved, and brings the next cut-off’s forward', async () => {
  // Concurrent calls take their times in any order: one whose time fell before another's moved
  // notices saw them as still ahead.
  const merchant: Merchant = { merchantId: '32360000009', shortId: '23600009', name: 'Capital City High' };
  await new MerchantAdmin(table.db, table.tableName).register(merchant);
  await approvedDebit('nR10', merchant.merchantId);
  const now = Date.now();
  const moved = (at: number) =>
    bringNoticesForward(ddb(), table.tableName, merchant.merchantId, new Date(at).toISOString());
  expect(await moved(now + 5)).toBe(1); // the clearing
  expect(await moved(now)).toBe(1); // the return, a cut-off later: not the clearing again
  expect(await moved(now + 10)).toBe(0);
  const page = await sandbox.listNotices({ limit: 100, now: new Date(now + 10).toISOString() });
  const kinds = page.notices.filter((n) => n.merchantId === merchant.merchantId).map((n) => n.kind);
  expect(kinds.sort()).toEqual(['cleared', 'returned']);
});

it('a late NOC never moves a method back: an older correction arriving after a newer one changes nothing', async () => {
  const merchant: Merchant = { merchantId: '32360000010', shortId: '23600010', name: 'Springfield Tech' };
  await new MerchantAdmin(table.db, table.tableName).register(merchant);
  const profileId = await checkingProfile(merchant.merchantId, 'nC01');
  const { processorToken } = (await methodOf(profileId, merchant.merchantId))!;
  const noc = (debit: string, occurredAt: string, masked: string): ProcessorNotice => ({
    noticeId: `ntc_${debit}_${crypto.randomUUID()}`,
    kind: 'noc',
    merchantId: merchant.merchantId,
    objectId: `sbx_${debit}`,
    sequence: 1,
    occurredAt,
    charge: { processorTransactionId: `sbx_${debit}`, idempotencyKey: `sale:${debit}` },
    token: processorToken,
    code: 'C01',
    corrected: { maskedAccountNumber: masked },
  });
  // Two debits' NOCs: the later correction first, the earlier one (a lost webhook listed late) after.
  const newer = noc('second', new Date().toISOString(), '********1111');
  const older = noc('first', new Date(Date.now() - 86_400_000).toISOString(), '********0000');
  expect(await applyNotice(newer, new Date())).toEqual({ outcome: 'applied' });
  expect((await applyNotice(older, new Date())).outcome).toBe('stale');
  expect(await methodOf(profileId, merchant.merchantId)).toMatchObject({
    maskedAccountNumber: '********1111',
    correctedBy: 'noc',
  });
});

/** A $40 sale of an R01 test account straight at the sandbox, under `key`. */
const r01Sale = (merchantId: string, key: string) => ({
  idempotencyKey: key,
  keyFirstUsedAt: new Date().toISOString(),
  merchantId,
  token: 'sbx.nR01.reversed',
  amountCents: 4000,
  allowPartial: false,
});

/** What the test clock, the listing and the activity report send of `merchantId`'s returns. */
async function returnsSent(merchantId: string, since: string) {
  let moved = 0;
  for (let cutoff = 1; cutoff <= 4; cutoff++)
    moved += (await sandbox.noticesNow({ merchantId })).broughtForward;
  const listed = (await dueNoticesOf(merchantId)).map((n) => n.objectId);
  const activity = await sandbox.listActivity(since);
  const reported = activity.filter((a) => a.kind === 'return' && a.merchantId === merchantId);
  return { moved, listed, reported: reported.map((a) => a.processorTransactionId) };
}

it('defect: a sale reversed as unanswered still sent its planned notices: a reversed R01 debit was still returned, in the notices and the activity report', async () => {
  const merchant: Merchant = { merchantId: '32360000013', shortId: '23600013', name: 'Waverly Hills' };
  await new MerchantAdmin(table.db, table.tableName).register(merchant);
  const mid = merchant.merchantId;
  const since = new Date().toISOString();
  const kept = (await saleOf(await approvedDebit('nR01', mid))).processorTransactionId!;
  // The sandbox approved it, and the service, which never got the answer, reverses it.
  const sale = await sandbox.sale(r01Sale(mid, 'payment:reversed-1:1'));
  expect(sale).toMatchObject({ approved: true });
  await sandbox.reverseUnanswered({ idempotencyKey: 'payment:reversed-1:1', merchantId: mid });

  expect(await sandbox.ledger('SALE', 'payment:reversed-1:1')).toMatchObject({
    reversed: true,
    result: { approved: false, responseCode: '96' },
  });
  expect(await returnsSent(mid, since)).toEqual({ moved: 1, listed: [kept], reported: [kept] });
});

it('a sale that lands between a timeout reversal’s read and its write is reversed with its notices', async () => {
  const merchant: Merchant = { merchantId: '32360000014', shortId: '23600014', name: 'Cypress Creek' };
  await new MerchantAdmin(table.db, table.tableName).register(merchant);
  const mid = merchant.merchantId;
  const since = new Date().toISOString();
  const key = 'payment:late-1:1';
  // The reversal reads no entry; the sale lands before the reversal writes.
  const real = ddb();
  let landed = 0;
  const racing = new Proxy(real, {
    get(target, name, receiver) {
      if (name !== 'send') return Reflect.get(target, name, receiver);
      return async (command: { input: { Key?: { pk?: string } } }) => {
        const answer = await target.send(command as never);
        if (
          command instanceof GetCommand &&
          command.input.Key?.pk === `SANDBOX#SALE#${key}` &&
          landed++ === 0
        )
          expect(await sandbox.sale(r01Sale(mid, key))).toMatchObject({ approved: true });
        return answer;
      };
    },
  });
  const reversing = new SandboxProcessor(racing, table.tableName, SCHEDULE);
  await reversing.reverseUnanswered({ idempotencyKey: key, merchantId: mid });

  expect(landed).toBe(2); // read again after the sale
  expect(await sandbox.ledger('SALE', key)).toMatchObject({ reversed: true, result: { approved: false } });
  expect(await returnsSent(mid, since)).toEqual({ moved: 0, listed: [], reported: [] });
  // A sale repeated under the key gets the reversal, and plans nothing.
  expect(await sandbox.sale(r01Sale(mid, key))).toMatchObject({ approved: false, responseCode: '96' });
  expect(await returnsSent(mid, since)).toEqual({ moved: 0, listed: [], reported: [] });
});
