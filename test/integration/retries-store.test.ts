/**
 * Issue 19 against DynamoDB Local: the merchant's settings (defaults, changes, 8 writers at once),
 * the card history that the networks' limits count (reserve once, release only while pending, the
 * entry before the window), 8 concurrent retries of one Mastercard card admitted never beyond its
 * 24-hour limit, a group's retry round claimed by exactly one of 8 starters, and the retry of a
 * payment given up on before it was tried decided as for one begun.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { changeMerchantSettings, merchantSettings } from '#core/settings';
import { giveUpBatch } from '#core/batches';
import { newGroup, newPayment } from '#domain/groups';
import type { SavedMethod } from '#domain/payors';
import { emptyTotals, type BatchState } from '#domain/processing';
import { admitRetry } from '#domain/retries';
import { reloadConfigForTests } from '#shared/config';
import { attemptTransactionId, newId } from '#shared/ids';
import { keys } from '#store/keys';
import { cardHistory, type CardUseEntry } from '#store/card-history';
import { claimStore } from '#store/claims';
import { groupStore } from '#store/groups';
import { paymentStore } from '#store/payments';
import { DynamoPayorStore } from '#store/payors';
import { transactionStore } from '#store/transactions';
import { retryRoundStore } from '#store/retry-rounds';
import { makeGroup, makePayor } from '#support/fixtures/index';
import { storedProfile } from '#support/sales';
import { createTestTable, type TestTable } from '#support/ddb';

let table: TestTable;
const MERCHANT = '32350000001';
const HOUR = 3_600_000;

beforeAll(async () => {
  table = await createTestTable();
  Object.assign(process.env, { TABLE_NAME: table.tableName, SERVICE_STAGE: 'dev' });
  reloadConfigForTests();
});
afterAll(async () => {
  await table.drop();
});

describe('merchant settings', () => {
  test('the default is no retries; a change sets the policy with the default interval', async () => {
    const mid = '32350000011';
    expect(await merchantSettings(mid)).toEqual({
      servicePayId: mid,
      retryPolicy: { maxRetries: 0, intervalHours: 24 },
    });
    const now = new Date('2031-01-02T03:04:05.000Z');
    expect(await changeMerchantSettings(mid, { retryPolicy: { maxRetries: 3 } }, now)).toEqual({
      servicePayId: mid,
      retryPolicy: { maxRetries: 3, intervalHours: 24 },
      lastUpdated: now.toISOString(),
    });
    // An empty change changes nothing.
    expect((await changeMerchantSettings(mid, {}, new Date())).retryPolicy).toEqual({
      maxRetries: 3,
      intervalHours: 24,
    });
  });

  test('8 writers at once: the settings read after are one of theirs, whole', async () => {
    const mid = '32350000012';
    const policies = Array.from({ length: 8 }, (_, i) => ({
      maxRetries: (i % 4) + 1,
      intervalHours: 24 + i,
    }));
    await Promise.all(policies.map((p) => changeMerchantSettings(mid, { retryPolicy: p }, new Date())));
    const read = (await merchantSettings(mid)).retryPolicy;
    expect(policies).toContainEqual(read);
  });
});

describe('card history', () => {
  const entry = (at: string, transactionId: string, over: Partial<CardUseEntry> = {}): CardUseEntry => ({
    merchantId: MERCHANT,
    cardKey: 'fp_history',
    at,
    transactionId,
    outcome: 'pending',
    retry: true,
    ...over,
  });

  test('reserve once, release only while pending, and the entry before the window', async () => {
    const history = cardHistory();
    const old = entry('2031-02-01T00:00:00.000Z', 'a', { outcome: 'declined', retry: false });
    const mine = entry('2031-02-10T00:00:00.000Z', 'b');
    await history.reserve(old);
    await history.reserve(mine);
    await history.reserve(mine);
    expect(await history.since(MERCHANT, 'fp_history', '2031-02-05T00:00:00.000Z')).toEqual([
      { at: old.at, outcome: 'declined', retry: false },
      { at: mine.at, outcome: 'pending', retry: true },
    ]);
    // Another merchant's attempts on the same card are not this merchant's.
    expect(await history.since('32350000013', 'fp_history', '2031-01-01T00:00:00.000Z')).toEqual([]);
    await history.release(old);
    await history.release(mine);
    expect(await history.since(MERCHANT, 'fp_history', '2031-01-01T00:00:00.000Z')).toEqual([
      { at: old.at, outcome: 'declined', retry: false },
    ]);
  });

  test('8 retries of one Mastercard card at once, 8 reattempts already in 24 hours: at most 2 made', async () => {
    const history = cardHistory();
    const cardKey = 'fp_mastercard_race';
    const now = new Date('2031-03-01T12:00:00.000Z');
    const at = (h: number) => new Date(now.getTime() - h * HOUR).toISOString();
    await history.reserve(entry(at(10), 'first', { cardKey, outcome: 'declined', retry: false }));
    for (let i = 8; i >= 1; i--)
      await history.reserve(entry(at(i), `r${i}`, { cardKey, outcome: 'declined' }));

    // Each as core/retries.ts admits a retry: its entry first, then the count with it.
    const admitted = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const mine = entry(now.toISOString(), `race-${i}`, { cardKey });
        await history.reserve(mine);
        const refused = admitRetry('MASTERCARD', await history.since(MERCHANT, cardKey, at(24)), now);
        if (refused) await history.release(mine);
        return refused === undefined;
      }),
    );
    const made = admitted.filter(Boolean).length;
    expect(made).toBeLessThanOrEqual(2);
    const after = await history.since(MERCHANT, cardKey, at(24));
    expect(after.filter((u) => u.retry).length).toBe(8 + made);
    expect(admitRetry('MASTERCARD', after, now)).toBeUndefined();
  });
});

/**
 * A stored group of two payments (on a stored method: a create's fence refuses a method that does
 * not exist) whose first processing left it waiting for its retry round at 2031-04-02T11, its
 * status `status`, with the attributes `extra` gives set beside.
 */
