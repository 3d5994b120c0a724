/**
 * What a bank debit's return does to its scheduled payment and its group (docs/product.md
 * "Returns"): the payment's authResponse shows it Returned with nothing left to refund, and a
 * payment its retries had recovered leaves its group's recovered counts. Against DynamoDB Local,
 * set up as test/integration/bank-notices.test.ts does.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { applyNotice } from '#core/notices';
import { runDueFollowUps } from '#core/notice-follow-ups';
import { groupReport } from '#core/reports';
import { claimStore } from '#store/claims';
import { groupItem } from '#store/groups';
import { emptyTotals, summaryView } from '#domain/processing';
import { attemptOf, paymentView, type Payment } from '#domain/groups';
import { saleAuthResponse } from '#domain/processing';
import { transactionView, type Transaction } from '#domain/transactions';
import { processorKeys } from '#domain/processor-keys';
import type { ProcessorNotice } from '#processor/processor';
import { reloadConfigForTests } from '#shared/config';
import { attemptTransactionId, newId } from '#shared/ids';
import { MerchantRegistry, type Merchant } from '#store/merchants';
import { paymentItem, paymentStore } from '#store/payments';
import { DynamoPayorStore } from '#store/payors';
import { DynamoTransactionStore } from '#store/transactions';
import { createTestTable, type TestTable } from '#support/ddb';
import { group as groupRecord, makePayor, payment as paymentRecord } from '#support/fixtures/index';

const MERCHANT: Merchant = { merchantId: '32350000077', shortId: '23500077', name: 'Review Merchant' };
const MID = MERCHANT.merchantId;
const T0 = new Date('2031-03-02T10:00:00.000Z');
const CLIENT = 'review-client';
const later = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

let table: TestTable;
beforeAll(async () => {
  table = await createTestTable();
  Object.assign(process.env, { TABLE_NAME: table.tableName, SERVICE_STAGE: 'dev' });
  reloadConfigForTests();
  const registry = new MerchantRegistry(table.db, table.tableName);
  await registry.register(MERCHANT);
  await registry.grant(CLIENT, MID, 'test');
});
afterAll(() => table.drop());

async function checkingProfile(): Promise<string> {
  const { payor, method } = makePayor(MID, { email: 'payor@example.com' });
  const checking = { ...method, accountType: 'CHECKING' as const, maskedAccountNumber: '********6789' };
  delete checking.expiryMonth;
  delete checking.expiryYear;
  await new DynamoPayorStore(table.db, table.tableName).create(payor, checking);
  return `${payor.payorId}/${checking.savedPaymentMethodId}`;
}

function debit(
  profileId: string,
  transactionId: string,
  paymentOf: Payment | undefined,
  cents: number,
): Transaction {
  const [payorId, savedPaymentMethodId] = profileId.split('/') as [string, string];
  return {
    transactionId,
    merchantId: MID,
    type: 'sale',
    status: 'Approved',
    responseCode: '00',
    responseMessage: 'Approved',
    amountCents: cents,
    approvedCents: cents,
    isDuplicate: false,
    profileId,
    payorId,
    savedPaymentMethodId,
    accountType: 'CHECKING',
    maskedAccountNumber: '********6789',
    processedAt: T0.toISOString(),
    settlesAt: later(3600).toISOString(),
    refundedCents: 0,
    refundCount: 0,
    cleared: false,
    ...(paymentOf && { paymentId: paymentOf.paymentId, paymentGroupId: paymentOf.paymentGroupId }),
  };
}

/**
 * A scheduled payment answered Approved by its first charge, its authResponse made as processing
 * makes it (saleAuthResponse of the sale's view), and that sale.
 */
async function paidPayment(
  profileId: string,
  cents = 2500,
): Promise<{ payment: Payment; sale: Transaction }> {
  const paymentId = newId();
  const paymentGroupId = newId();
  const shell = { paymentId, paymentGroupId } as Payment;
  const sale = debit(profileId, attemptTransactionId(paymentId, 1), shell, cents);
  const auth = saleAuthResponse(transactionView(sale, [], T0));
  const payment = paymentRecord({
    paymentId,
    paymentGroupId,
    merchantId: MID,
    profileId,
    amountCents: cents,
    authResponse: auth,
    attempts: [attemptOf(1, auth)],
    eventSeq: 1,
    lastUpdated: T0.toISOString(),
  });
  await table.db.send(new PutCommand({ TableName: table.tableName, Item: paymentItem(payment) }));
  const recorded = await new DynamoTransactionStore(table.db, table.tableName).recordSale(sale);
  return { payment, sale: recorded };
}

