/**
 * Stripe's events as the processor port's notices (docs/integrating.md "Stripe's events"): what
 * the backstop lists (notice-listing.ts) and what Stripe's webhooks will carry, read by one mapping.
 *
 * - `payment_intent.succeeded` of a bank debit: it cleared;
 * - `payment_intent.payment_failed` of a bank debit (it was `processing`): it was returned, its
 *   ACH failure code read as the Nacha return code it stands for;
 * - `charge.dispute.created|updated|closed`: the card charge's dispute (Stripe's `warning_*`
 *   statuses, an inquiry before a chargeback, as `inquiry`); a dispute of a bank debit is how
 *   Stripe reports some unauthorized returns, so it is one (`R10`);
 * - `payment_method.automatically_updated`: a card network's account update;
 * - `charge.refund.updated`, `refund.updated`, `refund.failed` of a refund the service made whose
 *   status is now `failed` (or `canceled`): the refund failed after Stripe accepted it (Stripe's
 *   `failure_reason` its reason). The same failure comes as up to three events, three notices:
 *   the first applied, the others change nothing (the refund is Failed already).
 *
 * Every other event is not a notice. An event's `noticeId` is its id, so a webhook and the
 * listing of the same event are one notice, applied once.
 */
import { logger } from '#shared/logger';
import { lookup } from './lookup';
import Stripe from 'stripe';
import type { AccountUpdate, NoticeCharge, ProcessorNotice } from '#processor/processor';
import { isoOf, KEY_FIELD, must } from './calls';
import { safeCode } from './errors';
import { vaultToken } from './vault-token';

/**
 * Stripe's ACH failure codes (its `failure_code` of a failed debit) and the Nacha return codes
 * they stand for. Stripe folds the unauthorized returns (R05, R07, R10, R29, R51) into
 * `debit_not_authorized`: read as R10. A code not listed is `R99` (category `other`, Stripe's
 * message kept as the reason), so that no return is lost for want of a code.
 */
const ACH_RETURN_CODES: Readonly<Record<string, string>> = {
  insufficient_funds: 'R01',
  account_closed: 'R02',
  no_account: 'R03',
  invalid_account_number: 'R04',
  debit_not_authorized: 'R10',
  bank_ownership_changed: 'R12',
  account_frozen: 'R16',
  bank_account_restricted: 'R16',
};
const UNKNOWN_RETURN_CODE = 'R99';

/** Stripe's dispute statuses as the service's (`warning_*`: an inquiry, no money moved yet). */
const DISPUTE_STATUSES: Readonly<
  Record<string, 'inquiry' | 'needs_response' | 'under_review' | 'won' | 'lost'>
> = {
  warning_needs_response: 'inquiry',
  warning_under_review: 'inquiry',
  // An inquiry closed without a chargeback: the merchant keeps the money.
  warning_closed: 'won',
  needs_response: 'needs_response',
  under_review: 'under_review',
  won: 'won',
  lost: 'lost',
  // Stripe stopped the dispute before it became a chargeback.
  prevented: 'won',
};

export const isBankDebit = (intent: Stripe.PaymentIntent): boolean =>
  Array.isArray(intent.payment_method_types) && intent.payment_method_types.includes('us_bank_account');

const chargeOf = (intent: Stripe.PaymentIntent): NoticeCharge | undefined => {
  const key = intent.metadata?.[KEY_FIELD];
  return key === undefined ? undefined : { processorTransactionId: intent.id, idempotencyKey: key };
};

/** A masked number from the last four digits (an American Express number has 15 digits). */
const maskedOf = (last4: string, brand: string | undefined): string =>
  '*'.repeat(brand === 'amex' ? 11 : 12) + last4;

const isAmount = (cents: unknown): cents is number => Number.isInteger(cents) && (cents as number) > 0;

/** A month 1-12 and a four-digit year, as Stripe should give them (never null). */
const wellFormedExpiry = (card: Stripe.PaymentMethod.Card): boolean =>
  Number.isInteger(card.exp_month) &&
  card.exp_month >= 1 &&
  card.exp_month <= 12 &&
  Number.isInteger(card.exp_year) &&
  card.exp_year >= 1000 &&
  card.exp_year <= 9999;

