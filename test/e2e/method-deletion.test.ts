/**
 * Safe method deletion over HTTP (issue 21 item 1; DESIGN section 5 "The card lifecycle"): a
 * method that pending payments use is refused with 409 naming them; `?replaceWith=` moves them to
 * another method of the payor and deletes the method. A crash in the middle of a move (the local
 * fault `crashMethodMove`) leaves no payment on a deleted method, and the sweeper finishes the move;
 * each crash point is also proven on DynamoDB Local (test/integration/method-deletion.test.ts).
 */
import { baseUrl, call, MID } from '#support/api';
import { expectRefusal } from '#support/refusal';
import { cardInput } from '#support/fixtures/index';
import { createPayor, groupBody } from '#support/fixtures/e2e-resources';

const base = `/v1/rest/merchants/${MID}/payors`;
type Payment = { paymentId: string; profileId: string };
type Group = { paymentGroupId: string; payments: Payment[] };

/** A payor with two cards: the default (the one the payments use) and another. */
async function payorWithTwoCards() {
  const payor = await createPayor();
  const added = await call<{ savedPaymentMethodId: string }>(
    'POST',
    `${base}/${payor.payorId}/savedPaymentMethods`,
    cardInput({ cardNumber: '5555555555554444', accountType: 'MASTERCARD' }),
  );
  expect(added.status).toBe(201);
  return {
    payorId: payor.payorId,
    used: payor.defaultPaymentMethodId,
    other: added.body.savedPaymentMethodId,
  };
}

async function groupOn(profileId: string, count: number): Promise<Group> {
  const res = await call<Group>(
    'POST',
    `/rest/merchants/${MID}/groups`,
    groupBody({ payments: Array.from({ length: count }, (_, i) => ({ profileId, amount: 10 + i })) }),
  );
  expect(res.status).toBe(201);
  return res.body;
}

const paymentsOf = async (groupId: string) =>
  (await call<Payment[]>('GET', `/rest/merchants/${MID}/groups/${groupId}/payments`)).body;

describe('deleting a saved method that pending payments use', () => {
  test('409 naming the payments; nothing changes; the payor cannot be deleted either', async () => {
    const { payorId, used } = await payorWithTwoCards();
    const group = await groupOn(`${payorId}/${used}`, 3);
    const deletedOne = group.payments[2]!.paymentId;
    expect(
      (await call('DELETE', `/rest/merchants/${MID}/groups/${group.paymentGroupId}/payments/${deletedOne}`))
        .status,
    ).toBe(204);

    const res = await call<{ message: string; responseCode: number; payments: unknown[]; series: unknown[] }>(
      'DELETE',
      `${base}/${payorId}/savedPaymentMethods/${used}`,
    );
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      message: expect.stringMatching(/used by 2 pending payment\(s\).*replaceWith/),
      responseCode: 409,
      payments: expect.arrayContaining(
        group.payments
          .slice(0, 2)
          .map((p) => ({ paymentGroupId: group.paymentGroupId, paymentId: p.paymentId })),
      ),
      series: [],
    });
    expect(res.body.payments).toHaveLength(2);
    expect((await call('GET', `${base}/${payorId}/savedPaymentMethods/${used}`)).status).toBe(200);

    const payor = await call<{ payments: unknown[] }>('DELETE', `${base}/${payorId}`);
    expect(payor.status).toBe(409);
    expect(payor.body.payments).toHaveLength(2);
    expect((await call('GET', `${base}/${payorId}`)).status).toBe(200);
  });

  test('?replaceWith moves the payments to the other method and deletes the method', async () => {
    const { payorId, used, other } = await payorWithTwoCards();
    const group = await groupOn(`${payorId}/${used}`, 40);

    const res = await call('DELETE', `${base}/${payorId}/savedPaymentMethods/${used}?replaceWith=${other}`);
    expect(res.status).toBe(204);
    expect((await call('GET', `${base}/${payorId}/savedPaymentMethods/${used}`)).status).toBe(404);
    const moved = await paymentsOf(group.paymentGroupId);
    expect(moved).toHaveLength(40);
    for (const p of moved) expect(p.profileId).toBe(`${payorId}/${other}`);
    // The replacement became the default.
    const payor = await call<{ defaultPaymentMethodId: string }>('GET', `${base}/${payorId}`);
    expect(payor.body.defaultPaymentMethodId).toBe(other);
  });

  test('a crash after the first moves: every payment names a method that exists, the method takes no new payment, and the sweeper finishes the move', async () => {
    const { payorId, used, other } = await payorWithTwoCards();
    const group = await groupOn(`${payorId}/${used}`, 40);
    const fault = await fetch(`${baseUrl()}/__local/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ crashMethodMove: [used] }),
    });
    expect(fault.status).toBe(200);

    const crashed = await call(
      'DELETE',
      `${base}/${payorId}/savedPaymentMethods/${used}?replaceWith=${other}`,
    );
    expect(crashed.status).toBeGreaterThanOrEqual(500);
    const profiles = (await paymentsOf(group.paymentGroupId)).map((p) => p.profileId);
    const movedFirst = profiles.filter((p) => p === `${payorId}/${other}`).length;
    expect(movedFirst).toBeGreaterThan(0);
    expect(movedFirst).toBeLessThan(40);
    expect(profiles.filter((p) => p === `${payorId}/${used}`)).toHaveLength(40 - movedFirst);
    expect((await call('GET', `${base}/${payorId}/savedPaymentMethods/${used}`)).status).toBe(200);
    // The method being deleted takes no new payment meanwhile.
    const added = await call('POST', `/rest/merchants/${MID}/groups/${group.paymentGroupId}/payments`, {
      profileId: `${payorId}/${used}`,
      amount: 5,
    });
    expect(added.status).toBeGreaterThanOrEqual(400);
    expect(added.status).toBeLessThan(500);

    const swept = await fetch(`${baseUrl()}/__local/events/sweep`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ olderThanSeconds: 0 }),
    });
    expect(swept.status).toBe(200);
    expect(((await swept.json()) as { deletions: unknown[] }).deletions).toContainEqual({
      payorId,
      methodIds: [used],
      result: 'deleted',
    });
    expect((await call('GET', `${base}/${payorId}/savedPaymentMethods/${used}`)).status).toBe(404);
    const moved = await paymentsOf(group.paymentGroupId);
    expect(moved).toHaveLength(40);
    for (const p of moved) expect(p.profileId).toBe(`${payorId}/${other}`);
  });

  test('a bad replaceWith is a 400 naming it, and nothing changes', async () => {
    const { payorId, used } = await payorWithTwoCards();
    await groupOn(`${payorId}/${used}`, 1);
    const notUuid = await call('DELETE', `${base}/${payorId}/savedPaymentMethods/${used}?replaceWith=nope`);
    expect(notUuid.status).toBe(400);
    expectRefusal(notUuid.body, 'replaceWith');
    const itself = await call('DELETE', `${base}/${payorId}/savedPaymentMethods/${used}?replaceWith=${used}`);
    expect(itself.status).toBe(400);
    expectRefusal(itself.body, 'replaceWith');
    const elsewhere = await createPayor();
    const foreign = await call(
      'DELETE',
      `${base}/${payorId}/savedPaymentMethods/${used}?replaceWith=${elsewhere.defaultPaymentMethodId}`,
    );
    expect(foreign.status).toBe(400);
    expectRefusal(foreign.body, 'replaceWith');
    expect((await call('GET', `${base}/${payorId}/savedPaymentMethods/${used}`)).status).toBe(200);
  });
});
