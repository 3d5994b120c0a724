/**
 * Stripe's decline codes as the service's response codes (docs/product.md "Stripe's decline
 * codes"). Stripe names the reason (`decline_code`, or the error `code` when it gives none); the
 * service answers with the ISO 8583-style code whose category decides whether a payment may be
 * retried. A code not in the table is category 1 (`05`), the raw code kept in the message.
 *
 * The network's own answer travels along: `network_advice_code` (Mastercard's merchant advice
 * code, two digits) becomes `merchantAdviceCode`; Stripe's `advice_code: do_not_try_again`, when
 * the network gave no advice, becomes `03` (do not try again), which stops the service's retries
 * of a category-2 decline; `network_decline_code` is kept in the message, and decides where
 * Stripe's own code is a generic refusal (it maps to `05`: `generic_decline`, `do_not_honor`...)
 * and the network's code is one the service knows: `generic_decline` with network `51` is `51`
 * (category 2), not `05`. An unknown Stripe code stays `05` whatever the network said.
 */
import { lookup } from './lookup';
import { declineOf, DECLINE_CODES } from '#domain/declines';

/**
 * Stripe's published card decline codes (docs.stripe.com/declines/codes), each with the
 * service's response code. Soft declines (may succeed later) map to category-2 codes (`51`, `61`,
 * `91`, `96`); everything the payor or the issuer must change first maps to category 1.
 */
export const STRIPE_DECLINES: Readonly<Record<string, string>> = {
  approve_with_id: '91',
  authentication_required: '1A',
  call_issuer: '05',
  card_not_supported: '57',
  card_velocity_exceeded: '61',
  currency_not_supported: '57',
  do_not_honor: '05',
  do_not_try_again: '05',
  duplicate_transaction: '19',
  expired_card: '54',
  fraudulent: '05',
  generic_decline: '05',
  incorrect_cvc: 'N7',
  incorrect_number: '14',
  incorrect_pin: '05',
  incorrect_zip: '05',
  insufficient_funds: '51',
  invalid_account: '14',
  invalid_amount: '13',
  invalid_cvc: 'N7',
  invalid_expiry_month: '54',
  invalid_expiry_year: '54',
  invalid_number: '14',
  invalid_pin: '05',
  issuer_not_available: '91',
  lost_card: '41',
  merchant_blacklist: '05',
  new_account_information_available: '05',
  no_action_taken: '05',
  not_permitted: '57',
  offline_pin_required: '1A',
  online_or_offline_pin_required: '1A',
  pickup_card: '04',
  pin_try_exceeded: '05',
  processing_error: '96',
  reenter_transaction: '96',
  restricted_card: '62',
  revocation_of_all_authorizations: 'R0',
  revocation_of_authorization: 'R0',
  security_violation: '05',
  service_not_allowed: '57',
  stolen_card: '43',
  stop_payment_order: 'R0',
  testmode_decline: '05',
  transaction_not_allowed: '57',
  try_again_later: '91',
  withdrawal_count_limit_exceeded: '61',
};

/**
 * Error codes (not decline codes) with which Stripe refuses a charge of a vaulted method:
 * the card's own faults, an amount Stripe does not take, a charge that needs the cardholder.
 */
export const STRIPE_CHARGE_ERRORS: Readonly<Record<string, string>> = {
  amount_too_large: '13',
  amount_too_small: '13',
  card_declined: '05',
  expired_card: '54',
  incorrect_cvc: 'N7',
  incorrect_number: '14',
  invalid_cvc: 'N7',
  invalid_expiry_month: '54',
  invalid_expiry_year: '54',
  invalid_number: '14',
  payment_intent_authentication_failure: '1A',
  processing_error: '96',
};

/**
 * The card networks' ISO 8583 codes the service knows, as a network decline code may give them:
 * every code of the service's table but its own (`PM`: a method that no longer exists; `19`: its
 * duplicate check).
 */
const NETWORK_DECLINES: ReadonlySet<string> = new Set(
  Object.keys(DECLINE_CODES).filter((code) => code !== 'PM' && code !== '19'),
);

/** What Stripe said about a failed charge (a card error, or a PaymentIntent's last error). */
export interface StripeDeclineFields {
  code?: string | null;
  decline_code?: string | null;
  advice_code?: string | null;
  network_advice_code?: string | null;
  network_decline_code?: string | null;
}

interface MappedDecline {
  responseCode: string;
  responseMessage: string;
  merchantAdviceCode?: string;
}

/**
 * A code as it may be quoted: Stripe's codes are short words and digits. Anything else (a value
 * that is not a code, an echoed parameter) is never repeated.
 */
const quotable = (code: string | null | undefined): string | undefined =>
  code !== null && code !== undefined && /^[A-Za-z0-9_]{1,64}$/.test(code) ? code : undefined;

/** The service's answer to a charge Stripe declined or refused. */
export function mapDecline(fields: StripeDeclineFields): MappedDecline {
  const declineCode = quotable(fields.decline_code);
  const errorCode = quotable(fields.code);
  const reason = declineCode ?? errorCode;
  const known =
    lookup(STRIPE_DECLINES, declineCode) ??
    (declineCode === undefined ? lookup(STRIPE_CHARGE_ERRORS, errorCode) : undefined);
  const network = quotable(fields.network_decline_code);
  const byNetwork = known === '05' && network !== undefined && NETWORK_DECLINES.has(network);
  const responseCode = byNetwork ? network : (known ?? '05');
  const quoted = [
    `Stripe ${reason ?? 'gave no code'}`,
    ...(network !== undefined ? [`network ${network}`] : []),
  ].join(', ');
  const message = known !== undefined ? declineOf(responseCode).message : 'Declined';
  const advice = quotable(fields.network_advice_code);
  const merchantAdviceCode =
    advice !== undefined && /^\d{2}$/.test(advice)
      ? advice
      : fields.advice_code === 'do_not_try_again'
        ? '03'
        : undefined;
  return {
    responseCode,
    responseMessage: `${message} (${quoted})`,
    ...(merchantAdviceCode !== undefined && { merchantAdviceCode }),
  };
}
