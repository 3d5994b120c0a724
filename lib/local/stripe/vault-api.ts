/**
 * The stand-in's customers, PaymentMethods, SetupIntents and mandates: what vaulting a card or a
 * bank account asks of Stripe. Parameters arrive as Stripe's form encoding parses (strings).
 */
import type Stripe from 'stripe';
import { invalidRequest, missing, noSuch, StandInError } from './errors';
import {
  customerObject,
  mandateObject,
  newStripeId,
  paymentMethodObject,
  searchObject,
  setupIntentObject,
} from './objects';
import type { AccountState, StandInState } from './state';
import { bankOutcome, brandOf, cardOutcome, fingerprintOf } from './test-numbers';

export type Params = Record<string, unknown>;

const text = (params: Params, name: string): string => {
  const value = params[name];
  if (typeof value !== 'string' || value === '') throw missing(name);
  return value;
};
const metadataOf = (params: Params): Stripe.Metadata =>
  typeof params.metadata === 'object' && params.metadata !== null ? (params.metadata as Stripe.Metadata) : {};

export function createCustomer(state: StandInState, account: AccountState, params: Params): Stripe.Customer {
  const customer = customerObject({
    id: newStripeId('cus'),
    created: state.seconds(),
    metadata: metadataOf(params),
  });
  account.customers.set(customer.id, customer);
  return customer;
}

