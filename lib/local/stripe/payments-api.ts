/**
 * The stand-in's PaymentIntents, charges and events (refunds: refunds-api.ts): a card charge is decided when it is
 * confirmed (by the card's test number), a bank debit is `processing` until its outcome falls due
 * on the stand-in's clock (`settleDebits`), a disputed test card is disputed once charged.
 */
import type Stripe from 'stripe';
import { invalidRequest, missing, noSuch, StandInError } from './errors';
import {
  chargeObject,
  disputeObject,
  listObject,
  newStripeId,
  paymentIntentObject,
  type CardDetails,
} from './objects';
import { createdFilter, page, type AccountState, type StandInState } from './state';
import type { Params } from './vault-api';

export const metadataOf = (params: Params): Stripe.Metadata =>
  typeof params.metadata === 'object' && params.metadata !== null ? (params.metadata as Stripe.Metadata) : {};
const expansions = (params: Params): string[] =>
  Array.isArray(params.expand) ? params.expand.map(String) : [];

/** A PaymentIntent as answered: `latest_charge` expanded when asked (`data.` prefixed in lists). */
function intentView(account: AccountState, intent: Stripe.PaymentIntent, expand: string[], prefix = '') {
  const charge =
    expand.includes(`${prefix}latest_charge`) && typeof intent.latest_charge === 'string'
      ? account.charges.get(intent.latest_charge)
      : undefined;
  return charge ? { ...intent, latest_charge: charge } : intent;
}

function save(account: AccountState, intent: Stripe.PaymentIntent): Stripe.PaymentIntent {
  account.intents.set(intent.id, intent);
  return intent;
}

export function createPaymentIntent(state: StandInState, account: AccountState, params: Params) {
  const amount = Number(params.amount);
  if (params.amount === undefined) throw missing('amount');
  if (!Number.isInteger(amount) || amount < 1)
    throw invalidRequest('Invalid integer: amount', 'amount', 'parameter_invalid_integer');
  if (amount < 50) throw invalidRequest('Amount must be at least $0.50 usd', 'amount', 'amount_too_small');
  if (params.currency !== 'usd') throw invalidRequest('The stand-in charges usd only.', 'currency');
  const customer = typeof params.customer === 'string' ? params.customer : null;
  if (customer !== null && !account.customers.has(customer)) throw noSuch('customer', customer, 'customer');
  const methodId = typeof params.payment_method === 'string' ? params.payment_method : null;
  const method = methodId === null ? undefined : account.methods.get(methodId);
  if (methodId !== null && !method) throw noSuch('PaymentMethod', methodId, 'payment_method');
  if (method && method.object.customer !== customer)
    throw invalidRequest('The PaymentMethod does not belong to this customer.', 'payment_method');
  const base = {
    id: newStripeId('pi'),
    created: state.seconds(),
    amount,
    customer,
    payment_method: methodId,
    type: (method?.object.type ?? 'card') as 'card' | 'us_bank_account',
    metadata: metadataOf(params),
    latest_charge: null,
  };
  const expand = expansions(params);
  if (params.confirm !== 'true' || !method)
    return save(
      account,
      paymentIntentObject({ ...base, status: method ? 'requires_confirmation' : 'requires_payment_method' }),
    );
  const chargeId = newStripeId('ch');
  const charge = (status: Stripe.Charge.Status, failure?: { code: string; declineCode?: string }) =>
    chargeObject({
      id: chargeId,
      created: state.seconds(),
      amount,
      customer: customer!,
      payment_intent: base.id,
      payment_method: methodId!,
      status,
      ...(method.object.card && { card: method.object.card as CardDetails }),
      ...(failure && { failure }),
    });
  if (method.bank) {
    const mandate = typeof params.mandate === 'string' ? account.mandates.get(params.mandate) : undefined;
    if (!mandate || mandate.payment_method !== methodId)
      throw invalidRequest(
        'A bank debit needs the mandate of its PaymentMethod.',
        'mandate',
        'payment_intent_mandate_invalid',
      );
    account.charges.set(chargeId, charge('pending'));
    const intent = save(
      account,
      paymentIntentObject({ ...base, latest_charge: chargeId, status: 'processing' }),
    );
    account.debits.push({
      intent: intent.id,
      dueAt: state.seconds() + state.debitSettlesAfterSeconds,
      outcome: method.bank,
    });
    state.emit(account, 'payment_intent.processing', intent);
    return intentView(account, intent, expand);
  }
  const outcome = method.card ?? { kind: 'approve' as const };
  const offSession = params.off_session === 'true';
  if (outcome.kind === 'approve') {
    account.charges.set(chargeId, charge('succeeded'));
    const intent = save(
      account,
      paymentIntentObject({ ...base, latest_charge: chargeId, status: 'succeeded' }),
    );
    state.emit(account, 'payment_intent.succeeded', intent);
    if (outcome.dispute) openDispute(state, account, intent, chargeId, outcome.dispute);
    return intentView(account, intent, expand);
  }
  if (outcome.kind === 'authenticate' && !offSession)
    return save(account, paymentIntentObject({ ...base, status: 'requires_action' }));
  const failure =
    outcome.kind === 'decline'
      ? { code: outcome.code, ...(outcome.declineCode !== undefined && { declineCode: outcome.declineCode }) }
      : { code: 'authentication_required', declineCode: 'authentication_required' };
  account.charges.set(chargeId, charge('failed', failure));
  const error: Stripe.PaymentIntent.LastPaymentError = {
    type: 'card_error',
    code: failure.code,
    ...(failure.declineCode !== undefined && { decline_code: failure.declineCode }),
    charge: chargeId,
    message: 'Your card was declined.',
    payment_method: method.object,
  };
  const intent = save(
    account,
    paymentIntentObject({
      ...base,
      latest_charge: chargeId,
      status: 'requires_payment_method',
      last_payment_error: error,
    }),
  );
  state.emit(account, 'payment_intent.payment_failed', intent);
  throw new StandInError(
    402,
    {
      type: 'card_error',
      code: failure.code,
      ...(failure.declineCode !== undefined && { decline_code: failure.declineCode }),
      message: 'Your card was declined.',
      payment_intent: intentView(account, intent, expand),
    },
    true,
  );
}

