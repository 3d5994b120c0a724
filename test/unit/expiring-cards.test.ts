/**
 * Expiring cards (issue 21 item 3): the flag `methodExpiresBeforeSlot` on a pending group's
 * payments (GET of a payment and of the list) and the refusals of `GET .../payors` with
 * `expiringBefore`. The expiry index itself is queried on DynamoDB Local
 * (test/integration/expiring-cards.test.ts).
 */
import '#support/handlers/env';
import '#support/handlers/fake-stores';
import { memory } from '#support/handlers/fakes';
import { expiresBeforeSlot } from '#core/expiring';
import { handler as getPayment } from '#lambdas/payments/get-payment';
import { handler as listPayments } from '#lambdas/payments/list-payments';
import { handler as searchPayors } from '#lambdas/payors/search-payors';
import {
  expectError,
  group,
  GROUP_ID,
  groupPath,
  invoke,
  MID,
  payment,
  PAYMENT_ID,
  paymentPath,
  resetDb,
  savedMethod,
} from '#support/handlers/invoke';

beforeEach(() => {
  resetDb();
  memory.reset();
});

/** A group in `status` with its slot on 2027-03-01 09:00Z and one payment of payor1/method1. */
function stored(status: 'pending' | 'processed' | 'deleted', deleted = false): void {
  memory.groups.set(GROUP_ID, group({ scheduleDate: '2027-03-01', scheduleHour: 9, status }));
  memory.paymentsOf(GROUP_ID).set(PAYMENT_ID, payment({ deleted }));
}

const card = (expiryMonth: number, expiryYear: number) =>
  savedMethod('payor1/method1', MID, { expiryMonth, expiryYear });

describe('expiresBeforeSlot', () => {
  it('a card is valid through its expiry month: only an earlier month expires before the slot', () => {
    expect(expiresBeforeSlot('2027-02', '2027-03-01T09')).toBe(true);
    expect(expiresBeforeSlot('2026-12', '2027-03-01T00')).toBe(true);
    expect(expiresBeforeSlot('2027-03', '2027-03-31T23')).toBe(false);
    expect(expiresBeforeSlot('2027-04', '2027-03-01T09')).toBe(false);
  });
});

describe('methodExpiresBeforeSlot on payments', () => {
  it('a pending group: true when the card expires before the slot, absent otherwise', async () => {
    stored('pending');
    card(2, 2027);
    const flagged = await invoke(getPayment, { pathParameters: paymentPath() });
    expect(flagged.status).toBe(200);
    expect(flagged.body.methodExpiresBeforeSlot).toBe(true);
    const listed = await invoke(listPayments, { pathParameters: groupPath() });
    expect(listed.body[0].methodExpiresBeforeSlot).toBe(true);
    const paged = await invoke(listPayments, { pathParameters: groupPath(), query: { pageSize: '5' } });
    expect(paged.body.items[0].methodExpiresBeforeSlot).toBe(true);

    card(3, 2027);
    const valid = await invoke(getPayment, { pathParameters: paymentPath() });
    expect(valid.body).not.toHaveProperty('methodExpiresBeforeSlot');
  });

  it('not on a processed group, a deleted payment, or a bank account', async () => {
    card(1, 2020);
    stored('processed');
    expect((await invoke(getPayment, { pathParameters: paymentPath() })).body).not.toHaveProperty(
      'methodExpiresBeforeSlot',
    );
    stored('pending', true);
    expect((await invoke(getPayment, { pathParameters: paymentPath() })).body).not.toHaveProperty(
      'methodExpiresBeforeSlot',
    );
    stored('pending');
    savedMethod('payor1/method1', MID, { accountType: 'CHECKING' });
    expect((await invoke(getPayment, { pathParameters: paymentPath() })).body).not.toHaveProperty(
      'methodExpiresBeforeSlot',
    );
  });
});

describe('GET .../payors refusals', () => {
  const search = (query: Record<string, string>) => invoke(searchPayors, { pathParameters: { MID }, query });

  it.each([
    [{}, 'customerAccountId', 'customerAccountId or expiringBefore is required'],
    [
      { expiringBefore: '2027-13' },
      'expiringBefore',
      'expiringBefore must be a month as yyyy-MM (e.g. 2027-03)',
    ],
    [
      { expiringBefore: '27-03' },
      'expiringBefore',
      'expiringBefore must be a month as yyyy-MM (e.g. 2027-03)',
    ],
    [
      { expiringBefore: '2027-03', customerAccountId: 'c1' },
      'expiringBefore',
      'expiringBefore cannot be combined with customerAccountId',
    ],
    [
      { customerAccountId: 'c1', pageToken: 'abc' },
      'pageToken',
      'pageToken is for expiringBefore lists only',
    ],
    [
      { expiringBefore: '2027-03', pageToken: 'abc' },
      'pageToken',
      'pageToken is not a next page of this expiringBefore list',
    ],
  ])('%j: 400 naming %s', async (query, field, message) => {
    const response = await search(query);
    expect(expectError(response, 400)).toBe(message);
    expect(response.body.errors[0].field).toBe(field);
  });
});
