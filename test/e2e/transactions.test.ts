/** Sales, voids and refunds over HTTP with the three built-in protections. */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { call, MID, OTHER, OTHER_MID, tokenFor } from '#support/api';
import { localTable } from '#support/processing';
import { cardInput, checkingInput } from '#support/fixtures/index';
import { aProfile, createPayor } from '#support/fixtures/e2e-resources';
import { earlyInSettlementPeriod, pastCutoff, unsettledSale } from '#support/settlement-timing';

const base = `/v1/rest/merchants/${MID}/transactions`;
type Txn = Record<string, any>;

const sale = (body: Record<string, unknown>) => call<Txn>('POST', base, body);

/**
 * The approved sales that the refund tests need settled, made as the file starts: their cut-off
 * passes while the tests before them run, so that the file waits out one cut-off for them (at most
 * what is left of it when the first of those tests starts), not one in each test.
 */
const toSettle = { afterSale: 30, partialRefunds: 100, parallelRefunds: 50, keyedRefund: 20 };
const settling = {} as Record<keyof typeof toSettle, Txn>;
beforeAll(async () => {
  for (const [name, amount] of Object.entries(toSettle) as [keyof typeof toSettle, number][]) {
    const made = await sale({ profileId: await aProfile(), amount });
    if (made.status !== 201 || made.body.status !== 'Approved')
      throw new Error(`the sale of ${amount} to settle: ${made.status} ${made.text}`);
    settling[name] = made.body;
  }
});

describe('sales', () => {
  test('an approved sale carries every protection field', async () => {
    const profileId = await aProfile();
    // Not about to settle: the GET below must read `settled: false` too.
    await earlyInSettlementPeriod(3_000);
    const res = await sale({ profileId, amount: 25.5, orderId: 'INV-9' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      type: 'sale',
      status: 'Approved',
      responseCode: '00',
      isDuplicate: false,
      amount: 25.5,
      approvedAmount: 25.5,
      originalAmount: 25.5,
      refundedAmount: 0,
      availableRefundAmount: 25.5,
      refundCount: 0,
      refundHistory: [],
      profileId,
      accountType: 'VISA',
      maskedAccountNumber: '************1111',
      orderId: 'INV-9',
      settled: false,
    });
    expect(res.body.transactionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body).not.toHaveProperty('declineCategory');
    const got = await call('GET', `${base}/${res.body.transactionId}`);
    expect(got.body).toEqual(res.body);
  });

  test("defect: sponsorKey never appeared on payment records; a sale carries its payor's", async () => {
    const payor = await createPayor({ sponsorKey: 'SPR-2026' });
    const res = await sale({ profileId: `${payor.payorId}/${payor.defaultPaymentMethodId}`, amount: 4 });
    expect(res.status).toBe(201);
    expect(res.body.sponsorKey).toBe('SPR-2026');
    expect((await call<Txn>('GET', `${base}/${res.body.transactionId}`)).body.sponsorKey).toBe('SPR-2026');
    expect((await sale({ profileId: await aProfile(), amount: 4 })).body).not.toHaveProperty('sponsorKey');
  });

  test.each([
    ['4111111111111111', 'VISA', 'Approved', '00', undefined],
    ['5555555555554444', 'MASTERCARD', 'Approved', '00', undefined],
    ['378282246310005', 'AMEX', 'Approved', '00', undefined],
    ['6011111111111117', 'DISCOVER', 'Approved', '00', undefined],
    ['4000000000000002', 'VISA', 'Declined', '05', '1'],
    ['4000000000009987', 'VISA', 'Declined', '41', '1'],
    ['4000000000009979', 'VISA', 'Declined', '43', '1'],
    ['4000000000000069', 'VISA', 'Declined', '54', '1'],
    ['4000000000000127', 'VISA', 'Declined', 'N7', '1'],
    ['4000000000009995', 'VISA', 'Declined', '51', '2'],
    ['4000000000000119', 'VISA', 'Declined', '91', '2'],
    ['4000000000006975', 'VISA', 'Declined', '61', '2'],
  ])('card %s (%s): %s %s, category %s', async (card, type, status, code, category) => {
    const res = await sale({ profileId: await aProfile(card, type), amount: 10 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status, responseCode: code, isDuplicate: false });
    if (category) {
      expect(res.body).toMatchObject({
        declineCategory: category,
        declineCategoryDescription: expect.stringMatching(category === '1' ? /not retry/i : /may retry/i),
        approvedAmount: 0,
        availableRefundAmount: 0,
      });
    } else {
      expect(res.body).not.toHaveProperty('declineCategory');
    }
  });

  test('the partial-approval card: up to 50.00, partial only with allowPartial', async () => {
    const profileId = await aProfile('4000000000000077');
    expect((await sale({ profileId, amount: 50 })).body).toMatchObject({
      status: 'Approved',
      approvedAmount: 50,
    });
    const partial = await sale({ profileId, amount: 80, allowPartial: true });
    expect(partial.body).toMatchObject({
      status: 'Approved',
      responseCode: '10',
      amount: 80,
      approvedAmount: 50,
      originalAmount: 50,
      availableRefundAmount: 50,
    });
    const refused = await sale({ profileId, amount: 80.01 });
    expect(refused.body).toMatchObject({ status: 'Declined', responseCode: '51', declineCategory: '2' });
  });

  test('CHECKING methods approve', async () => {
    const payor = await createPayor({ paymentMethod: checkingInput() });
    const res = await sale({ profileId: `${payor.payorId}/${payor.defaultPaymentMethodId}`, amount: 99.99 });
    expect(res.body).toMatchObject({
      status: 'Approved',
      accountType: 'CHECKING',
      maskedAccountNumber: '********6789',
    });
  });

  test('a sale needs a saved method of this merchant', async () => {
    const other = await tokenFor(OTHER);
    const foreign = await createPayor({}, OTHER_MID, other);
    const res = await sale({ profileId: `${foreign.payorId}/${foreign.defaultPaymentMethodId}`, amount: 1 });
    expect(res).toMatchObject({ status: 400, body: { message: expect.stringContaining('profileId') } });
    expect((await sale({ profileId: 'nope', amount: 1 })).status).toBe(400);
    expect((await sale({ profileId: await aProfile(), amount: 1.001 })).status).toBe(400);
  });
});

