/**
 * Vaulting at Stripe, on the merchant's connected account: one customer per payor, a
 * PaymentMethod attached to it (a card by its number, which needs Stripe's raw card data access,
 * or a `pm_...` that Stripe's browser fields made), and for a bank account a SetupIntent that
 * records the payor's mandate, whose id every debit quotes.
 */
import { lookup } from './lookup';
import type Stripe from 'stripe';
import { BadRequestError } from '#shared/errors';
import type { BankMandate, TokenizeRequest, Vaulted } from '#processor/processor';
import { attempt, idOf, must } from './calls';
import { mapDecline } from './declines';
import { safeCode } from './errors';
import { vaultToken } from './vault-token';

const PAYOR_FIELD = 'payor_id';

/** Stripe's card brands that the service takes, by the service's names (others are left out). */
const BRANDS: Readonly<Record<string, string>> = {
  visa: 'VISA',
  mastercard: 'MASTERCARD',
  amex: 'AMEX',
  discover: 'DISCOVER',
};

/** The payor's customer: found by its metadata, else made (the key makes a repeat within a day find it). */
async function customerOf(
  stripe: Stripe,
  account: string,
  merchantId: string,
  payorId: string,
): Promise<string> {
  // Ids are UUIDs; anything else is never put in a search query.
  if (!/^[A-Za-z0-9-]{1,64}$/.test(payorId)) throw new BadRequestError('payorId is not an id');
  const found = await must('customer search', () =>
    stripe.customers.search(
      { query: `metadata['${PAYOR_FIELD}']:'${payorId}'`, limit: 1 },
      { stripeAccount: account },
    ),
  );
  const first = found.data[0];
  if (first !== undefined) return idOf(first.id, 'cus_', 'customer search');
  // Search lags creation by up to a minute; within a day the same key returns the same customer.
  const created = await must('customer', () =>
    stripe.customers.create(
      { metadata: { [PAYOR_FIELD]: payorId, merchant_id: merchantId } },
      { stripeAccount: account, idempotencyKey: `customer:${merchantId}:${payorId}` },
    ),
  );
  return idOf(created.id, 'cus_', 'customer');
}

/** A refusal of the account itself (a card Stripe will not take): the field named, Stripe's code quoted. */
function refusedAccount(field: string, failure: { kind: string; fields?: object; code?: string }): never {
  if (failure.kind === 'declined') {
    const { responseMessage } = mapDecline(failure.fields ?? {});
    throw new BadRequestError(`${field}: the processor declined the account: ${responseMessage}`);
  }
  throw new BadRequestError(`${field}: the processor refused the account (Stripe ${safeCode(failure.code)})`);
}

/** Stripe's mandate acceptance from the merchant's attestation. */
function acceptanceOf(
  mandate: BankMandate | undefined,
): Stripe.SetupIntentCreateParams.MandateData.CustomerAcceptance {
  if (mandate === undefined)
    throw new BadRequestError(
      'mandate: a bank account needs the payor’s mandate (acceptedAt, method) with this processor',
    );
  const acceptedAt = Date.parse(mandate.acceptedAt);
  if (!Number.isFinite(acceptedAt)) throw new BadRequestError('mandate.acceptedAt is not a date-time');
  const accepted_at = Math.floor(acceptedAt / 1000);
  if (mandate.method !== 'online') return { type: 'offline', accepted_at, offline: {} };
  if (mandate.ipAddress === undefined || mandate.userAgent === undefined)
    throw new BadRequestError('mandate: an online mandate needs the payor’s ipAddress and userAgent');
  return {
    type: 'online',
    accepted_at,
    online: { ip_address: mandate.ipAddress, user_agent: mandate.userAgent },
  };
}

