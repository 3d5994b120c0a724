/** Payors and saved methods over HTTP: docs/product.md#payors-and-saved-methods, concurrency too. */
import { randomUUID } from 'node:crypto';
import { call, MID, OTHER, tokenFor } from '#support/api';
import { expectRefusal } from '#support/refusal';
import { address, cardInput, checkingInput, expiry } from '#support/fixtures/index';
import { createPayor, groupBody } from '#support/fixtures/e2e-resources';

const base = `/v1/rest/merchants/${MID}/payors`;
const uniqueId = () => `cust-${randomUUID().slice(0, 8)}`;
type Method = { savedPaymentMethodId: string; isDefault: boolean; maskedAccountNumber: string };

async function methodsOf(payorId: string): Promise<Method[]> {
  const res = await call<Method[]>('GET', `${base}/${payorId}/savedPaymentMethods`);
  expect(res.status).toBe(200);
  return res.body;
}

describe('payors', () => {
  test('create returns the payor with its first method as default, masked', async () => {
    const id = uniqueId();
    const res = await call('POST', base, {
      customerAccountId: id,
      customerAccountType: 'family',
      sponsorKey: 'SPR-2026',
      customerData: { grade: '4' },
      email: 'parent@example.com',
      paymentMethod: cardInput({
        cardNumber: '5555555555554444',
        accountType: 'MASTERCARD',
        customerData: { label: 'work card' },
      }),
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      customerAccountId: id,
      customerAccountType: 'family',
      sponsorKey: 'SPR-2026',
      customerData: { grade: '4' },
      email: 'parent@example.com',
    });
    expect(res.body.savedPaymentMethods).toEqual([
      expect.objectContaining({
        accountType: 'MASTERCARD',
        maskedAccountNumber: '************4444',
        isDefault: true,
        billingAddress: address,
        customerData: { label: 'work card' },
        ...expiry(),
      }),
    ]);
    expect(res.body.defaultPaymentMethodId).toBe(res.body.savedPaymentMethods[0].savedPaymentMethodId);
    expect(res.text).not.toContain('5555555555554444');
    expect(res.text).not.toContain('sbx.');
    const got = await call('GET', `${base}/${res.body.payorId}`);
    expect(got.body).toEqual(res.body);
  });

  test('a CHECKING method needs a valid ABA routing number and has no expiry', async () => {
    const ok = await createPayor({ paymentMethod: checkingInput() });
    expect(ok.savedPaymentMethods[0]).toMatchObject({
      accountType: 'CHECKING',
      maskedAccountNumber: '********6789',
    });
    expect(ok.savedPaymentMethods[0]).not.toHaveProperty('expiryMonth');
    const bad = await call('POST', base, { paymentMethod: checkingInput({ routingNumber: '123456789' }) });
    expect(bad).toMatchObject({ status: 400, body: { message: expect.stringContaining('routingNumber') } });
    const withExpiry = await call('POST', base, {
      paymentMethod: checkingInput({ expiryMonth: 1, expiryYear: 2030 }),
    });
    expect(withExpiry.status).toBe(400);
  });

  test.each([
    [
      'a number failing the Luhn check',
      { paymentMethod: cardInput({ cardNumber: '4111111111111112' }) },
      'cardNumber',
    ],
    ['too few digits', { paymentMethod: cardInput({ cardNumber: '41111111111' }) }, 'cardNumber'],
    [
      'letters in the number',
      { paymentMethod: cardInput({ cardNumber: '4111-1111-1111-1111' }) },
      'cardNumber',
    ],
    [
      'a brand that does not match',
      { paymentMethod: cardInput({ cardNumber: '4111111111111111', accountType: 'AMEX' }) },
      'AMEX',
    ],
    [
      'an unsupported brand',
      { paymentMethod: cardInput({ cardNumber: '3530111333300000', accountType: 'VISA' }) },
      'cardNumber',
    ],
    [
      'an unknown account type',
      { paymentMethod: cardInput({ cardNumber: '4111111111111111', accountType: 'DINERS' }) },
      'accountType',
    ],
    ['an expired card', { paymentMethod: { ...cardInput(), expiryMonth: 1, expiryYear: 2020 } }, 'past'],
    ['month 13', { paymentMethod: { ...cardInput(), expiryMonth: 13 } }, 'expiryMonth'],
    [
      'no billing address',
      { paymentMethod: { ...cardInput(), billingAddress: undefined } },
      'billingAddress',
    ],
    ['no payment method', { paymentMethod: undefined }, 'paymentMethod'],
    ['customerAccountId over 50', { customerAccountId: 'x'.repeat(51) }, 'customerAccountId'],
    ['customerAccountType over 50', { customerAccountType: 'x'.repeat(51) }, 'customerAccountType'],
    ['sponsorKey over 8', { sponsorKey: '123456789' }, 'sponsorKey'],
    ['customerData with a number', { customerData: { a: 1 } }, 'customerData.a'],
    ['a bad e-mail', { email: 'not-an-email' }, 'email'],
  ])('refuses %s with 400 naming the field', async (_what, body, word) => {
    const res = await call('POST', base, { paymentMethod: cardInput(), ...body });
    expect(res.status).toBe(400);
    expectRefusal(res.body, word);
    expect(res.text).not.toMatch(/\d{12,}/);
  });

  test('customerAccountId is unique per merchant and searchable, alone or in bulk', async () => {
    const id = uniqueId();
    const first = await createPayor({ customerAccountId: id });
    const second = await call('POST', base, { customerAccountId: id, paymentMethod: cardInput() });
    expect(second).toMatchObject({ status: 400, body: { message: expect.stringContaining(id) } });
    const found = await call('GET', `${base}?customerAccountId=${id}`);
    expect(found.body.map((p: { payorId: string }) => p.payorId)).toEqual([first.payorId]);
    expect((await call('GET', `${base}?customerAccountId=nobody-${id}`)).body).toEqual([]);
    expect((await call('GET', base)).status).toBe(400);
    const other = await createPayor({ customerAccountId: `${id}-b` });
    const bulk = await call('POST', `${base}/search`, { customerAccountIds: [`${id}-b`, 'missing', id] });
    expect(bulk.body.map((p: { payorId: string }) => p.payorId)).toEqual([other.payorId, first.payorId]);
    expect((await call('POST', `${base}/search`, { customerAccountIds: Array(101).fill('x') })).status).toBe(
      400,
    );
    // Another merchant may use the same customerAccountId.
    const otherToken = await tokenFor(OTHER);
    const elsewhere = await call(
      'POST',
      '/v1/rest/merchants/32350000002/payors',
      { customerAccountId: id, paymentMethod: cardInput() },
      { token: otherToken },
    );
    expect(elsewhere.status).toBe(201);
  });

  test('two parallel creates with one customerAccountId: one 201, one 400', async () => {
    for (let round = 0; round < 5; round++) {
      const id = uniqueId();
      const results = await Promise.all(
        [0, 1].map(() => call('POST', base, { customerAccountId: id, paymentMethod: cardInput() })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 400]);
      expect((await call('GET', `${base}?customerAccountId=${id}`)).body).toHaveLength(1);
    }
  });

  test('update changes fields and moves customerAccountId; delete removes the payor', async () => {
    const id = uniqueId();
    const payor = await createPayor({ customerAccountId: id, email: 'a@example.com' });
    const updated = await call('PUT', `${base}/${payor.payorId}`, {
      customerAccountId: `${id}-new`,
      email: 'b@example.com',
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ customerAccountId: `${id}-new`, email: 'b@example.com' });
    expect((await call('GET', `${base}?customerAccountId=${id}`)).body).toEqual([]);
    expect((await call('GET', `${base}?customerAccountId=${id}-new`)).body).toHaveLength(1);
    // The old id is free again.
    await createPayor({ customerAccountId: id });
    const taken = await call('PUT', `${base}/${payor.payorId}`, { customerAccountId: id });
    expect(taken.status).toBe(400);
    expect((await call('DELETE', `${base}/${payor.payorId}`)).status).toBe(204);
    expect((await call('GET', `${base}/${payor.payorId}`)).status).toBe(404);
    expect((await call('GET', `${base}?customerAccountId=${id}-new`)).body).toEqual([]);
  });

  test('a payor of another merchant is 404', async () => {
    const otherToken = await tokenFor(OTHER);
    const res = await call(
      'POST',
      '/v1/rest/merchants/32350000002/payors',
      { paymentMethod: cardInput() },
      { token: otherToken },
    );
    expect((await call('GET', `${base}/${res.body.payorId}`)).status).toBe(404);
    expect((await call('GET', `${base}/${res.body.payorId}/savedPaymentMethods`)).status).toBe(404);
  });
});