describe('duplicate check', () => {
  test('same amount and method again: Declined 19, isDuplicate, originalTransactionId', async () => {
    const profileId = await aProfile();
    const first = await sale({ profileId, amount: 12 });
    const again = await sale({ profileId, amount: 12 });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({
      status: 'Declined',
      responseCode: '19',
      isDuplicate: true,
      originalTransactionId: first.body.transactionId,
      declineCategory: '1',
      approvedAmount: 0,
    });
    expect(again.body.transactionId).not.toBe(first.body.transactionId);
  });

  test('a different amount, a different method, or after a decline: not a duplicate', async () => {
    const payor = await createPayor();
    const profileId = `${payor.payorId}/${payor.defaultPaymentMethodId}`;
    await sale({ profileId, amount: 12 });
    expect((await sale({ profileId, amount: 12.01 })).body).toMatchObject({
      status: 'Approved',
      isDuplicate: false,
    });
    const second = await call(
      'POST',
      `/v1/rest/merchants/${MID}/payors/${payor.payorId}/savedPaymentMethods`,
      cardInput(),
    );
    expect(
      (await sale({ profileId: `${payor.payorId}/${second.body.savedPaymentMethodId}`, amount: 12 })).body
        .isDuplicate,
    ).toBe(false);
    const declining = await aProfile('4000000000009995');
    expect((await sale({ profileId: declining, amount: 7 })).body.responseCode).toBe('51');
    expect((await sale({ profileId: declining, amount: 7 })).body).toMatchObject({
      responseCode: '51',
      isDuplicate: false,
    });
  });

  test('a refund after a sale is not a duplicate sale', async () => {
    const first = settling.afterSale;
    await pastCutoff(first);
    const refund = await call('POST', `${base}/${first.transactionId}/refunds`, { amount: first.amount });
    expect(refund.status).toBe(201);
  });

  test('20 parallel identical sales: exactly one approval', async () => {
    const profileId = await aProfile();
    const results = await Promise.all(Array.from({ length: 20 }, () => sale({ profileId, amount: 42 })));
    expect(results.every((r) => r.status === 201)).toBe(true);
    const approved = results.filter((r) => r.body.status === 'Approved');
    expect(approved).toHaveLength(1);
    const duplicates = results.filter((r) => r.body.isDuplicate);
    expect(duplicates).toHaveLength(19);
    expect(new Set(duplicates.map((d) => d.body.originalTransactionId))).toEqual(
      new Set([approved[0]!.body.transactionId]),
    );
  });
});

