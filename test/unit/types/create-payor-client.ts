/**
 * Compiled by test/unit/openapi-client-payor.test.ts (and by `npm run typecheck`): a payor with a
 * card and a payor with a bank account, typed with the client's generated types (client/generated/schema.d.ts).
 */
import type { components, operations } from '../../../client/generated/schema';

type CreatePayorBody = operations['CreatePayor']['requestBody']['content']['application/json'];

const billingAddress: components['schemas']['BillingAddress'] = {
  line1: '1 Main St',
  city: 'Springfield',
  state: 'IL',
  postalCode: '62701',
  country: 'US',
};

export const withCard: CreatePayorBody = {
  customerAccountId: 'cust-1042',
  paymentMethod: {
    accountType: 'VISA',
    cardNumber: '4111111111111111',
    expiryMonth: 12,
    expiryYear: 2030,
    billingAddress,
  },
};

export const withBankAccount: components['schemas']['CreatePayorRequest'] = {
  paymentMethod: {
    accountType: 'CHECKING',
    routingNumber: '021000021',
    accountNumber: '000123456789',
    billingAddress,
  },
};
