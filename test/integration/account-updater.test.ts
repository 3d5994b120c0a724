/**
 * The account updater (issue 21 item 2) against DynamoDB Local with the sandbox processor: the
 * four test cards' updates applied to their methods (expiry, number, status), each with its
 * `payment_method.account_updated` event and, for a closed or contact-cardholder account, the
 * payor's e-mail; a second run and eight concurrent runs apply nothing twice.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { runAccountUpdater } from '#core/account-updater';
import { applyNotice } from '#core/notices';
import { savePayor } from '#core/payors';
import type { ServiceEvent } from '#domain/events';
import { accountUpdateOutboxId } from '#domain/notifications';
import { useProcessor } from '#processor/index';
import type { ProcessorNotice } from '#processor/processor';
import { SandboxProcessor, sandboxFingerprint } from '#processor/sandbox';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { keys } from '#store/keys';
import { eventStore } from '#store/events';
import { methodStore } from '#store/methods';
import { createTestTable, type TestTable } from '#support/ddb';
import { makePayor } from '#support/fixtures/index';

let table: TestTable;
let sandbox: SandboxProcessor;
const MID = '32350000001';
const YEAR = new Date().getUTCFullYear() + 1;
const T0 = new Date().toISOString();

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  reloadConfigForTests();
  sandbox = new SandboxProcessor(ddb(), table.tableName, { periodSeconds: 3600, offsetSeconds: 1800 });
  useProcessor(sandbox);
});
afterAll(async () => {
  useProcessor(undefined);
  await table.drop();
});

/** A payor (with an e-mail) whose one method is this card, vaulted at the sandbox. */
async function payorWithCard(number: string) {
  const { token, fingerprint } = await sandbox.tokenize({
    merchantId: '32350000001',
    payorId: 'payor-1',
    kind: 'card',
    number,
    expiryMonth: 6,
    expiryYear: YEAR,
  });
  const { payor, method } = makePayor(MID, { email: `p-${number.slice(-4)}@example.com` });
  const card = { ...method, processorToken: token, fingerprint, expiryMonth: 6, expiryYear: YEAR };
  await savePayor(payor, { ...card, maskedAccountNumber: `************${number.slice(-4)}` });
  return { payorId: payor.payorId, methodId: method.savedPaymentMethodId, token };
}

const FOUR = ['4000000000000440', '4000000000000457', '4000000000000473', '4000000000000481'];

const methodOf = (m: { payorId: string; methodId: string }) =>
  methodStore().findMethod(m.payorId, m.methodId, MID);

async function eventsOf(objectId: string): Promise<ServiceEvent[]> {
  return (await eventStore().page(MID, { objectId }, 50)).events;
}

const outboxOf = async (outboxId: string) =>
  (await table.db.send(new GetCommand({ TableName: table.tableName, Key: keys.outbox(outboxId) }))).Item;

const later = () => new Date(Date.now() + 1000);
const deadline = () => Date.now() + 30_000;