describe('idempotencyKey', () => {
  test('a retry with the same key and body returns the first response; a different body is 409', async () => {
    const profileId = await aProfile();
    const key = `order-${randomUUID()}`;
    const first = await sale({ profileId, amount: 5, idempotencyKey: key });
    const retry = await sale({ amount: 5, idempotencyKey: key, profileId });
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.body.isDuplicate).toBe(false);
    const changed = await sale({ profileId, amount: 6, idempotencyKey: key });
    expect(changed).toMatchObject({ status: 409, body: { responseCode: 409 } });
    const { client, tableName } = localTable();
    const ledger = await client.send(
      new GetCommand({
        TableName: tableName,
        Key: { pk: `SANDBOX#SALE#sale:${first.body.transactionId}`, sk: 'LEDGER' },
      }),
    );
    expect(ledger.Item?.calls).toBe(1);
  });

  test('parallel retries of one key charge once', async () => {
    const profileId = await aProfile();
    const key = `order-${randomUUID()}`;
    const results = await Promise.all(
      Array.from({ length: 10 }, () => sale({ profileId, amount: 8, idempotencyKey: key })),
    );
    const ok = results.filter((r) => r.status === 201);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(results.every((r) => r.status === 201 || r.status === 409)).toBe(true);
    expect(new Set(ok.map((r) => r.body.transactionId)).size).toBe(1);
    expect(ok.every((r) => r.body.status === 'Approved')).toBe(true);
  });

  test('a refused request frees its key', async () => {
    const key = `k-${randomUUID()}`;
    expect((await sale({ profileId: 'ghost/ghost', amount: 5, idempotencyKey: key })).status).toBe(400);
    expect((await sale({ profileId: await aProfile(), amount: 5, idempotencyKey: key })).status).toBe(201);
  });
});

describe('void and refund', () => {
  test('void before settlement; refunds refused until settlement and after a void', async () => {
    // Of 40, or a cent more when the first sale landed too near its cut-off (saleBeforeCutoff).
    const txn = await unsettledSale(await aProfile(), 40);
    const early = await call('POST', `${base}/${txn.transactionId}/refunds`, { amount: 10 });
    expect(early).toMatchObject({ status: 400, body: { message: expect.stringContaining('not settled') } });
    const voided = await call('POST', `${base}/${txn.transactionId}/void`);
    expect(voided.status).toBe(200);
    expect(voided.body).toMatchObject({
      status: 'Voided',
      availableRefundAmount: 0,
      originalAmount: txn.amount,
    });
    expect((await call('POST', `${base}/${txn.transactionId}/void`)).body.status).toBe('Voided');
    await pastCutoff(txn);
    expect((await call('POST', `${base}/${txn.transactionId}/refunds`, { amount: 1 })).status).toBe(400);
  });

  test('after settlement: void refused, partial refunds counted, history kept, over-refund refused', async () => {
    const txn = settling.partialRefunds;
    await pastCutoff(txn);
    expect((await call('POST', `${base}/${txn.transactionId}/void`)).status).toBe(400);
    const r1 = await call('POST', `${base}/${txn.transactionId}/refunds`, { amount: 30.25 });
    expect(r1.status).toBe(201);
    expect(r1.body).toMatchObject({
      transactionId: txn.transactionId,
      amount: 30.25,
      status: 'Completed',
      availableRefundAmount: 69.75,
    });
    const over = await call('POST', `${base}/${txn.transactionId}/refunds`, { amount: 69.76 });
    expect(over).toMatchObject({ status: 400, body: { message: expect.stringContaining('69.75') } });
    await call('POST', `${base}/${txn.transactionId}/refunds`, { amount: 69.75 });
    const got = (await call('GET', `${base}/${txn.transactionId}`)).body;
    expect(got).toMatchObject({
      settled: true,
      originalAmount: 100,
      refundedAmount: 100,
      availableRefundAmount: 0,
      refundCount: 2,
    });
    expect(got.refundHistory).toEqual([
      { refundId: r1.body.refundId, amount: 30.25, status: 'Completed', date: r1.body.date },
      expect.objectContaining({ amount: 69.75, status: 'Completed' }),
    ]);
  });

  test('20 parallel refunds never exceed the original amount', async () => {
    const txn = settling.parallelRefunds;
    await pastCutoff(txn);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => call('POST', `${base}/${txn.transactionId}/refunds`, { amount: 10 })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    expect(results.filter((r) => r.status === 400)).toHaveLength(15);
    const got = (await call('GET', `${base}/${txn.transactionId}`)).body;
    expect(got).toMatchObject({ refundedAmount: 50, availableRefundAmount: 0, refundCount: 5 });
    expect(got.refundHistory).toHaveLength(5);
  });

  test('a refund retried with its idempotencyKey refunds once', async () => {
    const txn = settling.keyedRefund;
    await pastCutoff(txn);
    const key = `refund-${randomUUID()}`;
    const first = await call('POST', `${base}/${txn.transactionId}/refunds`, {
      amount: 5,
      idempotencyKey: key,
    });
    const again = await call('POST', `${base}/${txn.transactionId}/refunds`, {
      amount: 5,
      idempotencyKey: key,
    });
    expect(again.body).toEqual(first.body);
    expect(
      (await call('POST', `${base}/${txn.transactionId}/refunds`, { amount: 6, idempotencyKey: key })).status,
    ).toBe(409);
    expect((await call('GET', `${base}/${txn.transactionId}`)).body).toMatchObject({
      refundedAmount: 5,
      refundCount: 1,
    });
  });

  test('unknown or foreign transactions are 404', async () => {
    expect((await call('GET', `${base}/0190f0a0-0000-7000-8000-000000000000`)).status).toBe(404);
    const other = await tokenFor(OTHER);
    const foreign = await createPayor({}, OTHER_MID, other);
    const txn = await call(
      'POST',
      '/v1/rest/merchants/32350000002/transactions',
      { profileId: `${foreign.payorId}/${foreign.defaultPaymentMethodId}`, amount: 3 },
      { token: other },
    );
    expect((await call('GET', `${base}/${txn.body.transactionId}`)).status).toBe(404);
    expect((await call('POST', `${base}/${txn.body.transactionId}/void`)).status).toBe(404);
  });
});