/**
 * A `payment_method.automatically_updated` event as an account update, if it is one of a vaulted
 * card, told whole: an expiry or new last four digits Stripe left out or answered null would
 * otherwise be written on the saved method (`************undefined`, a null expiry). Such an event
 * is named in the log and not applied.
 */
export function accountUpdateOf(event: Stripe.Event): AccountUpdate | undefined {
  const method = event.data.object as Stripe.PaymentMethod;
  const card = method.card;
  if (typeof method.customer !== 'string' || !card) return undefined;
  const renumbered = (event.data.previous_attributes as { card?: Partial<Stripe.PaymentMethod.Card> })?.card;
  const newNumber = renumbered?.last4 !== undefined || renumbered?.fingerprint !== undefined;
  if (!wellFormedExpiry(card) || (newNumber && !/^\d{4}$/.test(String(card.last4)))) {
    logger.warn('a Stripe card update without a well-formed expiry or last four digits: not applied', {
      eventId: String(event.id),
    });
    return undefined;
  }
  const token = vaultToken({ customer: method.customer, paymentMethod: method.id });
  const base = { updateId: event.id, token, at: isoOf(event.created) };
  const expiry = { expiryMonth: card.exp_month, expiryYear: card.exp_year };
  if (newNumber)
    return {
      ...base,
      kind: 'new_number',
      maskedAccountNumber: maskedOf(card.last4, card.brand),
      ...(card.fingerprint ? { fingerprint: card.fingerprint } : {}),
      ...expiry,
    };
  return { ...base, kind: 'new_expiry', ...expiry };
}

/**
 * The PaymentIntent a dispute or a refund is about, read from Stripe (either names it but carries
 * none of the service's metadata of the charge); undefined when it is not one the service made.
 */
type IntentReader = (account: string, id: string) => Promise<Stripe.PaymentIntent | undefined>;

/** Reads a PaymentIntent of a connected account (a dispute's, a refund's). */
export const intentReader =
  (stripe: Stripe): IntentReader =>
  (account, id) =>
    must('notice’s payment', () => stripe.paymentIntents.retrieve(id, {}, { stripeAccount: account }));

/** A bank debit returned, as Stripe tells it: the debit, the Nacha code, Stripe's words. */
interface DebitReturn {
  intent: Stripe.PaymentIntent;
  charge: NoticeCharge;
  code: string;
  reason?: string;
}

/** A failed bank debit's return: its ACH failure code read as the Nacha return code it stands for. */
function failedDebitReturn(intent: Stripe.PaymentIntent): DebitReturn | undefined {
  const charge = chargeOf(intent);
  if (!isBankDebit(intent) || !charge) return undefined;
  const failure = intent.last_payment_error;
  const code = lookup(ACH_RETURN_CODES, failure?.code) || UNKNOWN_RETURN_CODE;
  return { intent, charge, code, ...(failure?.message !== undefined && { reason: failure.message }) };
}

/** A dispute of a bank debit: how Stripe reports some unauthorized returns (R10), when it opens. */
const disputedDebitReturn = (
  type: string,
  dispute: Stripe.Dispute,
  intent: Stripe.PaymentIntent,
  charge: NoticeCharge,
): DebitReturn | undefined =>
  type === 'charge.dispute.created'
    ? { intent, charge, code: 'R10', reason: `Disputed as ${dispute.reason}` }
    : undefined;

/** The service's PaymentIntent a dispute is about, and its charge as the port names it. */
async function disputedIntent(dispute: Stripe.Dispute, account: string, readIntent: IntentReader) {
  const intentId =
    typeof dispute.payment_intent === 'string' ? dispute.payment_intent : dispute.payment_intent?.id;
  const intent = intentId === undefined ? undefined : await readIntent(account, intentId);
  const charge = intent && chargeOf(intent);
  return intent && charge ? { intent, charge } : undefined;
}

