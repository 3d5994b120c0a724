/** Examples of the payor and saved-method operations (contract/examples/types.ts). */
import { refused, unknownQuery } from './refusals';
import { PLACEHOLDERS as P, success, type OperationExamples } from './types';
import { bankAccountView, billingAddress, cardView, payorView, updated } from './views';

const newCard = {
  accountType: 'VISA',
  cardNumber: '4111111111111111',
  expiryMonth: 12,
  expiryYear: 2030,
  billingAddress,
};

const newBankAccount = {
  accountType: 'CHECKING',
  routingNumber: '011000015',
  accountNumber: '000123456789',
  billingAddress,
};

const noSuchQuery = unknownQuery('expand', 'methods');

export const payorExamples: Record<string, OperationExamples> = {
  CreatePayor: {
    requests: {
      card: {
        summary: 'A payor with a card',
        value: {
          customerAccountId: P.newCustomerAccountId,
          customerAccountType: 'family',
          email: 'parent@example.com',
          customerData: { grade: '4' },
          paymentMethod: newCard,
        },
      },
      bankAccount: {
        summary: 'A payor with a bank account',
        value: { email: 'guardian@example.com', paymentMethod: newBankAccount },
      },
    },
    response: success('The payor with its card, the default (the number masked)', {
      ...payorView,
      customerAccountId: P.newCustomerAccountId,
    }),
    invalid: {
      summary: 'An unknown field and no payment method',
      body: { customerAccountId: P.newCustomerAccountId, nickname: 'Bart' },
      response: refused(
        ['paymentMethod', 'paymentMethod is required'],
        ['nickname', 'nickname is not a known field'],
      ),
    },
  },
  SearchPayors: {
    query: { customerAccountId: P.customerAccountId },
    response: success('The payor with that customerAccountId', [payorView]),
    invalid: {
      summary: 'expiringBefore not a month (yyyy-MM)',
      query: { expiringBefore: '2027-13' },
      response: refused(['expiringBefore', 'expiringBefore must be a month as yyyy-MM (e.g. 2027-03)']),
    },
  },
  BulkSearchPayors: {
    requests: {
      ids: {
        summary: 'Two customer IDs, one of them unknown',
        value: { customerAccountIds: [P.customerAccountId, 'cust-9999'] },
      },
    },
    response: success('The one payor found', [payorView]),
    invalid: {
      summary: 'An empty list',
      body: { customerAccountIds: [] },
      response: refused(['customerAccountIds', 'customerAccountIds must NOT have fewer than 1 items']),
    },
  },
  GetPayor: { response: success('The payor', payorView), invalid: noSuchQuery },
  UpdatePayor: {
    requests: {
      contact: {
        summary: 'Change the e-mail address and the customer data',
        value: { email: 'new.parent@example.com', customerData: { grade: '5' } },
      },
    },
    response: success('The payor after the update', {
      ...payorView,
      email: 'new.parent@example.com',
      customerData: { grade: '5' },
      ...updated,
    }),
    invalid: {
      summary: 'An e-mail address that is not one',
      body: { email: 'not-an-address' },
      response: refused(['email', 'email must be a valid email']),
    },
  },
  DeletePayor: { invalid: noSuchQuery },
  ListMethods: { response: success("The payor's methods", [cardView]), invalid: noSuchQuery },
  AddMethod: {
    requests: {
      bankAccount: {
        summary: 'A bank account, made the default',
        value: { ...newBankAccount, setAsDefault: true },
      },
      card: {
        summary: 'A card',
        value: { ...newCard, accountType: 'MASTERCARD', cardNumber: '5555555555554444' },
      },
    },
    response: success('The bank account added, now the default (the number masked)', bankAccountView),
    invalid: {
      summary: 'A card without its expiry',
      body: { accountType: 'VISA', cardNumber: '4111111111111111', billingAddress },
      response: refused(['expiryMonth', 'expiryMonth is required'], ['expiryYear', 'expiryYear is required']),
    },
  },
  GetMethod: { response: success('The method', cardView), invalid: noSuchQuery },
  UpdateMethod: {
    requests: {
      expiry: { summary: 'A new expiry date', value: { expiryMonth: 6, expiryYear: 2031 } },
    },
    response: success('The method after the update', {
      ...cardView,
      expiryMonth: 6,
      expiryYear: 2031,
      ...updated,
    }),
    invalid: {
      summary: 'A month out of range',
      body: { expiryMonth: 13 },
      response: refused(['expiryMonth', 'expiryMonth must be <= 12']),
    },
  },
  DeleteMethod: { invalid: noSuchQuery },
};
