/**
 * Stripe's documented test numbers (docs.stripe.com/testing), as the stand-in answers them. A card
 * number or bank account is read once, when its PaymentMethod is made; the stand-in keeps its
 * behaviour, its last four digits and a fingerprint, never the number.
 *
 * Two differences from Stripe's test mode, both so that every outcome reaches the charge (where a
 * scheduled payment meets it): a declining card attaches to its customer and declines at the
 * charge (Stripe already refuses most of them at attach), and any other valid card number
 * approves (Stripe's test mode refuses numbers that are not its test cards).
 */
import { createHmac } from 'node:crypto';

/** A card charge's outcome: Stripe's error code and decline code, as its card errors carry them. */
export type CardOutcome =
  | {
      kind: 'approve';
      dispute?: 'fraudulent' | 'product_not_received';
      /**
       * What a refund of the charge does later: `fails` (it begins `succeeded`, then turns
       * `failed`), `pending` (it begins `pending`, then turns `succeeded`).
       */
      refund?: 'fails' | 'pending';
    }
  | { kind: 'decline'; code: string; declineCode?: string }
  /** Needs the cardholder (3-D Secure): an off-session charge fails `authentication_required`. */
  | { kind: 'authenticate' };

const decline = (declineCode: string, code = 'card_declined'): CardOutcome => ({
  kind: 'decline',
  code,
  declineCode,
});

/** Stripe's test cards with an outcome other than a plain approval. */
const TEST_CARDS: Readonly<Record<string, CardOutcome>> = {
  '4000000000000002': decline('generic_decline'),
  '4000000000009995': decline('insufficient_funds'),
  '4000000000009987': decline('lost_card'),
  '4000000000009979': decline('stolen_card'),
  '4000000000000069': decline('expired_card', 'expired_card'),
  '4000000000000127': decline('incorrect_cvc', 'incorrect_cvc'),
  '4000000000000119': decline('processing_error', 'processing_error'),
  '4000000000006975': decline('card_velocity_exceeded'),
  '4100000000000019': decline('fraudulent'),
  // Attaches to a customer, and every charge of it fails.
  '4000000000000341': decline('generic_decline'),
  '4000002500003155': { kind: 'authenticate' },
  '4000002760003184': { kind: 'authenticate' },
  '4000003800000446': { kind: 'authenticate' },
  // Charged, then disputed.
  '4000000000000259': { kind: 'approve', dispute: 'fraudulent' },
  '4000000000002685': { kind: 'approve', dispute: 'product_not_received' },
  // Charged; a refund of it begins `succeeded` and turns `failed` some time later
  // (`charge.refund.updated`), Stripe's "asynchronous refund failure" card.
  '4000000000005126': { kind: 'approve', refund: 'fails' },
  // Charged; a refund of it begins `pending` and turns `succeeded` some time later.
  '4000000000007726': { kind: 'approve', refund: 'pending' },
};

/** A bank debit's outcome, known once the debit would clear (ACH: days later). */
export type BankOutcome = { kind: 'clear' } | { kind: 'fail'; code: string };

/** Stripe's test bank accounts (routing number 110000000; the stand-in takes any routing number). */
const TEST_BANK_ACCOUNTS: Readonly<Record<string, BankOutcome>> = {
  '000123456789': { kind: 'clear' },
  '000111111113': { kind: 'fail', code: 'account_closed' },
  '000111111116': { kind: 'fail', code: 'no_account' },
  '000222222227': { kind: 'fail', code: 'insufficient_funds' },
  '000333333335': { kind: 'fail', code: 'debit_not_authorized' },
  '000444444440': { kind: 'fail', code: 'invalid_currency' },
};

export const cardOutcome = (number: string): CardOutcome => TEST_CARDS[number] ?? { kind: 'approve' };
export const bankOutcome = (accountNumber: string): BankOutcome =>
  TEST_BANK_ACCOUNTS[accountNumber] ?? { kind: 'clear' };

/** The card brand by the number's prefix, as Stripe names it. */
export function brandOf(number: string): string {
  if (number.startsWith('4')) return 'visa';
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(number)) return 'mastercard';
  if (/^3[47]/.test(number)) return 'amex';
  if (/^(6011|64[4-9]|65)/.test(number)) return 'discover';
  if (/^35(2[89]|[3-8]\d)/.test(number)) return 'jcb';
  if (/^3(0[0-5]|[689])/.test(number)) return 'diners';
  if (number.startsWith('62')) return 'unionpay';
  return 'unknown';
}

/** A fingerprint as Stripe gives one: the same number always has the same, and it reveals nothing. */
export const fingerprintOf = (subject: string): string =>
  createHmac('sha256', 'stripe-stand-in-fingerprint').update(subject).digest('base64url').slice(0, 16);
