/**
 * Stripe's objects as the port's answers. Whatever Stripe's object leaves unreadable (a missing
 * field, a status this adapter does not know) is no answer (StripeUnavailableError): the sale
 * stays Pending and is asked again with its key, or reversed, never guessed.
 */
import type Stripe from 'stripe';
import type { ReversalResult, SaleResult } from '#processor/processor';
import { countOf, idOf, isoOf, KEY_FIELD, TIMEOUT_REVERSAL_FIELD } from './calls';
import { mapDecline, type StripeDeclineFields } from './declines';
import { malformed, safeCode } from './errors';

/** The message of a key whose sale got no answer and was answered declined (as the core words it). */
const REVERSED_AT_STRIPE = 'Reversed: the processor did not answer in time';

const chargeOf = (intent: Stripe.PaymentIntent): Stripe.Charge | undefined =>
  typeof intent.latest_charge === 'object' && intent.latest_charge !== null
    ? intent.latest_charge
    : undefined;

/** When Stripe decided: the charge's time, else the PaymentIntent's. */
function decidedAt(intent: Stripe.PaymentIntent): string {
  const charge = chargeOf(intent);
  return isoOf(countOf(charge?.created ?? intent.created, 'created', 'sale'));
}

export function declined(
  fields: StripeDeclineFields,
  processorTransactionId: string,
  processedAt: string,
): SaleResult {
  return {
    approved: false,
    processorTransactionId,
    ...mapDecline(fields),
    approvedCents: 0,
    processedAt,
  };
}

/**
 * A card error's decline, with the declined PaymentIntent Stripe sends along: its id, and its
 * time (so that a replay of the key answers the same), when it has them.
 */
export function declinedCharge(
  fields: StripeDeclineFields,
  intent: Stripe.PaymentIntent | undefined,
  fallbackAt: string,
): SaleResult {
  const id = typeof intent?.id === 'string' && intent.id.startsWith('pi_') ? intent.id : '';
  let at = fallbackAt;
  try {
    if (intent) at = decidedAt(intent);
  } catch {
    // An error without a readable PaymentIntent is still a decline.
  }
  return declined(fields, id, at);
}

/** A PaymentIntent made under `key` as the sale's answer. */
export function saleAnswer(intent: Stripe.PaymentIntent, key: string): SaleResult {
  const id = idOf(intent?.id, 'pi_', 'sale');
  if (intent.metadata?.[KEY_FIELD] !== key) throw malformed('sale', 'the PaymentIntent is not the key’s');
  const at = decidedAt(intent);
  switch (intent.status as string) {
    case 'succeeded':
    case 'processing': {
      // Processing: a bank debit Stripe accepted, clearing in the days after (or, rarely, a card
      // charge Stripe has not finished): money is on its way, an approval.
      const cents = countOf(
        intent.status === 'succeeded' ? intent.amount_received : intent.amount,
        'amount',
        'sale',
      );
      const code = chargeOf(intent)?.payment_method_details?.card?.authorization_code;
      return {
        approved: true,
        processorTransactionId: id,
        responseCode: '00',
        responseMessage: 'Approved',
        approvedCents: cents,
        ...(typeof code === 'string' && code !== '' && { authCode: safeCode(code) }),
        processedAt: at,
      };
    }
    case 'requires_payment_method':
      return declined(intent.last_payment_error ?? {}, id, at);
    case 'requires_action':
      // A charge that needs the cardholder (3-D Secure): nobody is there to answer it.
      return declined({ decline_code: 'authentication_required' }, id, at);
    case 'canceled':
      if (intent.metadata?.[TIMEOUT_REVERSAL_FIELD] !== undefined)
        return { ...declined({}, id, at), responseCode: '96', responseMessage: REVERSED_AT_STRIPE };
      return declined({ code: 'payment_intent_canceled' }, id, at);
    default:
      throw malformed('sale', `status ${safeCode(intent.status)}`);
  }
}

/** A Refund as a void's or a refund's answer. */
export function reversalAnswer(refund: Stripe.Refund, kind: 'void' | 'refund'): ReversalResult {
  const id = idOf(refund?.id, 're_', kind);
  const processedAt = isoOf(countOf(refund.created, 'created', kind));
  switch (refund.status as string) {
    case 'succeeded':
    case 'pending':
    case 'requires_action':
      return {
        approved: true,
        processorTransactionId: id,
        responseCode: '00',
        responseMessage: kind === 'void' ? 'Voided' : 'Refund accepted',
        processedAt,
      };
    case 'failed':
    case 'canceled':
      return refused(
        `Stripe refund ${refund.status}${refund.failure_reason ? ` (${safeCode(refund.failure_reason)})` : ''}`,
        id,
        processedAt,
      );
    default:
      throw malformed(kind, `status ${safeCode(refund.status)}`);
  }
}

/** A reversal Stripe did not make: a definite answer, nothing moved. */
export const refused = (
  reason: string,
  processorTransactionId: string,
  processedAt: string,
): ReversalResult => ({
  approved: false,
  processorTransactionId,
  responseCode: '05',
  responseMessage: `Refused: ${reason}`,
  processedAt,
});
