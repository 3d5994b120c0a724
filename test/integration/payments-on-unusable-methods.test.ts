/**
 * A payment on a method the processor must not be asked to charge is refused (400) when it is
 * created or given that method, the message naming why by the method's status: closed,
 * contact_cardholder, revoked. A payment that keeps its method may still change.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createGroup } from '#core/groups';
import { updatePayment } from '#core/payments';
import { runSale } from '#core/sale';
import type { MethodStatus } from '#domain/payors';
import { reloadConfigForTests } from '#shared/config';
import { keys } from '#store/keys';
import { type Merchant } from '#store/merchants';
import { MerchantAdmin } from '#store/merchant-admin';
import { paymentStore } from '#store/payments';
import { DynamoPayorStore } from '#store/payors';
import { createTestTable, type TestTable } from '#support/ddb';
import { makePayor } from '#support/fixtures/index';
import { saleRequest } from '#support/sales';

const MERCHANT: Merchant = { merchantId: '32350000001', shortId: '23500001', name: 'Springfield Elementary' };
const MID = MERCHANT.merchantId;
const day = (ahead: number) => new Date(Date.now() + ahead * 86_400_000).toISOString().slice(0, 10);
let table: TestTable;

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  reloadConfigForTests();
  await new MerchantAdmin(table.db, table.tableName).register(MERCHANT);
});
afterAll(() => table.drop());

async function refusal(status: MethodStatus): Promise<string> {
  const { payor, method } = makePayor(MID);
  await new DynamoPayorStore(table.db, table.tableName).create(payor, { ...method, status });
  const profileId = `${payor.payorId}/${method.savedPaymentMethodId}`;
  const group = {
    servicePayId: MID,
    scheduleDate: day(2),
    scheduleHour: 10,
    locationId: 1,
    payments: [{ profileId, amount: 5 }],
  };
  const error = await createGroup(group, MERCHANT, new Date()).then(
    () => undefined,
    (e: unknown) => e as { status?: number; message: string },
  );
  expect(error?.status).toBe(400);
  expect(error?.message).toContain(`payments[0].profileId ${profileId} names a saved payment method`);
  return error!.message;
}

test('defect: a payment on a revoked method was refused as one to check with the cardholder (contact_cardholder); it names the revoked authorization', async () => {
  const message = await refusal('revoked');
  expect(message).toContain('whose authorization was revoked (revoked');
  expect(message).not.toContain('contact_cardholder');
});

test('a payment on a closed method, or on one to check with the cardholder, names that', async () => {
  expect(await refusal('closed')).toContain('whose account is closed; add a new method');
  expect(await refusal('contact_cardholder')).toContain(
    'whose account is to be checked with the cardholder (contact_cardholder); add a new method',
  );
});

/** A stored payor's method with this status: its profileId. */
async function methodWith(status: MethodStatus): Promise<string> {
  const { payor, method } = makePayor(MID);
  await new DynamoPayorStore(table.db, table.tableName).create(payor, { ...method, status });
  return `${payor.payorId}/${method.savedPaymentMethodId}`;
}

test.each(['closed', 'contact_cardholder', 'revoked'] as const)(
  'defect: a PUT of a payment that keeps its method was refused once the method became %s (its amount alone changed); it is accepted, and a PUT giving a payment such a method is still refused',
  async (status) => {
    const profileId = await methodWith('active');
    const { group, payments } = await createGroup(
      {
        servicePayId: MID,
        scheduleDate: day(2),
        scheduleHour: 10,
        locationId: 1,
        payments: [{ profileId, amount: 5 }],
      },
      MERCHANT,
      new Date(),
    );
    const [payorId, methodId] = profileId.split('/') as [string, string];
    await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: keys.method(payorId, methodId),
        UpdateExpression: 'SET #s = :s',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':s': status },
      }),
    );
    const put = (to: string, amount: number) =>
      updatePayment(
        group.paymentGroupId,
        payments[0]!.paymentId,
        MID,
        { paymentId: payments[0]!.paymentId, paymentGroupId: group.paymentGroupId, profileId: to, amount },
        new Date(),
      );

    // The same method (profileIds are case-insensitive), a new amount.
    const kept = await put(profileId.toUpperCase(), 4);
    expect(kept).toMatchObject({ amountCents: 400 });

    const other = await methodWith(status);
    const refused = await put(other, 4).then(
      () => undefined,
      (e: unknown) => e as { status?: number; message: string },
    );
    expect(refused).toMatchObject({
      status: 400,
      message: expect.stringContaining(`profileId ${other} names a saved payment method whose`),
    });
    const stored = await paymentStore().getPayment(group.paymentGroupId, payments[0]!.paymentId);
    expect(stored).toMatchObject({ profileId: profileId.toUpperCase(), amountCents: 400 });
  },
);

test("defect: a sale on a bank account closed by its bank's administrative return was declined R2 saying the account updater reported it closed (the updater knows cards only): it names the bank's return", async () => {
  const declinedOn = async (accountType: 'CHECKING' | 'VISA') => {
    const { payor, method } = makePayor(MID);
    const closed = { ...method, status: 'closed' as const, accountType };
    if (accountType === 'CHECKING') {
      delete closed.expiryMonth;
      delete closed.expiryYear;
    }
    await new DynamoPayorStore(table.db, table.tableName).create(payor, closed);
    const sale = await runSale(
      saleRequest(MID, `${payor.payorId}/${method.savedPaymentMethodId}`, 500),
      new Date(),
    );
    expect(sale).toMatchObject({ status: 'Declined', responseCode: 'R2' });
    return sale.responseMessage;
  };
  const bank = await declinedOn('CHECKING');
  expect(bank).toContain('the bank returned a debit of it as closed or invalid');
  expect(bank).not.toContain('account updater');
  expect(await declinedOn('VISA')).toContain('the account updater reported the account closed');
});