/**
 * The bank debit's return one of Stripe's events tells, if it tells one: the failure of a debit
 * (`payment_intent.payment_failed`) or the opening of its dispute. The one reading of a return,
 * for the notices and for the activity report (activity.ts), which also checks that the debit
 * was submitted before it failed.
 */
export async function debitReturnOf(
  event: Stripe.Event,
  account: string,
  readIntent: IntentReader,
): Promise<DebitReturn | undefined> {
  if (event.type === 'payment_intent.payment_failed') return failedDebitReturn(event.data.object);
  if (event.type !== 'charge.dispute.created') return undefined;
  const disputed = await disputedIntent(event.data.object, account, readIntent);
  return disputed && isBankDebit(disputed.intent)
    ? disputedDebitReturn(event.type, event.data.object, disputed.intent, disputed.charge)
    : undefined;
}

/** Stripe's refund statuses that say the money never reached the cardholder. */
const REFUND_FAILED_STATUSES: readonly string[] = ['failed', 'canceled'];

/**
 * A refund's failure as the port's notice details it: the service's refund (its key), the charge it
 * was of (read from Stripe: a refund carries the PaymentIntent's id, not its key), Stripe's reason.
 * Undefined when the refund did not fail, or is not one the service made.
 */
async function refundFailureOf(refund: Stripe.Refund, account: string, readIntent: IntentReader) {
  if (!REFUND_FAILED_STATUSES.includes(String(refund.status))) return undefined;
  const key = refund.metadata?.[KEY_FIELD];
  const intentId =
    typeof refund.payment_intent === 'string' ? refund.payment_intent : refund.payment_intent?.id;
  if (key === undefined || intentId === undefined) return undefined;
  const intent = await readIntent(account, intentId);
  const charge = intent && chargeOf(intent);
  if (!charge) return undefined;
  const reason =
    refund.status === 'canceled'
      ? 'canceled'
      : typeof refund.failure_reason === 'string' && /^[a-z_]{1,64}$/.test(refund.failure_reason)
        ? refund.failure_reason
        : 'unknown';
  return {
    charge,
    refund: {
      processorRefundId: refund.id,
      idempotencyKey: key,
      amountCents: isAmount(refund.amount) ? refund.amount : 0,
      reason,
    },
  };
}

/**
 * A notice's place within its second (its `sequence` is the event's second times 1000, plus this):
 * Stripe dates events to the second, and one object's notices of the same second would otherwise
 * be equal, the later taken for a late one and dropped (a dispute's evidence submitted and the
 * dispute closed at once). Within a second: a clearing before a return; a dispute's opening, then
 * its updates, then its closing, each by how far its status has gone.
 */
const RETURN_STEP = 1;
const DISPUTE_KIND_STEPS = { dispute_opened: 0, dispute_updated: 10, dispute_closed: 20 } as const;
const DISPUTE_STATUS_STEPS = { inquiry: 0, needs_response: 1, under_review: 2, won: 3, lost: 3 } as const;
const disputeStep = (
  kind: keyof typeof DISPUTE_KIND_STEPS,
  status: keyof typeof DISPUTE_STATUS_STEPS,
): number => DISPUTE_KIND_STEPS[kind] + DISPUTE_STATUS_STEPS[status];

/**
 * One of Stripe's events as a notice for `merchantId`, or undefined when it is not one. An event
 * Stripe signed whose object is not what its type describes (a field missing, or of another type)
 * is no notice the service can apply: it is passed over, named in the log by its id and type, so
 * that neither the webhook (a 500 that Stripe would send again and again) nor the backstop (whose
 * cursor would never pass it, holding every later notice of every merchant) stops on it.
 */
export async function noticeOfEvent(
  event: Stripe.Event,
  merchantId: string,
  account: string,
  readIntent: IntentReader,
): Promise<ProcessorNotice | undefined> {
  warnOfVersion(event);
  try {
    return await readNotice(event, merchantId, account, readIntent);
  } catch (error) {
    if (!(error instanceof TypeError || error instanceof RangeError)) throw error;
    logger.warn('a Stripe event passed over: its object is not as its type describes', {
      eventId: String(event.id),
      type: String(event.type),
      error: error.name,
    });
    return undefined;
  }
}

