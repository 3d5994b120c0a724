/**
 * The stand-in's answers, typed by the `stripe` package's own types and built from the examples
 * Stripe publishes with its OpenAPI description (fixtures/fixtures3.json, MIT, LICENSE beside
 * it): each object starts as Stripe's full example, with the fields the stand-in knows set on it
 * and the example's incidental values (a discount, a transfer, a next action) cleared.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type Stripe from 'stripe';

const FIXTURES = (
  JSON.parse(readFileSync(resolve(__dirname, 'fixtures', 'fixtures3.json'), 'utf8')) as {
    resources: Record<string, unknown>;
  }
).resources;

/** A fresh copy of Stripe's example of `name`. */
function example<T>(name: string): T {
  const found = FIXTURES[name];
  if (found === undefined) throw new Error(`no Stripe example of ${name}`);
  return structuredClone(found) as T;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** An id as Stripe makes them: a prefix and 24 letters and digits. */
export const newStripeId = (prefix: string): string =>
  `${prefix}_${[...randomBytes(24)].map((b) => ALPHABET[b % ALPHABET.length]).join('')}`;

export function customerObject(f: {
  id: string;
  created: number;
  metadata: Stripe.Metadata;
}): Stripe.Customer {
  return {
    ...example<Stripe.Customer>('customer'),
    id: f.id,
    created: f.created,
    metadata: f.metadata,
    discount: null,
    livemode: false,
  };
}

export type CardDetails = Pick<
  Stripe.PaymentMethod.Card,
  'brand' | 'last4' | 'exp_month' | 'exp_year' | 'fingerprint'
>;
type BankDetails = {
  last4: string;
  fingerprint: string;
  routing_number: string;
  account_type: 'checking' | 'savings';
};

export function paymentMethodObject(f: {
  id: string;
  created: number;
  customer: string | null;
  card?: CardDetails;
  bank?: BankDetails;
  name?: string | null;
}): Stripe.PaymentMethod {
  const base = example<Stripe.PaymentMethod>('payment_method');
  const common = {
    ...base,
    id: f.id,
    created: f.created,
    customer: f.customer,
    livemode: false,
    metadata: {},
    billing_details: { ...base.billing_details, email: null, phone: null, name: f.name ?? null },
  };
  if (f.card)
    return {
      ...common,
      type: 'card',
      card: { ...base.card!, ...f.card, display_brand: f.card.brand, wallet: null, generated_from: null },
    };
  const { card: _card, ...withoutCard } = common;
  return {
    ...withoutCard,
    type: 'us_bank_account',
    us_bank_account: {
      account_holder_type: 'individual',
      account_type: f.bank!.account_type,
      bank_name: 'STRIPE TEST BANK',
      financial_connections_account: null,
      fingerprint: f.bank!.fingerprint,
      last4: f.bank!.last4,
      networks: { preferred: 'ach', supported: ['ach'] },
      routing_number: f.bank!.routing_number,
      status_details: null,
    },
  };
}

export function setupIntentObject(f: {
  id: string;
  created: number;
  customer: string;
  payment_method: string;
  mandate: string;
  metadata: Stripe.Metadata;
}): Stripe.SetupIntent {
  return {
    ...example<Stripe.SetupIntent>('setup_intent'),
    id: f.id,
    created: f.created,
    customer: f.customer,
    payment_method: f.payment_method,
    mandate: f.mandate,
    metadata: f.metadata,
    client_secret: `${f.id}_secret_${newStripeId('x').slice(2)}`,
    last_setup_error: null,
    next_action: null,
    payment_method_types: ['us_bank_account'],
    status: 'succeeded',
    usage: 'off_session',
    livemode: false,
  };
}

export function mandateObject(f: {
  id: string;
  payment_method: string;
  acceptance: Stripe.Mandate.CustomerAcceptance;
}): Stripe.Mandate {
  return {
    ...example<Stripe.Mandate>('mandate'),
    id: f.id,
    customer_acceptance: f.acceptance,
    payment_method: f.payment_method,
    payment_method_details: {
      type: 'us_bank_account',
      us_bank_account: {},
    } as Stripe.Mandate.PaymentMethodDetails,
    status: 'active',
    type: 'multi_use',
    livemode: false,
  };
}

export function chargeObject(f: {
  id: string;
  created: number;
  amount: number;
  customer: string;
  payment_intent: string;
  payment_method: string;
  status: Stripe.Charge.Status;
  card?: CardDetails;
  failure?: { code: string; declineCode?: string };
}): Stripe.Charge {
  const base = example<Stripe.Charge>('charge');
  const paid = f.status !== 'failed';
  return {
    ...base,
    id: f.id,
    created: f.created,
    amount: f.amount,
    amount_captured: f.status === 'succeeded' ? f.amount : 0,
    amount_refunded: 0,
    balance_transaction: null,
    captured: f.status === 'succeeded',
    customer: f.customer,
    description: null,
    failure_code: f.failure?.code ?? null,
    failure_message: f.failure ? 'The payment failed.' : null,
    livemode: false,
    metadata: {},
    outcome: {
      ...base.outcome!,
      network_status: paid ? 'approved_by_network' : 'declined_by_network',
      reason: f.failure?.declineCode ?? null,
      seller_message: paid
        ? 'Payment complete.'
        : 'The bank did not return any further details with this decline.',
      type: paid ? 'authorized' : 'issuer_declined',
    },
    paid,
    payment_intent: f.payment_intent,
    payment_method: f.payment_method,
    payment_method_details: f.card
      ? {
          ...base.payment_method_details!,
          card: {
            ...base.payment_method_details!.card!,
            ...f.card,
            authorization_code: paid ? String(100000 + (f.created % 900000)) : null,
            wallet: null,
          },
          type: 'card',
        }
      : ({ type: 'us_bank_account', us_bank_account: {} } as Stripe.Charge.PaymentMethodDetails),
    receipt_url: null,
    refunded: false,
    status: f.status,
    transfer_data: null,
  };
}

export function paymentIntentObject(f: {
  id: string;
  created: number;
  amount: number;
  customer: string | null;
  payment_method: string | null;
  type: 'card' | 'us_bank_account';
  status: Stripe.PaymentIntent.Status;
  metadata: Stripe.Metadata;
  latest_charge: string | null;
  last_payment_error?: Stripe.PaymentIntent.LastPaymentError | null;
  canceled_at?: number | null;
}): Stripe.PaymentIntent {
  return {
    ...example<Stripe.PaymentIntent>('payment_intent'),
    id: f.id,
    created: f.created,
    amount: f.amount,
    amount_capturable: 0,
    amount_received: f.status === 'succeeded' ? f.amount : 0,
    automatic_payment_methods: null,
    canceled_at: f.canceled_at ?? null,
    cancellation_reason: f.status === 'canceled' ? 'requested_by_customer' : null,
    client_secret: `${f.id}_secret_${newStripeId('x').slice(2)}`,
    currency: 'usd',
    customer: f.customer,
    last_payment_error: f.last_payment_error ?? null,
    latest_charge: f.latest_charge,
    livemode: false,
    metadata: f.metadata,
    next_action: null,
    payment_method: f.payment_method,
    payment_method_types: [f.type],
    processing: null,
    shipping: null,
    status: f.status,
    transfer_data: null,
  };
}

export function refundObject(f: {
  id: string;
  created: number;
  amount: number;
  charge: string;
  payment_intent: string;
  metadata: Stripe.Metadata;
  status: string;
}): Stripe.Refund {
  return {
    ...example<Stripe.Refund>('refund'),
    id: f.id,
    created: f.created,
    amount: f.amount,
    charge: f.charge,
    payment_intent: f.payment_intent,
    metadata: f.metadata,
    status: f.status,
    balance_transaction: null,
  };
}

export function eventObject(f: {
  id: string;
  created: number;
  account: string;
  type: string;
  object: { object: string };
  previous_attributes?: Record<string, unknown>;
}): Stripe.Event {
  return {
    ...example<Stripe.Event>('event'),
    id: f.id,
    created: f.created,
    account: f.account,
    api_version: null,
    data: {
      object: f.object,
      ...(f.previous_attributes !== undefined && { previous_attributes: f.previous_attributes }),
    },
    livemode: false,
    pending_webhooks: 0,
    request: { id: null, idempotency_key: null },
    type: f.type,
  } as Stripe.Event;
}

export function disputeObject(f: {
  id: string;
  created: number;
  amount: number;
  charge: string;
  payment_intent: string;
  reason: string;
}): Stripe.Dispute {
  const base = example<Stripe.Dispute>('dispute');
  return {
    ...base,
    id: f.id,
    created: f.created,
    amount: f.amount,
    charge: f.charge,
    payment_intent: f.payment_intent,
    reason: f.reason,
    status: 'needs_response',
    evidence_details: { ...base.evidence_details, due_by: f.created + 7 * 86_400 },
    livemode: false,
    metadata: {},
  };
}

/** A list as Stripe answers one. */
export const listObject = <T>(url: string, data: T[], hasMore: boolean) => ({
  object: 'list' as const,
  data,
  has_more: hasMore,
  url,
});

export const searchObject = <T>(url: string, data: T[]) => ({
  object: 'search_result' as const,
  data,
  has_more: false,
  next_page: null,
  url,
});
