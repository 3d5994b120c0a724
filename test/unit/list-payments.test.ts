/**
 * GET .../payments paged (docs/decisions.md "Paged payments"): numbered pages and page tokens
 * over the in-memory payment store, the unpaged limit, forged tokens, and the response-size
 * guard with the largest payment the contract accepts.
 */
import '#support/handlers/env';
import '#support/handlers/fake-stores';
import { memory } from '#support/handlers/fakes';
import { MAX_RESPONSE_BYTES, MAX_UNPAGED_PAYMENTS } from '#contract/limits';
import { addPaymentSchema } from '#contract/schemas/payments';
import { newPayment, paymentView, type Group, type Payment } from '#domain/groups';
import { validator } from '#support/validators-by-schema';
import { encodePageToken } from '#store/paging';
import { handler as listPayments } from '#lambdas/payments/list-payments';
import { expectError, group, GROUP_ID, groupPath, invoke, payment, resetDb } from '#support/handlers/invoke';

type Page = { meta: Record<string, unknown>; items: { paymentId: string }[] };

const idOf = (n: number) => `01890a5d-ac96-774b-bcce-${String(n).padStart(12, '0')}`;

function storedGroup(count: number, over: Partial<Group> = {}): void {
  memory.groups.set(GROUP_ID, group({ paymentCount: count, ...over }));
  const payments = memory.paymentsOf(GROUP_ID);
  for (let n = 1; n <= count; n++) payments.set(idOf(n), payment({ paymentId: idOf(n) }));
}

const list = (query?: Record<string, string>) => invoke(listPayments, { pathParameters: groupPath(), query });

beforeEach(() => {
  resetDb();
  memory.reset();
});

