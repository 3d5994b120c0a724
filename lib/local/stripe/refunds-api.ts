/**
 * The stand-in's refunds: made at once (`succeeded`; a bank debit's `pending`), and, for the test
 * cards whose refunds change later (test-numbers.ts), turned `failed` or `succeeded` when that
 * falls due on the stand-in's clock (`settleRefunds`, with the debits). A test helper fails any
 * refund now (`failRefund`, `/_stand-in/refund-failures`): a refund Stripe accepted and could not
 * give back, as it tells it (`charge.refund.updated`, `refund.updated`, `refund.failed`).
 */
import type Stripe from 'stripe';
import { invalidRequest, missing, noSuch, StandInError } from './errors';
import { newStripeId, listObject, refundObject } from './objects';
import { metadataOf } from './payments-api';
import { createdFilter, page, type AccountState, type StandInState } from './state';
import type { Params } from './vault-api';

export function createRefund(state: StandInState, account: AccountState, params: Params): Stripe.Refund {
  if (typeof params.payment_intent !== 'string') throw missing('payment_intent');
  const intent = account.intents.get(params.payment_intent);
  if (!intent) throw noSuch('payment_intent', params.payment_intent, 'payment_intent');
  const charge =
    typeof intent.latest_charge === 'string' ? account.charges.get(intent.latest_charge) : undefined;
  const refusal = (code: string, message: string) =>
    new StandInError(400, { type: 'invalid_request_error', code, message }, true);
  if (intent.status !== 'succeeded' || !charge)
    throw refusal(
      'charge_not_refundable',
      `This PaymentIntent (${intent.id}) does not have a successful charge to refund.`,
    );
  const left = charge.amount - charge.amount_refunded;
  if (left === 0) throw refusal('charge_already_refunded', `Charge ${charge.id} has already been refunded.`);
  const amount = params.amount === undefined ? left : Number(params.amount);
  if (!Number.isInteger(amount) || amount < 1)
    throw invalidRequest('Invalid integer: amount', 'amount', 'parameter_invalid_integer');
  if (amount > left)
    throw refusal(
      'amount_too_large',
      `Refund amount ($${(amount / 100).toFixed(2)}) is greater than unrefunded amount on charge ($${(left / 100).toFixed(2)})`,
    );
  const refunded = charge.amount_refunded + amount;
  account.charges.set(charge.id, {
    ...charge,
    amount_refunded: refunded,
    refunded: refunded === charge.amount,
  });
  const later =
    typeof intent.payment_method === 'string' ? account.methods.get(intent.payment_method)?.card : undefined;
  const changes = later?.kind === 'approve' ? later.refund : undefined;
  const bank = intent.payment_method_types.includes('us_bank_account');
  const refund = refundObject({
    id: newStripeId('re'),
    created: state.seconds(),
    amount,
    charge: charge.id,
    payment_intent: intent.id,
    metadata: metadataOf(params),
    status: bank || changes === 'pending' ? 'pending' : 'succeeded',
  });
  account.refunds.set(refund.id, refund);
  if (changes !== undefined)
    account.refundChanges.push({
      refund: refund.id,
      dueAt: state.seconds() + state.refundChangesAfterSeconds,
      to: changes === 'fails' ? 'failed' : 'succeeded',
    });
  state.emit(account, 'charge.refunded', account.charges.get(charge.id)!);
  return refund;
}

export function listRefunds(account: AccountState, params: Params) {
  const inWindow = createdFilter(params.created);
  const items = [...account.refunds.values()].filter(
    (r) =>
      inWindow(r.created) &&
      (params.payment_intent === undefined || r.payment_intent === params.payment_intent),
  );
  const { data, hasMore } = page(items, params);
  return listObject('/v1/refunds', data, hasMore);
}

/** A refund's change of status, with the events Stripe sends of it. */
function changeRefund(
  state: StandInState,
  account: AccountState,
  refund: Stripe.Refund,
  change: Partial<Stripe.Refund>,
): Stripe.Event[] {
  const changed: Stripe.Refund = { ...refund, ...change };
  account.refunds.set(refund.id, changed);
  const previous = { status: refund.status };
  const events = [
    state.emit(account, 'charge.refund.updated', changed, previous),
    state.emit(account, 'refund.updated', changed, previous),
  ];
  if (changed.status === 'failed') events.push(state.emit(account, 'refund.failed', changed, previous));
  return events;
}

/**
 * Test helper: the refund fails now (Stripe could not give the money back: the card expired or
 * was cancelled, lost or stolen...), its amount no longer refunded on its charge; its events.
 * Refused for a refund that is not `succeeded` or `pending`.
 */
export function failRefund(
  state: StandInState,
  account: AccountState,
  id: string,
  reason = 'expired_or_canceled_card',
): Stripe.Event[] {
  const refund = account.refunds.get(id);
  if (!refund) throw noSuch('refund', id);
  if (refund.status !== 'succeeded' && refund.status !== 'pending')
    throw invalidRequest(`The refund ${id} is ${refund.status}: it cannot fail.`, 'refund');
  const chargeId = typeof refund.charge === 'string' ? refund.charge : undefined;
  const charge = chargeId === undefined ? undefined : account.charges.get(chargeId);
  if (charge) {
    const refunded = charge.amount_refunded - refund.amount;
    account.charges.set(charge.id, { ...charge, amount_refunded: refunded, refunded: false });
  }
  account.refundChanges = account.refundChanges.filter((c) => c.refund !== id);
  return changeRefund(state, account, refund, {
    status: 'failed',
    failure_reason: reason as Stripe.Refund['failure_reason'],
  });
}

/** Refunds whose later status has fallen due (the test cards'): failed or succeeded, with their events. */
export function settleRefunds(state: StandInState): void {
  const now = state.seconds();
  for (const account of state.allAccounts()) {
    const due = account.refundChanges.filter((c) => c.dueAt <= now);
    account.refundChanges = account.refundChanges.filter((c) => c.dueAt > now);
    for (const change of due) {
      const refund = account.refunds.get(change.refund);
      if (!refund || (refund.status !== 'succeeded' && refund.status !== 'pending')) continue;
      if (change.to === 'failed') failRefund(state, account, refund.id);
      else changeRefund(state, account, refund, { status: 'succeeded' });
    }
  }
}
