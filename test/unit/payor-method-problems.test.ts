/**
 * Defect "a payor create's invalid paymentMethod was refused without its problems listed"
 * (DESIGN: a 400 for an invalid body adds `errors: [{field, message}]` with every problem found):
 * the body's schema passes `paymentMethod` through (it is one of several schemas, checked in
 * code), so an invalid method alone answered no `errors`, and with the body's own problems only
 * theirs were listed. Nothing is vaulted or written either way.
 */
import '#support/handlers/env';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { parseMethodInput } from '#domain/method-input';
import { handler as createPayor } from '#lambdas/payors/create-payor';
import { ValidationError } from '#shared/validation';
import { useProcessor } from '#processor/index';
import type { PaymentProcessor } from '#processor/processor';
import { ddbMock, invoke, MID, resetDb } from '#support/handlers/invoke';

const vaulted: unknown[] = [];
beforeAll(() =>
  useProcessor({
    tokenize: async (request: unknown) => {
      vaulted.push(request);
      return { token: 'tok-1' };
    },
  } as unknown as PaymentProcessor),
);
afterAll(() => useProcessor(undefined));
beforeEach(() => {
  resetDb();
  vaulted.length = 0;
});

const create = (body: Record<string, unknown>) =>
  invoke(createPayor, {
    method: 'POST',
    path: `/v1/rest/merchants/${MID}/payors`,
    pathParameters: { MID },
    body,
  });

const card = { accountType: 'VISA', cardNumber: '4111111111111111', expiryMonth: 12, expiryYear: 2099 };

test('defect: an invalid paymentMethod alone was refused without the errors list', async () => {
  const response = await create({ paymentMethod: card });
  expect(response.status).toBe(400);
  expect(response.body).toEqual({
    message: 'paymentMethod.billingAddress is required',
    responseCode: 400,
    errors: [{ field: 'paymentMethod.billingAddress', message: 'paymentMethod.billingAddress is required' }],
  });
  expect(vaulted).toEqual([]);
  expect(ddbMock.commandCalls(TransactWriteCommand)).toHaveLength(0);
});

test("defect: with the body's own problems, the paymentMethod's were left out; every one is listed, the body's first", async () => {
  const response = await create({
    customerAccountType: 'x'.repeat(51),
    paymentMethod: { ...card, expiryMonth: 13, customerData: { z: 1 } },
  });
  expect(response.status).toBe(400);
  const body = response.body as { message: string; errors: { field: string }[] };
  expect(body.errors[0]).toMatchObject({ field: 'customerAccountType' });
  expect(body.errors.map((e) => e.field)).toEqual(
    expect.arrayContaining([
      'paymentMethod.billingAddress',
      'paymentMethod.expiryMonth',
      'paymentMethod.customerData.z',
    ]),
  );
  expect(body.message).toContain('customerAccountType');
  expect(vaulted).toEqual([]);
});

test('a card number that fails its check digit is one problem, named under paymentMethod', async () => {
  const address = {
    line1: '1 Main St',
    city: 'Springfield',
    state: 'IL',
    postalCode: '62701',
    country: 'US',
  };
  const response = await create({
    paymentMethod: { ...card, cardNumber: '4111111111111112', billingAddress: address },
  });
  expect(response.status).toBe(400);
  const body = response.body as { message: string; errors: unknown[] };
  expect(body.message).toBe('paymentMethod.cardNumber is not a valid card number (check digit)');
  expect(body.errors).toEqual([{ field: 'paymentMethod.cardNumber', message: body.message }]);
  expect(vaulted).toEqual([]);
});

test("defect: a method's rule (check digit, expiry, mandate) was refused without errors when a method was added: its problem is listed with its field", () => {
  const address = {
    line1: '1 Main St',
    city: 'Springfield',
    state: 'IL',
    postalCode: '62701',
    country: 'US',
  };
  const refusal = (() => {
    try {
      parseMethodInput({ ...card, cardNumber: '4111111111111112', billingAddress: address }, new Date());
    } catch (error) {
      return error;
    }
  })();
  expect(refusal).toBeInstanceOf(ValidationError);
  expect((refusal as ValidationError).problems).toEqual([
    { field: 'cardNumber', message: 'cardNumber is not a valid card number (check digit)' },
  ]);
});