describe('saved payment methods', () => {
  test('the five rules: one default; adding keeps it unless setAsDefault; setting moves it; the only method stays; deleting the default promotes another', async () => {
    const payor = await createPayor();
    const first = payor.defaultPaymentMethodId;
    const added = await call(
      'POST',
      `${base}/${payor.payorId}/savedPaymentMethods`,
      cardInput({ cardNumber: '378282246310005', accountType: 'AMEX' }),
    );
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({
      isDefault: false,
      maskedAccountNumber: '***********0005',
      payorId: payor.payorId,
    });
    const third = await call('POST', `${base}/${payor.payorId}/savedPaymentMethods`, {
      ...cardInput({ cardNumber: '6011111111111117', accountType: 'DISCOVER' }),
      setAsDefault: true,
      customerData: { nick: 'disc' },
    });
    expect(third.body).toMatchObject({ isDefault: true, customerData: { nick: 'disc' } });
    let methods = await methodsOf(payor.payorId);
    expect(methods.filter((m) => m.isDefault).map((m) => m.savedPaymentMethodId)).toEqual([
      third.body.savedPaymentMethodId,
    ]);

    const made = await call('PUT', `${base}/${payor.payorId}/savedPaymentMethods/${first}`, {
      setAsDefault: true,
    });
    expect(made.body.isDefault).toBe(true);
    methods = await methodsOf(payor.payorId);
    expect(methods.filter((m) => m.isDefault).map((m) => m.savedPaymentMethodId)).toEqual([first]);

    expect((await call('DELETE', `${base}/${payor.payorId}/savedPaymentMethods/${first}`)).status).toBe(204);
    methods = await methodsOf(payor.payorId);
    expect(methods).toHaveLength(2);
    expect(methods.filter((m) => m.isDefault)).toHaveLength(1);
    expect((await call('GET', `${base}/${payor.payorId}`)).body.defaultPaymentMethodId).toBe(
      methods.find((m) => m.isDefault)!.savedPaymentMethodId,
    );

    await call('DELETE', `${base}/${payor.payorId}/savedPaymentMethods/${methods[0]!.savedPaymentMethodId}`);
    const last = (await methodsOf(payor.payorId))[0]!;
    expect(last.isDefault).toBe(true);
    const refused = await call(
      'DELETE',
      `${base}/${payor.payorId}/savedPaymentMethods/${last.savedPaymentMethodId}`,
    );
    expect(refused).toMatchObject({ status: 400, body: { message: expect.stringContaining('only') } });
    expect(await methodsOf(payor.payorId)).toHaveLength(1);
  });

  test('update expiry and billing address; expiry only for cards and not in the past', async () => {
    const payor = await createPayor();
    const mid = payor.defaultPaymentMethodId;
    const year = new Date().getUTCFullYear() + 3;
    const res = await call('PUT', `${base}/${payor.payorId}/savedPaymentMethods/${mid}`, {
      expiryMonth: 6,
      expiryYear: year,
      billingAddress: { ...address, city: 'Shelbyville' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      expiryMonth: 6,
      expiryYear: year,
      billingAddress: { city: 'Shelbyville' },
    });
    expect((await call('GET', `${base}/${payor.payorId}/savedPaymentMethods/${mid}`)).body).toEqual(res.body);
    expect(
      (
        await call('PUT', `${base}/${payor.payorId}/savedPaymentMethods/${mid}`, {
          expiryMonth: 1,
          expiryYear: 2021,
        })
      ).status,
    ).toBe(400);
    const bank = await call('POST', `${base}/${payor.payorId}/savedPaymentMethods`, checkingInput());
    const noExpiry = await call(
      'PUT',
      `${base}/${payor.payorId}/savedPaymentMethods/${bank.body.savedPaymentMethodId}`,
      { expiryMonth: 1, expiryYear: year },
    );
    expect(noExpiry).toMatchObject({ status: 400, body: { message: expect.stringContaining('cards only') } });
    expect(
      (
        await call('PUT', `${base}/${payor.payorId}/savedPaymentMethods/${mid}`, {
          cardNumber: '4111111111111111',
        })
      ).status,
    ).toBe(400);
    expect(
      (await call('GET', `${base}/${payor.payorId}/savedPaymentMethods/0190f0a0-0000-7000-8000-000000000000`))
        .status,
    ).toBe(404);
  });

  test('10 parallel setAsDefault calls leave exactly one default, also mixed with adds', async () => {
    const payor = await createPayor();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++)
      ids.push(
        (await call('POST', `${base}/${payor.payorId}/savedPaymentMethods`, cardInput())).body
          .savedPaymentMethodId,
      );
    const results = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) =>
        call('PUT', `${base}/${payor.payorId}/savedPaymentMethods/${ids[i % 4]}`, { setAsDefault: true }),
      ),
      ...Array.from({ length: 5 }, () =>
        call('POST', `${base}/${payor.payorId}/savedPaymentMethods`, { ...cardInput(), setAsDefault: true }),
      ),
    ]);
    expect(results.every((r) => r.status === 200 || r.status === 201)).toBe(true);
    const methods = await methodsOf(payor.payorId);
    expect(methods).toHaveLength(10);
    expect(methods.filter((m) => m.isDefault)).toHaveLength(1);
  });

  test('parallel deletes never remove the last method and always leave one default', async () => {
    const payor = await createPayor();
    for (let i = 0; i < 3; i++)
      await call('POST', `${base}/${payor.payorId}/savedPaymentMethods`, cardInput());
    const all = await methodsOf(payor.payorId);
    const results = await Promise.all(
      all.map((m) =>
        call('DELETE', `${base}/${payor.payorId}/savedPaymentMethods/${m.savedPaymentMethodId}`),
      ),
    );
    expect(results.filter((r) => r.status === 204)).toHaveLength(3);
    expect(results.filter((r) => r.status === 400)).toHaveLength(1);
    const left = await methodsOf(payor.payorId);
    expect(left).toHaveLength(1);
    expect(left[0]!.isDefault).toBe(true);
  });
});