async function groupAwaitingRetry(
  status: string,
  extra: (paymentGroupId: string, retrySlot: string) => Record<string, unknown> = () => ({}),
) {
  const profileId = await storedProfile(table, MERCHANT);
  const { group, payments } = makeGroup(2, { merchantId: MERCHANT, scheduleDate: '2031-04-01' });
  await groupStore().createGroup(
    group,
    payments.map((p) => ({ ...p, profileId })),
  );
  const retrySlot = '2031-04-02T11';
  const attributes: Record<string, unknown> = {
    status,
    awaitingRetry: true,
    retrySlot,
    processingAttempt: 1,
    ...extra(group.paymentGroupId, retrySlot),
  };
  const names = Object.keys(attributes);
  await table.db.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: keys.group(group.paymentGroupId),
      UpdateExpression: `SET ${names.map((_, i) => `#a${i} = :a${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((n, i) => [`#a${i}`, n])),
      ExpressionAttributeValues: Object.fromEntries(names.map((n, i) => [`:a${i}`, attributes[n]])),
    }),
  );
  return { group, retrySlot };
}

describe('retry rounds', () => {
  test('of 8 starters of one round exactly one claims it; a released claim waits again', async () => {
    const { group, retrySlot } = await groupAwaitingRetry('processed');
    const target = { paymentGroupId: group.paymentGroupId, retrySlot, processingAttempt: 1 };
    const now = new Date('2031-04-02T11:00:05.000Z');
    const claims = await Promise.all(
      Array.from({ length: 8 }, () => retryRoundStore().claim(target, retrySlot, now)),
    );
    const won = claims.filter((c) => c.claimed);
    expect(won).toHaveLength(1);
    const claimed = await claimStore().read(group.paymentGroupId);
    expect(claimed).toMatchObject({ processingAttempt: 2, retryRound: 1, retryBound: retrySlot });
    expect(claimed?.awaitingRetry).toBeUndefined();
    // Every loser was told the truth: the round is no longer waiting.
    for (const lost of claims.filter((c) => !c.claimed))
      expect(lost).toMatchObject({ claimed: false, group: { paymentGroupId: group.paymentGroupId } });

    await retryRoundStore().release(
      group.paymentGroupId,
      (won[0] as { executionName: string }).executionName,
    );
    expect(await claimStore().read(group.paymentGroupId)).toMatchObject({ awaitingRetry: true, retrySlot });
    const again = await Promise.all(
      Array.from({ length: 8 }, () =>
        retryRoundStore().claim({ ...target, processingAttempt: 2 }, retrySlot, now),
      ),
    );
    expect(again.filter((c) => c.claimed)).toHaveLength(1);
  });

  test("defect: a deleted group's retry round (the round that cancels its retries) whose execution closed early was never re-driven: the group stayed in the due index, its retries scheduled for good", async () => {
    const { group, retrySlot } = await groupAwaitingRetry('deleted', (id, slot) => ({
      executionName: `pg-${id}-1`,
      gsi2sk: keys.dueSort(slot, id),
    }));
    // Waiting for its round: nothing to re-drive.
    const waiting = (await claimStore().read(group.paymentGroupId))!;
    expect(await claimStore().redrive(waiting, new Date())).toBeUndefined();
    // The round claimed (its execution then closes early): re-driven under the next name, once.
    const now = new Date('2031-04-02T11:00:05.000Z');
    const claim = await retryRoundStore().claim(
      { paymentGroupId: group.paymentGroupId, retrySlot, processingAttempt: 1 },
      '9999-12-31T23',
      now,
    );
    expect(claim.claimed).toBe(true);
    const running = (await claimStore().read(group.paymentGroupId))!;
    expect(running).toMatchObject({ status: 'deleted', due: true });
    const redriven = await Promise.all([
      claimStore().redrive(running, now),
      claimStore().redrive(running, now),
    ]);
    expect(redriven.filter((name) => name !== undefined)).toEqual([`pg-${group.paymentGroupId}-3`]);
  });
});

