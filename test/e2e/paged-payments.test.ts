/**
 * A large group's payments over HTTP (docs/decisions.md "Paged payments"): 2,100 payments paged
 * by number and by token, each payment exactly once; the unpaged list refused above 2,000.
 */
import { call, MID } from '#support/api';
import { aProfile, groupBody } from '#support/fixtures/e2e-resources';

const base = `/rest/merchants/${MID}`;
const COUNT = 2_100;
let payments: string;
let created: string[];

beforeAll(async () => {
  const profileId = await aProfile();
  const res = await call(
    'POST',
    `${base}/groups`,
    groupBody({
      payments: Array.from({ length: COUNT }, (_, i) => ({ profileId, amount: (100 + i) / 100 })),
    }),
  );
  expect(res.status).toBe(201);
  payments = `${base}/groups/${res.body.paymentGroupId}/payments`;
  created = (res.body.payments as { paymentId: string }[]).map((p) => p.paymentId);
}, 120_000);

type Page = {
  meta: { page: number; totalItems: number; nextPageToken?: string };
  items: { paymentId: string }[];
};

test('unpaged above 2,000 payments: 400 saying to page', async () => {
  const res = await call('GET', payments);
  expect(res.status).toBe(400);
  expect(res.body.message).toMatch(/more than 2000 payments: page/);
});

test('by number: every payment exactly once, in creation order', async () => {
  const seen: string[] = [];
  for (let page = 1; page <= 5; page++) {
    const res = await call('GET', `${payments}?pageNumber=${page}&pageSize=500`);
    expect(res.status).toBe(200);
    const body = res.body as Page;
    expect(body.meta).toMatchObject({ page, totalItems: COUNT });
    expect(body.meta.nextPageToken !== undefined).toBe(page < 5);
    seen.push(...body.items.map((p) => p.paymentId));
  }
  expect(seen).toEqual(created);
});

test('by token: every payment exactly once, also the alias path; a foreign token is 400', async () => {
  const seen: string[] = [];
  let res = await call('GET', `${payments}?pageSize=400`);
  let pages = 1;
  seen.push(...(res.body as Page).items.map((p) => p.paymentId));
  let token = (res.body as Page).meta.nextPageToken;
  while (token) {
    const path = pages % 2 ? payments.replace(/payments$/, 'transactions') : payments;
    res = await call('GET', `${path}?pageToken=${token}`);
    expect(res.status).toBe(200);
    pages++;
    expect((res.body as Page).meta.page).toBe(pages);
    seen.push(...(res.body as Page).items.map((p) => p.paymentId));
    token = (res.body as Page).meta.nextPageToken;
  }
  expect(pages).toBe(6);
  expect(seen).toEqual(created);

  const first = (await call('GET', `${payments}?pageSize=10`)).body as Page;
  const other = await call('POST', `${base}/groups`, groupBody({}));
  const res2 = await call(
    'GET',
    `${base}/groups/${other.body.paymentGroupId}/payments?pageToken=${first.meta.nextPageToken}`,
  );
  expect(res2.status).toBe(400);
  expect((await call('GET', `${payments}?pageToken=${first.meta.nextPageToken}&pageNumber=2`)).status).toBe(
    400,
  );
});