function openDispute(
  state: StandInState,
  account: AccountState,
  intent: Stripe.PaymentIntent,
  charge: string,
  reason: string,
): void {
  const dispute = disputeObject({
    id: newStripeId('du'),
    created: state.seconds(),
    amount: intent.amount,
    charge,
    payment_intent: intent.id,
    reason,
  });
  account.disputes.set(dispute.id, dispute);
  const stored = account.charges.get(charge);
  if (stored) account.charges.set(charge, { ...stored, disputed: true });
  state.emit(account, 'charge.dispute.created', dispute);
}

export function retrievePaymentIntent(account: AccountState, id: string, params: Params) {
  const intent = account.intents.get(id);
  if (!intent) throw noSuch('payment_intent', id);
  return intentView(account, intent, expansions(params));
}

export function listPaymentIntents(account: AccountState, params: Params) {
  const inWindow = createdFilter(params.created);
  const items = [...account.intents.values()].filter(
    (i) => inWindow(i.created) && (params.customer === undefined || i.customer === params.customer),
  );
  const { data, hasMore } = page(items, params);
  const expand = expansions(params);
  return listObject(
    '/v1/payment_intents',
    data.map((i) => intentView(account, i, expand, 'data.')),
    hasMore,
  );
}

export function cancelPaymentIntent(
  state: StandInState,
  account: AccountState,
  id: string,
): Stripe.PaymentIntent {
  const intent = account.intents.get(id);
  if (!intent) throw noSuch('payment_intent', id);
  if (
    !['requires_payment_method', 'requires_confirmation', 'requires_action', 'requires_capture'].includes(
      intent.status,
    )
  )
    throw new StandInError(
      400,
      {
        type: 'invalid_request_error',
        code: 'payment_intent_unexpected_state',
        message: `You cannot cancel this PaymentIntent because it has a status of ${intent.status}.`,
      },
      true,
    );
  const canceled = save(account, {
    ...intent,
    status: 'canceled',
    canceled_at: state.seconds(),
    cancellation_reason: 'requested_by_customer',
  });
  state.emit(account, 'payment_intent.canceled', canceled);
  return canceled;
}

