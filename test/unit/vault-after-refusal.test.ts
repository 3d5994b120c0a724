/**
 * A refused request writes nothing, at the processor either: a payor's create whose
 * customerAccountId another payor holds, or a method added to a payor holding the most, is refused
 * before its account is vaulted (Stripe: a customer and a PaymentMethod holding the number).
 */
import '#support/handlers/env';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { MAX_METHODS_PER_PAYOR } from '#contract/limits';
import { assertRoomForMethod } from '#core/payors';
import type { Payor } from '#domain/payors';
import { handler as createPayor } from '#lambdas/payors/create-payor';
import { useProcessor } from '#processor/index';
import type { PaymentProcessor, TokenizeRequest } from '#processor/processor';
import { keys } from '#store/keys';
import { ddbMock, expectError, invoke, MID, resetDb, transactionCanceled } from '#support/handlers/invoke';

const vaulted: TokenizeRequest[] = [];
beforeAll(() =>
  useProcessor({
    tokenize: async (request: TokenizeRequest) => {
      vaulted.push(request);
      return { token: `tok-${vaulted.length}` };
    },
  } as unknown as PaymentProcessor),
);
afterAll(() => useProcessor(undefined));
beforeEach(() => {
  resetDb();
  vaulted.length = 0;
});

test('defect: a customerAccountId of another payor was refused (400) only after the card number had been sent to the processor and vaulted', async () => {
  ddbMock
    .on(GetCommand, { Key: keys.customer(MID, 'cust-1') })
    .resolves({ Item: { payorId: 'payor-other' } });
  // The write would refuse it too (a racing create): the table's answer if it were asked.
  ddbMock
    .on(TransactWriteCommand)
    .rejects(transactionCanceled('None', 'None', 'ConditionalCheckFailed', 'None'));
  const response = await invoke(createPayor, {
    method: 'POST',
    path: `/v1/rest/merchants/${MID}/payors`,
    pathParameters: { MID },
    body: {
      customerAccountId: 'cust-1',
      paymentMethod: {
        accountType: 'VISA',
        cardNumber: '4111111111111111',
        expiryMonth: 12,
        expiryYear: 2099,
        billingAddress: {
          line1: '1 Main St',
          city: 'Springfield',
          state: 'IL',
          postalCode: '62701',
          country: 'US',
        },
      },
    },
  });
  expect(expectError(response, 400)).toContain('customerAccountId cust-1 already belongs to another payor');
  expect(vaulted).toEqual([]);
});

test('a payor holding the most methods is refused a new one before it is vaulted', () => {
  const payor = { payorId: 'p', merchantId: MID, methodCount: MAX_METHODS_PER_PAYOR } as Payor;
  expect(() => assertRoomForMethod(payor)).toThrow(`at most ${MAX_METHODS_PER_PAYOR} saved payment methods`);
  expect(() => assertRoomForMethod({ ...payor, methodCount: MAX_METHODS_PER_PAYOR - 1 })).not.toThrow();
});