it('applies the four test cards once each, with their events and e-mails, across two runs', async () => {
  const [expiry, number, closed, contact] = await Promise.all(FOUR.map(payorWithCard));
  const plain = await payorWithCard('4111111111111111');

  const first = await runAccountUpdater(later(), deadline());
  expect(first).toMatchObject({ listed: 4, applied: 4, appliedBefore: 0, noMethod: 0, left: 0 });

  expect(await methodOf(expiry!)).toMatchObject({
    expiryMonth: 6,
    expiryYear: YEAR + 3,
    status: 'active',
    updatedBy: 'account_updater',
    maskedAccountNumber: '************0440',
  });
  const replaced = (await methodOf(number!))!;
  expect(replaced).toMatchObject({
    maskedAccountNumber: '************0465',
    expiryYear: YEAR + 3,
    updatedBy: 'account_updater',
  });
  expect(replaced.fingerprint).toMatch(/^fp_/);
  expect(replaced.fingerprint).not.toBe(
    sandboxFingerprint({ kind: 'card', number: FOUR[1]!, expiryMonth: 6, expiryYear: YEAR }),
  );
  expect(await methodOf(closed!)).toMatchObject({ status: 'closed', updatedBy: 'account_updater' });
  expect(await methodOf(contact!)).toMatchObject({ status: 'contact_cardholder' });
  expect((await methodOf(plain))!.updatedBy).toBeUndefined();

  for (const m of [expiry!, number!, closed!, contact!]) {
    const events = await eventsOf(m.methodId);
    expect(events.map((e) => [e.type, e.sequence])).toEqual([['payment_method.account_updated', 1]]);
    expect(JSON.stringify(events)).not.toMatch(/4000000000000|sbx\./);
  }
  // The closed and contact-cardholder payors are asked for a new method; the others are not.
  const updates = await sandbox.accountUpdates(T0);
  const mailOf = async (m: { token: string; methodId: string }) => {
    const update = updates.find((u) => u.token === m.token)!;
    return outboxOf(accountUpdateOutboxId(`${update.updateId}:${m.methodId}`));
  };
  expect(await mailOf(closed!)).toMatchObject({
    kind: 'method-unusable',
    recipient: 'p-0473@example.com',
    data: { status: 'closed', maskedAccountNumber: '************0473' },
  });
  expect(await mailOf(contact!)).toMatchObject({ data: { status: 'contact_cardholder' } });
  expect(await mailOf(expiry!)).toBeUndefined();

  const second = await runAccountUpdater(later(), deadline());
  expect(second).toMatchObject({ listed: 4, applied: 0, appliedBefore: 4 });
  for (const m of [expiry!, number!, closed!, contact!]) expect(await eventsOf(m.methodId)).toHaveLength(1);
});

it('eight concurrent runs apply each update once', async () => {
  const methods = await Promise.all(FOUR.map(payorWithCard));
  const runs = await Promise.all(Array.from({ length: 8 }, () => runAccountUpdater(later(), deadline())));
  // Each run lists the earlier test's four too (applied before) and these four.
  expect(runs.reduce((n, r) => n + r.applied, 0)).toBe(4);
  for (const r of runs) expect(r.applied + r.appliedBefore).toBe(8);
  for (const m of methods) {
    expect(await eventsOf(m.methodId)).toHaveLength(1);
    expect((await methodOf(m))!.revision).toBe(1);
  }
});

it('a run past its deadline leaves the updates for the next one', async () => {
  await payorWithCard(FOUR[0]!);
  const cut = await runAccountUpdater(later(), Date.now() - 1);
  expect(cut).toMatchObject({ applied: 0, left: cut.listed });
  expect((await runAccountUpdater(later(), deadline())).applied).toBe(1);
});

it('a late account update never moves a method back: an older new expiry arriving after the account was closed leaves it closed', async () => {
  const card = await payorWithCard('4242424242424242');
  const notice = (updateId: string, at: string, update: object): ProcessorNotice =>
    ({
      noticeId: updateId,
      kind: 'account_update',
      merchantId: MID,
      objectId: card.token,
      sequence: Date.parse(at),
      occurredAt: at,
      update: { updateId, token: card.token, at, ...update },
    }) as ProcessorNotice;
  const older = new Date(Date.now() - 60_000).toISOString();
  const newer = new Date().toISOString();
  // The closing, pushed first; the older new expiry (a lost webhook listed late) after it.
  expect(await applyNotice(notice('au_closed', newer, { kind: 'closed' }), later())).toEqual({
    outcome: 'applied',
  });
  const late = notice('au_expiry', older, { kind: 'new_expiry', expiryMonth: 9, expiryYear: YEAR + 2 });
  expect((await applyNotice(late, later())).outcome).toBe('stale');
  expect(await methodOf(card)).toMatchObject({ status: 'closed', expiryMonth: 6, expiryYear: YEAR });
  expect((await eventsOf(card.methodId)).map((e) => e.type)).toEqual(['payment_method.account_updated']);
});