/** Stripe's search language, the part the adapter speaks: `metadata['key']:'value'` clauses joined by AND. */
export function searchCustomers(account: AccountState, params: Params) {
  const query = text(params, 'query');
  const clauses = query.split(/\s+AND\s+/);
  const tests = clauses.map((clause) => {
    const match = /^metadata\['([^']+)'\]:'([^']*)'$/.exec(clause.trim());
    if (!match) throw invalidRequest(`The stand-in does not search by: ${clause}`, 'query');
    return (c: Stripe.Customer) => c.metadata[match[1]!] === match[2];
  });
  const found = [...account.customers.values()].filter((c) => tests.every((t) => t(c)));
  return searchObject('/v1/customers/search', found.slice(0, Number(params.limit ?? 10)));
}

export function createPaymentMethod(
  state: StandInState,
  account: AccountState,
  params: Params,
): Stripe.PaymentMethod {
  const type = text(params, 'type');
  const id = newStripeId('pm');
  const created = state.seconds();
  if (type === 'card') {
    const card = (params.card ?? {}) as Params;
    const number = text(card, 'number');
    const [month, year] = [Number(card.exp_month), Number(card.exp_year)];
    if (!/^\d{12,19}$/.test(number))
      throw cardError('incorrect_number', 'Your card number is incorrect.', 'card[number]');
    if (!Number.isInteger(month) || month < 1 || month > 12)
      throw cardError('invalid_expiry_month', "Your card's expiration month is invalid.", 'card[exp_month]');
    if (!Number.isInteger(year))
      throw cardError('invalid_expiry_year', "Your card's expiration year is invalid.", 'card[exp_year]');
    const object = paymentMethodObject({
      id,
      created,
      customer: null,
      card: {
        brand: brandOf(number),
        last4: number.slice(-4),
        exp_month: month,
        exp_year: year,
        fingerprint: fingerprintOf(`card:${number}`),
      },
    });
    account.methods.set(id, { object, card: cardOutcome(number) });
    return object;
  }
  if (type === 'us_bank_account') {
    const bank = (params.us_bank_account ?? {}) as Params;
    const accountNumber = text(bank, 'account_number');
    const routing = text(bank, 'routing_number');
    // As Stripe: checking unless the request says savings; no other value.
    const accountType = bank.account_type ?? 'checking';
    if (accountType !== 'checking' && accountType !== 'savings')
      throw invalidRequest(
        `Invalid us_bank_account[account_type]: must be one of checking or savings`,
        'us_bank_account[account_type]',
      );
    const name = ((params.billing_details ?? {}) as Params).name;
    if (typeof name !== 'string' || name === '') throw missing('billing_details[name]');
    if (!/^\d{9}$/.test(routing))
      throw invalidRequest(
        'Routing number must have 9 digits',
        'us_bank_account[routing_number]',
        'routing_number_invalid',
      );
    const object = paymentMethodObject({
      id,
      created,
      customer: null,
      name,
      bank: {
        last4: accountNumber.slice(-4),
        fingerprint: fingerprintOf(`bank:${routing}:${accountNumber}`),
        routing_number: routing,
        account_type: accountType,
      },
    });
    account.methods.set(id, { object, bank: bankOutcome(accountNumber) });
    return object;
  }
  throw invalidRequest(`The stand-in makes card and us_bank_account PaymentMethods, not ${type}.`, 'type');
}

function cardError(code: string, message: string, param: string): StandInError {
  return new StandInError(402, { type: 'card_error', code, message, param });
}

export function retrievePaymentMethod(account: AccountState, id: string): Stripe.PaymentMethod {
  const found = account.methods.get(id);
  if (!found) throw noSuch('PaymentMethod', id);
  return found.object;
}

export function attachPaymentMethod(account: AccountState, id: string, params: Params): Stripe.PaymentMethod {
  const customer = text(params, 'customer');
  const found = account.methods.get(id);
  if (!found) throw noSuch('PaymentMethod', id);
  if (!account.customers.has(customer)) throw noSuch('customer', customer, 'customer');
  if (found.object.customer !== null && found.object.customer !== customer)
    throw invalidRequest(
      'The payment method you provided has already been attached to a customer.',
      'payment_method',
    );
  found.object = { ...found.object, customer };
  return found.object;
}

function acceptanceOf(params: Params): Stripe.Mandate.CustomerAcceptance {
  const acceptance = ((params.mandate_data ?? {}) as Params).customer_acceptance as Params | undefined;
  if (!acceptance) throw missing('mandate_data[customer_acceptance]');
  const acceptedAt = Number(acceptance.accepted_at);
  const type = text(acceptance, 'type');
  if (type === 'online') {
    const online = (acceptance.online ?? {}) as Params;
    return {
      type,
      accepted_at: acceptedAt,
      online: { ip_address: text(online, 'ip_address'), user_agent: text(online, 'user_agent') },
    };
  }
  if (type === 'offline') return { type, accepted_at: acceptedAt, offline: {} };
  throw invalidRequest(
    `Invalid customer_acceptance type: ${type}`,
    'mandate_data[customer_acceptance][type]',
  );
}

/** A SetupIntent confirmed at once with the payor's mandate: the stand-in verifies every account. */
export function createSetupIntent(
  state: StandInState,
  account: AccountState,
  params: Params,
): Stripe.SetupIntent {
  const customer = text(params, 'customer');
  const methodId = text(params, 'payment_method');
  if (params.confirm !== 'true')
    throw invalidRequest('The stand-in confirms SetupIntents when they are made: confirm=true.', 'confirm');
  const method = account.methods.get(methodId);
  if (!method) throw noSuch('PaymentMethod', methodId, 'payment_method');
  if (!account.customers.has(customer)) throw noSuch('customer', customer, 'customer');
  if (method.object.type !== 'us_bank_account')
    throw invalidRequest('The stand-in sets up us_bank_account PaymentMethods only.', 'payment_method');
  const acceptance = acceptanceOf(params);
  const mandate = mandateObject({ id: newStripeId('mandate'), payment_method: methodId, acceptance });
  account.mandates.set(mandate.id, mandate);
  method.object = { ...method.object, customer };
  const intent = setupIntentObject({
    id: newStripeId('seti'),
    created: state.seconds(),
    customer,
    payment_method: methodId,
    mandate: mandate.id,
    metadata: metadataOf(params),
  });
  account.setupIntents.set(intent.id, intent);
  return intent;
}
