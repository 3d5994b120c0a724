/**
 * Void-or-refund of processed groups over HTTP (docs/product.md#void-or-refund): a pending group's
 * payments skipped; before settlement approved payments voided, after it refunded; `paymentIds`;
 * repeats and racing calls reversing nothing twice. The background run of a large group is in
 * void-or-refund-background.test.ts.
 *
 * The runtime is shared with the other e2e files: this file's groups are scheduled far in the
 * future and triggered explicitly, and assertions are about them only.
 */
import { randomUUID } from 'node:crypto';
import { call, MID } from '#support/api';
import { aProfile } from '#support/fixtures/e2e-resources';
import {
  closeLocalTable,
  createdGroupIds,
  createGroup,
  expectExecutionsOfGroupsSucceeded,
  farFutureDate,
  groupPath,
  ledger,
  payments,
  paymentIdsOf,
  paymentsById,
  trigger,
  waitForStatus,
  type Json,
} from '#support/processing';
import { sleep } from '#shared/clock';

const transactionPath = (transactionId: string) => `/v1/rest/merchants/${MID}/transactions/${transactionId}`;
const voidOrRefund = (groupId: string, body?: unknown) =>
  call<Json>('POST', `${groupPath(groupId)}/void-or-refund`, body);

afterAll(() => closeLocalTable());