/** The other API versions this function instance has named in its log (once each). */
const versionsWarned = new Set<string>();

/**
 * Stripe renders an event's object in one API version for good: its webhook endpoint's, or (listed)
 * the account's at the event's creation. This adapter reads objects as the `stripe` package's
 * version shapes them (Stripe.API_VERSION); an event of another version may name its fields
 * otherwise, so it is named in the log, once per version and instance, for the operator to set
 * the endpoint's and the account's version (docs/operating.md, "Going live with Stripe").
 */
function warnOfVersion(event: Stripe.Event): void {
  const version = event.api_version;
  if (typeof version !== 'string' || version === Stripe.API_VERSION || versionsWarned.has(version)) return;
  versionsWarned.add(version);
  logger.warn('a Stripe event of another API version than the adapter reads', {
    eventId: String(event.id),
    apiVersion: safeCode(version),
    adapterApiVersion: Stripe.API_VERSION,
  });
}

async function readNotice(
  event: Stripe.Event,
  merchantId: string,
  account: string,
  readIntent: IntentReader,
): Promise<ProcessorNotice | undefined> {
  const occurredAt = isoOf(event.created);
  const base = { noticeId: event.id, merchantId, occurredAt, sequence: event.created * 1000 };
  const returned = (r: DebitReturn | undefined): ProcessorNotice | undefined =>
    r && {
      ...base,
      sequence: base.sequence + RETURN_STEP,
      kind: 'returned',
      objectId: r.intent.id,
      charge: r.charge,
      code: r.code,
      ...(r.reason !== undefined && { reason: r.reason }),
      returnedAt: occurredAt,
    };
  switch (event.type) {
    case 'payment_intent.succeeded': {
      const intent = event.data.object;
      const charge = chargeOf(intent);
      if (!isBankDebit(intent) || !charge) return undefined;
      return { ...base, kind: 'cleared', objectId: intent.id, charge, clearedAt: occurredAt };
    }
    case 'payment_intent.payment_failed':
      return returned(failedDebitReturn(event.data.object));
    case 'charge.dispute.created':
    case 'charge.dispute.updated':
    case 'charge.dispute.closed': {
      const dispute = event.data.object;
      const disputed = await disputedIntent(dispute, account, readIntent);
      if (!disputed) return undefined;
      const { intent, charge } = disputed;
      if (isBankDebit(intent)) return returned(disputedDebitReturn(event.type, dispute, intent, charge));
      const status = lookup(DISPUTE_STATUSES, dispute.status);
      if (status === undefined) return undefined;
      const kind =
        event.type === 'charge.dispute.created'
          ? 'dispute_opened'
          : event.type === 'charge.dispute.closed'
            ? 'dispute_closed'
            : 'dispute_updated';
      const dueBy = dispute.evidence_details?.due_by;
      return {
        ...base,
        sequence: base.sequence + disputeStep(kind, status),
        kind,
        objectId: dispute.id,
        charge,
        disputeId: dispute.id,
        status,
        // Stripe always gives both; an answer without them still records the dispute (a chargeback
        // is never dropped): the reason `general`, the amount the charge's.
        reason:
          typeof dispute.reason === 'string' && /^[a-z_]{1,64}$/.test(dispute.reason)
            ? dispute.reason
            : 'general',
        amountCents: [dispute.amount, intent.amount_received, intent.amount].find(isAmount) ?? 0,
        ...(typeof dueBy === 'number' && { evidenceDueBy: isoOf(dueBy) }),
      };
    }
    case 'charge.refund.updated':
    case 'refund.updated':
    case 'refund.failed': {
      const failure = await refundFailureOf(event.data.object, account, readIntent);
      return (
        failure && { ...base, kind: 'refund_failed', objectId: failure.refund.processorRefundId, ...failure }
      );
    }
    case 'payment_method.automatically_updated': {
      const update = accountUpdateOf(event);
      return update && { ...base, kind: 'account_update', objectId: update.token, update };
    }
    default:
      return undefined;
  }
}