export function listEvents(account: AccountState, params: Params) {
  const inWindow = createdFilter(params.created);
  // `type` (one) or `types` (several, as `types[0]=…`), as Stripe filters them.
  const types = Array.isArray(params.types) ? (params.types as unknown[]) : undefined;
  const items = account.events.filter(
    (e) =>
      inWindow(e.created) &&
      (params.type === undefined || e.type === params.type) &&
      (types === undefined || types.includes(e.type)),
  );
  const { data, hasMore } = page(items, params);
  return listObject('/v1/events', data, hasMore);
}

/** Bank debits whose outcome has fallen due: cleared (succeeded) or failed, each with its event. */
export function settleDebits(state: StandInState): void {
  const now = state.seconds();
  for (const account of state.allAccounts()) {
    const due = account.debits.filter((d) => d.dueAt <= now);
    account.debits = account.debits.filter((d) => d.dueAt > now);
    for (const debit of due) {
      const intent = account.intents.get(debit.intent);
      if (!intent || intent.status !== 'processing') continue;
      const chargeId = intent.latest_charge as string;
      const charge = account.charges.get(chargeId)!;
      if (debit.outcome.kind === 'clear') {
        account.charges.set(chargeId, {
          ...charge,
          status: 'succeeded',
          captured: true,
          amount_captured: charge.amount,
        });
        state.emit(
          account,
          'payment_intent.succeeded',
          save(account, { ...intent, status: 'succeeded', amount_received: intent.amount }),
        );
        continue;
      }
      const code = debit.outcome.code;
      account.charges.set(chargeId, {
        ...charge,
        status: 'failed',
        paid: false,
        failure_code: code,
        failure_message: 'The debit was returned.',
      });
      const failed = save(account, {
        ...intent,
        status: 'requires_payment_method',
        last_payment_error: { type: 'invalid_request_error', code, message: 'The debit was returned.' },
      });
      state.emit(account, 'payment_intent.payment_failed', failed);
    }
  }
}

/**
 * Test helper: a dispute moves on (evidence submitted: `under_review`) or closes (`won`, `lost`),
 * with its event, as Stripe's test mode does when evidence is submitted.
 */
export function moveDispute(
  state: StandInState,
  account: AccountState,
  id: string,
  status: 'under_review' | 'won' | 'lost',
): Stripe.Event {
  const dispute = account.disputes.get(id);
  if (!dispute) throw noSuch('dispute', id);
  const moved: Stripe.Dispute = { ...dispute, status };
  account.disputes.set(id, moved);
  const previous = { status: dispute.status };
  return status === 'under_review'
    ? state.emit(account, 'charge.dispute.updated', moved, previous)
    : state.emit(account, 'charge.dispute.closed', moved, previous);
}

/** Test helper: Stripe's card updater changed a vaulted card (a new expiry, or a new number). */
export function updateCard(
  state: StandInState,
  account: AccountState,
  id: string,
  change: { exp_month: number; exp_year: number; last4?: string; fingerprint?: string },
): Stripe.Event {
  const method = account.methods.get(id);
  if (!method?.object.card) throw noSuch('card PaymentMethod', id);
  const before = method.object.card;
  const previous: Record<string, unknown> = { exp_month: before.exp_month, exp_year: before.exp_year };
  if (change.last4 !== undefined)
    Object.assign(previous, { last4: before.last4, fingerprint: before.fingerprint });
  method.object = { ...method.object, card: { ...before, ...change } };
  return state.emit(account, 'payment_method.automatically_updated', method.object, { card: previous });
}