describe('void-or-refund', () => {
  /** Triggers a group and waits for it; returns its payments by id. */
  async function process(groupId: string): Promise<Map<string, Json>> {
    expect((await trigger(groupId)).body.totalTriggered).toBe(1);
    await waitForStatus(groupId, 'processed');
    return paymentsById(groupId);
  }

  // Groups for the after-settlement cases, processed first so that they settle meanwhile.
  let settling: Promise<{ group: Json; byId: Map<string, Json> }>;
  let racing: Promise<{ group: Json; byId: Map<string, Json> }>;
  beforeAll(() => {
    racing = (async () => {
      const [p1, p2] = await Promise.all([aProfile(), aProfile()]);
      const group = await createGroup({
        scheduleDate: farFutureDate(129),
        payments: [
          { profileId: p1, amount: 61 },
          { profileId: p2, amount: 62 },
        ],
      });
      return { group, byId: await process(group.paymentGroupId) };
    })();
    racing.catch(() => undefined);
    settling = (async () => {
      const [p1, p2, p3] = await Promise.all([
        aProfile(),
        aProfile('4000000000000077'),
        aProfile('4000000000000002'),
      ]);
      const group = await createGroup({
        scheduleDate: farFutureDate(126),
        payments: [
          { profileId: p1, amount: 25 },
          { profileId: p2, amount: 80, allowPartial: true },
          { profileId: p3, amount: 27 },
        ],
      });
      return { group, byId: await process(group.paymentGroupId) };
    })();
    settling.catch(() => undefined);
  });

  test('on a pending group every payment is skipped', async () => {
    const [p1, p2] = await Promise.all([aProfile(), aProfile()]);
    const group = await createGroup({
      scheduleDate: farFutureDate(127),
      payments: [
        { profileId: p1, amount: 5 },
        { profileId: p2, amount: 6 },
      ],
    });
    const res = await voidOrRefund(group.paymentGroupId);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      paymentGroupId: group.paymentGroupId,
      voidedCount: 0,
      refundedCount: 0,
      skippedCount: 2,
      failedCount: 0,
    });
    expect((res.body.payments as Json[]).map((p) => p.outcome)).toEqual(['skipped', 'skipped']);
    for (const payment of await payments(group.paymentGroupId)) {
      expect(payment.authResponse).toBeNull();
      expect(payment).not.toHaveProperty('voidOrRefundResponses');
    }
  });

  test('before settlement: approved payments are voided, others skipped; a repeat reverses nothing', async () => {
    let group: Json;
    let byId: Map<string, Json>;
    for (let attempt = 1; ; attempt++) {
      // Fresh profiles each time: the same amount on the same method would be a duplicate.
      const [p1, p2, p3] = await Promise.all([aProfile(), aProfile('4000000000000002'), aProfile()]);
      group = await createGroup({
        scheduleDate: farFutureDate(128),
        payments: [
          { profileId: p1, amount: 40 },
          { profileId: p2, amount: 41 },
          { profileId: p3, amount: 42 },
        ],
      });
      expect(
        (await call('DELETE', `${groupPath(group.paymentGroupId)}/payments/${group.payments[2].paymentId}`))
          .status,
      ).toBe(204);
      byId = await process(group.paymentGroupId);
      const settles = Date.parse(byId.get(group.payments[0].paymentId)!.authResponse.settlementTime);
      if (settles - Date.now() >= 2_000) break;
      if (attempt === 4) throw new Error('no group processed at least 2 s before a settlement cut-off');
      await sleep(settles - Date.now() + 200);
    }
    const id = group.paymentGroupId as string;
    const [approvedId, declinedId, deletedId] = paymentIdsOf(group, 3);
    const transactionId = byId.get(approvedId)!.authResponse.transactionId as string;

    const res = await voidOrRefund(id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      paymentGroupId: id,
      voidedCount: 1,
      refundedCount: 0,
      skippedCount: 2,
      failedCount: 0,
    });
    const outcomes = new Map((res.body.payments as Json[]).map((p) => [p.paymentId, p.outcome]));
    expect(Object.fromEntries(outcomes)).toEqual({
      [approvedId]: 'voided',
      [declinedId]: 'skipped',
      [deletedId]: 'skipped',
    });

    const after = await paymentsById(id);
    const expectedVoid = {
      type: 'Void',
      transactionId,
      status: 'Voided',
      amount: 40,
      responseCode: '00',
      responseMessage: expect.any(String),
      date: expect.any(String),
    };
    expect(after.get(approvedId)!.voidOrRefundResponses).toEqual([expectedVoid]);
    expect(after.get(declinedId)).not.toHaveProperty('voidOrRefundResponses');
    expect(after.get(deletedId)).not.toHaveProperty('voidOrRefundResponses');
    expect((await call('GET', transactionPath(transactionId))).body).toMatchObject({
      status: 'Voided',
      availableRefundAmount: 0,
    });

    const again = await voidOrRefund(id);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ voidedCount: 0, refundedCount: 0, skippedCount: 3, failedCount: 0 });
    expect((await paymentsById(id)).get(approvedId)!.voidOrRefundResponses).toEqual([expectedVoid]);
    expect((await call('GET', transactionPath(transactionId))).body).toMatchObject({
      status: 'Voided',
      refundCount: 0,
      refundHistory: [],
    });
    expect((await ledger('VOID', `void:${transactionId}`))?.calls).toBe(1);
  });

  test('after settlement: approved amounts are refunded; paymentIds picks payments; a repeat refunds nothing', async () => {
    const { group, byId } = await settling;
    const id = group.paymentGroupId as string;
    const [fullId, partialId, declinedId] = paymentIdsOf(group, 3);
    const full = byId.get(fullId)!.authResponse as Json;
    const partial = byId.get(partialId)!.authResponse as Json;
    expect(partial).toMatchObject({ status: 'Approved', approvedAmount: 50 });
    const settles = Math.max(Date.parse(full.settlementTime), Date.parse(partial.settlementTime));
    await sleep(Math.max(0, settles - Date.now()) + 300);

    const unknown = await voidOrRefund(id, { paymentIds: [randomUUID()] });
    expect(unknown).toMatchObject({ status: 400, body: { responseCode: 400 } });
    expect((await paymentsById(id)).get(fullId)).not.toHaveProperty('voidOrRefundResponses');

    const one = await voidOrRefund(id, { paymentIds: [fullId] });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ voidedCount: 0, refundedCount: 1, skippedCount: 0, failedCount: 0 });
    expect(one.body.payments).toEqual([expect.objectContaining({ paymentId: fullId, outcome: 'refunded' })]);
    let now = await paymentsById(id);
    expect(now.get(fullId)!.voidOrRefundResponses).toEqual([
      expect.objectContaining({ type: 'Refund', status: 'Completed', amount: 25, responseCode: '00' }),
    ]);
    expect(now.get(partialId)).not.toHaveProperty('voidOrRefundResponses');

    const rest = await voidOrRefund(id);
    expect(rest.body).toMatchObject({ voidedCount: 0, refundedCount: 1, skippedCount: 2, failedCount: 0 });
    now = await paymentsById(id);
    expect(now.get(partialId)!.voidOrRefundResponses).toEqual([
      expect.objectContaining({ type: 'Refund', status: 'Completed', amount: 50 }),
    ]);
    expect(now.get(declinedId)).not.toHaveProperty('voidOrRefundResponses');
    expect((await call('GET', transactionPath(full.transactionId))).body).toMatchObject({
      status: 'Approved',
      refundedAmount: 25,
      availableRefundAmount: 0,
      refundCount: 1,
    });
    expect((await call('GET', transactionPath(partial.transactionId))).body).toMatchObject({
      refundedAmount: 50,
      availableRefundAmount: 0,
      refundCount: 1,
    });

    const repeat = await voidOrRefund(id);
    expect(repeat.body).toMatchObject({ voidedCount: 0, refundedCount: 0, skippedCount: 3, failedCount: 0 });
    const final = await paymentsById(id);
    for (const paymentId of [fullId, partialId]) {
      const responses = final.get(paymentId)!.voidOrRefundResponses as Json[];
      expect(responses).toHaveLength(1);
      expect((await ledger('REFUND', `refund:${responses[0]!.transactionId}`))?.calls).toBe(1);
    }
    expect((await call('GET', transactionPath(full.transactionId))).body).toMatchObject({
      refundCount: 1,
      refundedAmount: 25,
    });
  });

  test('racing void-or-refund calls after settlement refund each payment once', async () => {
    const { group, byId } = await racing;
    const id = group.paymentGroupId as string;
    const auths = [...byId.values()].map((p) => p.authResponse as Json);
    const settles = Math.max(...auths.map((a) => Date.parse(a.settlementTime)));
    await sleep(Math.max(0, settles - Date.now()) + 300);

    const results = await Promise.all(Array.from({ length: 10 }, () => voidOrRefund(id)));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    for (const r of results) expect(r.body.voidedCount).toBe(0);
    const after = await paymentsById(id);
    for (const [paymentId, before] of byId) {
      const responses = after.get(paymentId)!.voidOrRefundResponses as Json[];
      expect(responses).toEqual([
        expect.objectContaining({ type: 'Refund', status: 'Completed', amount: before.amount }),
      ]);
      expect((await call('GET', transactionPath(before.authResponse.transactionId))).body).toMatchObject({
        refundCount: 1,
        refundedAmount: before.amount,
        availableRefundAmount: 0,
      });
      const outcomes = results.map(
        (r) => (r.body.payments as Json[]).find((p) => p.paymentId === paymentId)!.outcome,
      );
      expect(outcomes).toContain('refunded');
    }
  });
});

describe('the executions of this file', () => {
  test('every execution ends SUCCEEDED (after its settlement wait), at most one per group', async () => {
    await expectExecutionsOfGroupsSucceeded(createdGroupIds, 3);
  });
});