/** The PaymentMethod to vault: made from the numbers, or the browser fields' one read back. */
async function paymentMethodOf(
  stripe: Stripe,
  account: string,
  request: TokenizeRequest,
): Promise<Stripe.PaymentMethod> {
  const options = { stripeAccount: account };
  if ('processorToken' in request) {
    if (!/^pm_[A-Za-z0-9_]{1,250}$/.test(request.processorToken))
      throw new BadRequestError('processorToken: not a Stripe PaymentMethod id (pm_...)');
    const read = await attempt('payment method', () =>
      stripe.paymentMethods.retrieve(request.processorToken, {}, options),
    );
    if ('failed' in read) refusedAccount('processorToken', read.failed);
    const wanted = request.kind === 'card' ? 'card' : 'us_bank_account';
    if (read.ok.type !== wanted) throw new BadRequestError(`processorToken: not a ${wanted} PaymentMethod`);
    return read.ok;
  }
  const params: Stripe.PaymentMethodCreateParams =
    request.kind === 'card'
      ? {
          type: 'card',
          card: { number: request.number, exp_month: request.expiryMonth, exp_year: request.expiryYear },
        }
      : {
          type: 'us_bank_account',
          us_bank_account: {
            routing_number: request.routingNumber,
            account_number: request.accountNumber,
            account_holder_type: 'individual',
            account_type: request.accountType === 'SAVINGS' ? 'savings' : 'checking',
          },
          // Stripe asks for the holder's name; the payor's id stands for it (the service keeps no name).
          billing_details: { name: `Payor ${request.payorId}` },
        };
  const made = await attempt('payment method', () => stripe.paymentMethods.create(params, options));
  if ('failed' in made) refusedAccount(request.kind === 'card' ? 'cardNumber' : 'accountNumber', made.failed);
  return made.ok;
}

export async function vault(stripe: Stripe, account: string, request: TokenizeRequest): Promise<Vaulted> {
  const field =
    'processorToken' in request ? 'processorToken' : request.kind === 'card' ? 'cardNumber' : 'accountNumber';
  // Checked before anything is made at Stripe.
  const acceptance = request.kind === 'bank' ? acceptanceOf(request.mandate) : undefined;
  const customer = await customerOf(stripe, account, request.merchantId, request.payorId);
  const method = await paymentMethodOf(stripe, account, request);
  const paymentMethod = idOf(method.id, 'pm_', 'payment method');
  const options = { stripeAccount: account };
  if (request.kind === 'card') {
    const attached = await attempt('attach', () =>
      stripe.paymentMethods.attach(paymentMethod, { customer }, options),
    );
    if ('failed' in attached) refusedAccount(field, attached.failed);
    const card = attached.ok.card ?? method.card;
    const brand = card ? lookup(BRANDS, card.brand) : undefined;
    return {
      token: vaultToken({ customer, paymentMethod }),
      ...(card?.fingerprint && { fingerprint: card.fingerprint }),
      // What Stripe answers null (or leaves out) is not told: the caller refuses a method without it.
      ...(typeof card?.last4 === 'string' && { last4: card.last4 }),
      ...(Number.isInteger(card?.exp_month) && { expiryMonth: card!.exp_month }),
      ...(Number.isInteger(card?.exp_year) && { expiryYear: card!.exp_year }),
      ...(brand !== undefined && { brand }),
    };
  }
  // The mandate: a SetupIntent confirmed with the payor's acceptance (it also attaches the method).
  const setup = await attempt('setup intent', () =>
    stripe.setupIntents.create(
      {
        customer,
        payment_method: paymentMethod,
        allowed_payment_method_types: ['us_bank_account'],
        confirm: true,
        usage: 'off_session',
        mandate_data: { customer_acceptance: acceptance! },
      },
      options,
    ),
  );
  if ('failed' in setup) refusedAccount(field, setup.failed);
  if (setup.ok.status !== 'succeeded')
    // Stripe wants the account verified (micro-deposits) before it debits it: not a flow this
    // service runs; Stripe's browser fields verify instantly.
    throw new BadRequestError(
      `${field}: the processor asks to verify this bank account first (SetupIntent ${safeCode(setup.ok.status)}); add it through the processor's own fields (processorToken)`,
    );
  const mandate = idOf(setup.ok.mandate, 'mandate_', 'setup intent');
  const bank = method.us_bank_account;
  return {
    token: vaultToken({ customer, paymentMethod, mandate }),
    ...(bank?.fingerprint && { fingerprint: bank.fingerprint }),
    ...(typeof bank?.last4 === 'string' && { last4: bank.last4 }),
    ...(bank?.account_type === 'checking' && { accountType: 'CHECKING' as const }),
    ...(bank?.account_type === 'savings' && { accountType: 'SAVINGS' as const }),
  };
}