describe('a batch given up on (FailBatch)', () => {
  test("defect: a bank debit the processor's outage left untried was given a retry after its 96 (its record had no account type, so the retry rules took it for a card): not retried, as one begun and given up", async () => {
    const { payor, method } = makePayor(MERCHANT);
    const checking: SavedMethod = { ...method, accountType: 'CHECKING', maskedAccountNumber: '*****6789' };
    delete checking.expiryMonth;
    delete checking.expiryYear;
    await new DynamoPayorStore(table.db, table.tableName).create(payor, checking);
    const now = new Date();
    const group = newGroup(
      { servicePayId: MERCHANT, scheduleDate: '2031-09-01', scheduleHour: 9, locationId: 1 },
      MERCHANT,
      newId(),
      now,
    );
    const payment = newPayment(
      { profileId: `${payor.payorId}/${checking.savedPaymentMethodId}`, amount: 25 },
      group,
      newId(),
      now,
    );
    Object.assign(group, { paymentCount: 1, totalCents: payment.amountCents });
    Object.assign(payment, { sponsorKey: 'SPONSOR-7' });
    await groupStore().createGroup(group, [payment]);
    expect((await claimStore().claim(group, now)).claimed).toBe(true);

    const state: BatchState = {
      paymentGroupId: group.paymentGroupId,
      merchantId: MERCHANT,
      allowPartial: false,
      cursor: null,
      upTo: null,
      totals: emptyTotals(),
      batches: 0,
      retryPolicy: { maxRetries: 2, intervalHours: 24 },
    };
    await giveUpBatch(state, 'ProcessorUnavailable');

    const stored = await paymentStore().getPayment(group.paymentGroupId, payment.paymentId);
    expect(stored!.authResponse).toMatchObject({ status: 'Failed', responseCode: '96' });
    expect(stored!.retry).toMatchObject({ status: 'not_retried', reason: 'network_limit' });
    const { transaction } = (await transactionStore().find(attemptTransactionId(payment.paymentId, 1)))!;
    expect(transaction).toMatchObject({ accountType: 'CHECKING', maskedAccountNumber: '*****6789' });
    // Defect: the record lacked its group and the payor's sponsorKey, which every other scheduled
    // sale's record carries (a transaction's view names its group).
    expect(transaction).toMatchObject({ paymentGroupId: group.paymentGroupId, sponsorKey: 'SPONSOR-7' });
  });
});