test('no full card or account number is stored, logged or returned', async () => {
  const cards: [string, string][] = [
    ['4111111111111111', 'VISA'],
    ['5555555555554444', 'MASTERCARD'],
    ['378282246310005', 'AMEX'],
    ['6011111111111117', 'DISCOVER'],
    ['4000000000000002', 'VISA'],
    ['4000000000009987', 'VISA'],
    ['4000000000009979', 'VISA'],
    ['4000000000000069', 'VISA'],
    ['4000000000000127', 'VISA'],
    ['4000000000009995', 'VISA'],
    ['4000000000000119', 'VISA'],
    ['4000000000006975', 'VISA'],
    ['4000000000000077', 'VISA'],
  ];
  const texts: string[] = [];
  for (const [card, type] of cards) {
    const created = await call('POST', `/v1/rest/merchants/${MID}/payors`, {
      paymentMethod: cardInput({ cardNumber: card, accountType: type }),
    });
    texts.push(created.text);
    const profileId = `${created.body.payorId}/${created.body.defaultPaymentMethodId}`;
    texts.push((await sale({ profileId, amount: 61.23, allowPartial: true })).text);
    texts.push((await call('GET', `/v1/rest/merchants/${MID}/payors/${created.body.payorId}`)).text);
    // A refused request must not echo the number either.
    texts.push(
      (
        await call('POST', `/v1/rest/merchants/${MID}/payors`, {
          paymentMethod: {
            ...cardInput({ cardNumber: card, accountType: type === 'VISA' ? 'AMEX' : 'VISA' }),
          },
        })
      ).text,
    );
  }
  const bank = await call('POST', `/v1/rest/merchants/${MID}/payors`, {
    paymentMethod: checkingInput({ accountNumber: '98765432101234' }),
  });
  texts.push(bank.text);

  const { client, tableName } = localTable();
  const items: unknown[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey }));
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  const table = JSON.stringify(items);
  const logs = readFileSync(join(process.env.E2E_DATA_DIR!, 'runtime.log'), 'utf8');
  expect(logs).toContain('"request"'); // the access log is there to be searched
  for (const number of [...cards.map(([c]) => c), '98765432101234']) {
    expect(table).not.toContain(number);
    expect(logs).not.toContain(number);
    for (const text of texts) expect(text).not.toContain(number);
  }
  expect(table).toContain('************1111');
});