const returned = (sale: Transaction, code: string, key: string): ProcessorNotice => ({
  noticeId: `ntc_${newId()}`,
  kind: 'returned',
  merchantId: MID,
  objectId: `sbx_${sale.transactionId}`,
  sequence: 2,
  occurredAt: later(60).toISOString(),
  charge: { processorTransactionId: `sbx_${sale.transactionId}`, idempotencyKey: key },
  code,
  returnedAt: later(60).toISOString(),
});

test('defect: a returned payment still shows availableRefundAmount > 0 on its authResponse', async () => {
  const profileId = await checkingProfile();
  const { payment, sale } = await paidPayment(profileId);
  expect(payment.authResponse).toMatchObject({ status: 'Approved', availableRefundAmount: 25 });

  const applied = await applyNotice(
    returned(sale, 'R01', processorKeys.payment(payment.paymentId)),
    later(70),
  );
  expect(applied.outcome).toBe('applied');

  const after = (await paymentStore().getPayment(payment.paymentGroupId, payment.paymentId))!;
  // DESIGN section 6: Returned "on a payment's authResponse ... availableRefundAmount is then 0".
  expect(paymentView(after).authResponse).toMatchObject({
    status: 'Returned',
    return: { code: 'R01' },
    availableRefundAmount: 0,
  });
});

test('defect: a recovered payment whose debit is returned (nsf, retried again) stays in the summary’s recoveredCount; the report says 0', async () => {
  const profileId = await checkingProfile();
  const paymentGroupId = newId();
  const paymentId = newId();
  // Attempt 1 declined 51, attempt 2 (the retry round) approved: recovered, as the round counted it.
  const declinedAuth = {
    ...saleAuthResponse(
      transactionView(
        {
          ...debit(
            profileId,
            attemptTransactionId(paymentId, 1),
            { paymentId, paymentGroupId } as Payment,
            2500,
          ),
          status: 'Declined',
          responseCode: '51',
          responseMessage: 'Insufficient funds',
          approvedCents: 0,
        },
        [],
        T0,
      ),
    ),
  };
  const sale = debit(
    profileId,
    attemptTransactionId(paymentId, 2),
    { paymentId, paymentGroupId } as Payment,
    2500,
  );
  const auth = saleAuthResponse(transactionView(sale, [], T0));
  const payment = paymentRecord({
    paymentId,
    paymentGroupId,
    merchantId: MID,
    profileId,
    amountCents: 2500,
    authResponse: auth,
    attempts: [attemptOf(1, declinedAuth), attemptOf(2, auth, 1)],
    retry: { status: 'succeeded' },
    eventSeq: 3,
    lastUpdated: T0.toISOString(),
  });
  const group = groupRecord({
    paymentGroupId,
    merchantId: MID,
    status: 'processed',
    paymentCount: 1,
    totalCents: 2500,
    retryPolicy: { maxRetries: 3, intervalHours: 24 },
    processingSummary: {
      ...emptyTotals(),
      approved: 1,
      approvedCents: 2500,
      recovered: 1,
      recoveredCents: 2500,
      processedAt: T0.toISOString(),
    },
  });
  await table.db.send(new PutCommand({ TableName: table.tableName, Item: groupItem(group) }));
  await table.db.send(new PutCommand({ TableName: table.tableName, Item: paymentItem(payment) }));
  await new DynamoTransactionStore(table.db, table.tableName).recordSale(sale);

  const notice = returned(sale, 'R01', processorKeys.payment(paymentId, 2));
  expect((await applyNotice(notice, later(70))).outcome).toBe('applied');
  await runDueFollowUps(later(90), 10);

  const after = (await paymentStore().getPayment(paymentGroupId, paymentId))!;
  expect(after.authResponse).toMatchObject({ status: 'Returned' });
  expect(after.retry).toMatchObject({ status: 'scheduled' });
  const report = await groupReport(MID, paymentGroupId);
  const summary = summaryView((await claimStore().read(paymentGroupId))!.processingSummary!);
  // docs/product.md "Returns": a returned payment leaves approvedCount ... and recoveredCount /
  // recoveredAmount when it was one of those. The report (which counts what is) agrees.
  expect(report.counts).toMatchObject({ approved: 0, returned: 1, recovered: 0 });
  expect({
    approvedCount: summary.approvedCount,
    returnedCount: summary.returnedCount,
    recoveredCount: summary.recoveredCount,
    recoveredAmount: summary.recoveredAmount,
  }).toEqual({ approvedCount: 0, returnedCount: 1, recoveredCount: 0, recoveredAmount: 0 });
});