describe('scheduled payments name saved methods of the same merchant', () => {
  test('create, add and update refuse a profileId that is not a saved method of this merchant', async () => {
    const payor = await createPayor();
    const good = `${payor.payorId}/${payor.defaultPaymentMethodId}`;
    const otherToken = await tokenFor(OTHER);
    const foreign = (
      await call(
        'POST',
        '/v1/rest/merchants/32350000002/payors',
        { paymentMethod: cardInput() },
        { token: otherToken },
      )
    ).body;
    const foreignProfile = `${foreign.payorId}/${foreign.defaultPaymentMethodId}`;
    const ghost = `${payor.payorId}/0190f0a0-0000-7000-8000-000000000000`;
    for (const bad of [foreignProfile, ghost]) {
      const res = await call(
        'POST',
        `/rest/merchants/${MID}/groups`,
        groupBody({
          payments: [
            { profileId: good, amount: 1 },
            { profileId: bad, amount: 2 },
          ],
        }),
      );
      expect(res).toMatchObject({
        status: 400,
        body: { message: expect.stringContaining('payments[1].profileId') },
      });
    }
    const group = (
      await call(
        'POST',
        `/rest/merchants/${MID}/groups`,
        groupBody({ payments: [{ profileId: good, amount: 1 }] }),
      )
    ).body;
    const gid = group.paymentGroupId;
    expect(
      (
        await call('POST', `/rest/merchants/${MID}/groups/${gid}/payments`, {
          paymentGroupId: gid,
          profileId: ghost,
          amount: 1,
        })
      ).status,
    ).toBe(400);
    const pid = group.payments[0].paymentId;
    expect(
      (
        await call('PUT', `/rest/merchants/${MID}/groups/${gid}/payments/${pid}`, {
          paymentId: pid,
          paymentGroupId: gid,
          profileId: foreignProfile,
          amount: 1,
        })
      ).status,
    ).toBe(400);
    expect((await call('GET', `/rest/merchants/${MID}/groups/${gid}`)).body).toMatchObject({
      paymentCount: 1,
      totalAmount: 1,
    });
  });
});