describe('GET .../payments paged', () => {
  it('without paging parameters: the array, deleted included', async () => {
    storedGroup(3);
    memory.paymentsOf(GROUP_ID).get(idOf(2))!.deleted = true;
    const response = await list();
    expect(response.status).toBe(200);
    expect(response.body.map((p: Payment) => [p.paymentId, p.deleted])).toEqual([
      [idOf(1), false],
      [idOf(2), true],
      [idOf(3), false],
    ]);
  });

  it(`without paging parameters above ${MAX_UNPAGED_PAYMENTS} payments: 400 saying to page`, async () => {
    storedGroup(MAX_UNPAGED_PAYMENTS + 1);
    expect(expectError(await list(), 400)).toMatch(/more than 2000 payments: page with pageSize/);
    // Deleted payments are not in paymentCount but count here too.
    memory.groups.get(GROUP_ID)!.paymentCount = MAX_UNPAGED_PAYMENTS - 5;
    expect(expectError(await list(), 400)).toMatch(/page with/);
    memory.paymentsOf(GROUP_ID).delete(idOf(1));
    expect((await list()).body).toHaveLength(MAX_UNPAGED_PAYMENTS);
  });

  it('numbered pages: the envelope of the group lists with nextPageToken until the last page', async () => {
    storedGroup(7);
    const first = (await list({ pageSize: '3' })).body as Page;
    expect(first.meta).toEqual({
      page: 1,
      pageSize: 3,
      totalItems: 7,
      totalPages: 3,
      nextPageToken: expect.any(String),
    });
    expect(first.items.map((p) => p.paymentId)).toEqual([idOf(1), idOf(2), idOf(3)]);
    const last = (await list({ pageNumber: '3', pageSize: '3' })).body as Page;
    expect(last.meta).toEqual({ page: 3, pageSize: 3, totalItems: 7, totalPages: 3 });
    expect(last.items.map((p) => p.paymentId)).toEqual([idOf(7)]);
    const past = (await list({ pageNumber: '9', pageSize: '3' })).body as Page;
    expect(past).toEqual({ meta: { page: 9, pageSize: 3, totalItems: 7, totalPages: 3 }, items: [] });
    expect(((await list({ pageNumber: '1' })).body as Page).meta.pageSize).toBe(25);
  });

  it('pageToken continues after the page, every payment once, and ends without a token', async () => {
    storedGroup(8);
    const seen: string[] = [];
    let page = (await list({ pageNumber: '1', pageSize: '3' })).body as Page;
    const pages: unknown[] = [page.meta.page];
    seen.push(...page.items.map((p) => p.paymentId));
    while (typeof page.meta.nextPageToken === 'string') {
      page = (await list({ pageToken: page.meta.nextPageToken })).body as Page;
      pages.push(page.meta.page);
      seen.push(...page.items.map((p) => p.paymentId));
    }
    expect(pages).toEqual([1, 2, 3]);
    expect(seen).toEqual(Array.from({ length: 8 }, (_, i) => idOf(i + 1)));
    expect(page.meta).toEqual({ page: 3, pageSize: 3, totalItems: 8, totalPages: 3 });
  });

  it('a full last page has no token (no empty page follows)', async () => {
    storedGroup(6);
    const first = (await list({ pageSize: '3' })).body as Page;
    const second = (await list({ pageToken: String(first.meta.nextPageToken) })).body as Page;
    expect(second.items).toHaveLength(3);
    expect(second.meta).not.toHaveProperty('nextPageToken');
  });

  it('pageToken takes another pageSize from there on', async () => {
    storedGroup(6);
    const first = (await list({ pageSize: '2' })).body as Page;
    const next = (await list({ pageToken: String(first.meta.nextPageToken), pageSize: '4' })).body as Page;
    expect(next.items.map((p) => p.paymentId)).toEqual([idOf(3), idOf(4), idOf(5), idOf(6)]);
    expect(next.meta).toMatchObject({ pageSize: 4, totalItems: 6 });
    expect(next.meta).not.toHaveProperty('nextPageToken');
  });

  it.each([
    [{ pageNumber: '1000001' }, 'pageNumber must be an integer 1-1000000 (got 1000001)'],
    [{ pageNumber: '0' }, 'pageNumber must be an integer 1-1000000 (got 0)'],
    [{ pageNumber: '12345678' }, 'pageNumber must be an integer 1-1000000'],
    [{ pageSize: '501' }, 'pageSize must be an integer 1-500 (got 501)'],
  ])("has the group lists' page limits: 400 for %p", async (query, message) => {
    storedGroup(3);
    expect(expectError(await list(query), 400)).toBe(message);
  });

  it('refuses pageToken with pageNumber, and forged, altered or foreign tokens, with 400', async () => {
    storedGroup(5);
    const token = String(((await list({ pageSize: '2' })).body as Page).meta.nextPageToken);
    expect(expectError(await list({ pageToken: token, pageNumber: '2' }), 400)).toMatch(
      'pageToken cannot be combined with pageNumber',
    );
    const [payload, digest] = token.split('.');
    const altered = Buffer.from(
      Buffer.from(payload!, 'base64url').toString().replace('"01890a5d', '"01890a5e'),
    ).toString('base64url');
    const foreign = encodePageToken({ after: idOf(2), offset: 2, total: 5, pageSize: 2 }, idOf(99));
    for (const forged of [
      'abc',
      `${altered}.${digest}`,
      `${payload}.${'A'.repeat(22)}`,
      foreign,
      `${token}.x`,
    ]) {
      expect(expectError(await list({ pageToken: forged }), 400)).toMatch(
        /pageToken (is not a nextPageToken of this group|must be)/,
      );
    }
  });

  it('a page or array Lambda could not return is 400; the default pageSize 25 fits the largest payment', async () => {
    // The largest payment the contract takes: every string at its limit, in the characters that
    // cost most in the proxy result: control characters where allowed (\u0001, escaped twice:
    // 7 bytes), else quotes (4 bytes) and astral characters (4 UTF-8 bytes). Lone surrogates
    // would cost 7 but never come back from DynamoDB (stored as UTF-8, they become U+FFFD).
    const costly = (n: number, i: number) => `"${String(i).padStart(4, '0')}`.padEnd(n, '"');
    const costlyKey = (i: number) => String(i).padEnd(100, '\u0001');
    const input = {
      paymentGroupId: GROUP_ID,
      profileId: 'payor1/method1',
      amount: 999999.99,
      orderId: costly(100, 0),
      customAttributes: Object.fromEntries(
        Array.from({ length: 50 }, (_, i) => [costlyKey(i), '😀'.repeat(1000)]),
      ),
      fees: Array.from({ length: 20 }, (_, i) => ({ name: costly(100, i), amount: 999999.99 })),
    };
    validator(addPaymentSchema)(input);
    const worst = (n: number): Payment => ({
      ...newPayment(input, group(), idOf(n), new Date()),
      voidOrRefundResponses: Array.from({ length: 10 }, () => ({
        type: 'Refund' as const,
        transactionId: idOf(0),
        status: 'Failed' as const,
        amount: 999999.99,
        responseCode: '96',
        responseMessage: 'Reversed: the processor did not answer in time',
        date: new Date().toISOString(),
      })),
    });
    const bytes = Buffer.byteLength(JSON.stringify(JSON.stringify(paymentView(worst(1)))));
    // The default pageSize (25) always fits, with room for envelope and meta.
    expect(bytes).toBeLessThan(250_000);
    expect(25 * bytes).toBeLessThan(MAX_RESPONSE_BYTES - 1000);

    memory.groups.set(GROUP_ID, group({ paymentCount: 40 }));
    for (let n = 1; n <= 40; n++) memory.paymentsOf(GROUP_ID).set(idOf(n), worst(n));
    expect(expectError(await list(), 400)).toMatch(/response limit: page with pageSize/);
    expect(expectError(await list({ pageSize: '40' }), 400)).toMatch(/use a smaller pageSize/);
    const fits = await list({ pageNumber: '1' });
    expect(fits.status).toBe(200);
    expect((fits.body as Page).items).toHaveLength(25);
  });
});
