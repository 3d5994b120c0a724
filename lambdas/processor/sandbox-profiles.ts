/**
 * The sandbox processor's test numbers (docs/integrating.md#sandbox-processor): which card or
 * bank account behaves how, as the behaviour profile its token carries, and the sandbox's keyed
 * fingerprint of an account.
 */
import { createHmac } from 'node:crypto';
import type { NumberedAccount } from './processor';
import { SANDBOX_DISPUTE_CARDS, SANDBOX_NOTICE_ACCOUNTS } from './sandbox-notices';

/**
 * Test cards: number → behaviour profile (a decline code, `p5000` partial up to 50.00). Every one
 * passes the service's card checks (Luhn, Visa), so its outcome is the processor's answer at sale
 * time: `14` is a well-formed number no issuer knows (a Luhn-invalid one never gets here: 400).
 * `96` is the processor answering that it lost the issuer link: a definite decline that moved no
 * money, the same code and category the service records when the processor itself gives no
 * answer (core/sale.ts reverses that sale under its key, then answers Declined 96).
 */
export const SANDBOX_CARDS: Record<string, string> = {
  '4000000000000044': '04',
  '4000000000000002': '05',
  '4000000000000135': '13',
  '4000000000000143': '14',
  '4000000000009987': '41',
  '4000000000009979': '43',
  '4000000000000069': '54',
  '4000000000000572': '57',
  '4000000000000622': '62',
  '4000000000000788': '78',
  '4000000000003113': '1A',
  '4000000000000804': 'R0',
  '4000000000000200': 'R2',
  '4000000000000127': 'N7',
  '4000000000009995': '51',
  '4000000000000119': '91',
  '4000000000006975': '61',
  '4000000000000960': '96',
  '4000000000000077': 'p5000',
  // Recovers: the first sale on a saved method with this number declines 51, every later one approves.
  '4000000000000341': 'r51',
  // Mastercard: declines 51 (category 2) with merchant advice code 03 (do not try again).
  '5100000000000412': '51a03',
};

/**
 * The sandbox's fingerprint key: a fingerprint is a keyed hash of the number (HMAC-SHA256), as
 * an acquirer's is. This key is in the source, so whoever reads both it and a stored fingerprint
 * can find the number by hashing candidates: the sandbox is for test cards only, and a stage that
 * charges real cards runs a real adapter, which returns its acquirer's fingerprint instead
 * (docs/operating.md, "Known limitations").
 */
const FINGERPRINT_KEY = 'scheduled-payments-sandbox-fingerprint-v1';

/** The sandbox's fingerprint of a card number or a bank account (routing and account number). */
export function sandboxFingerprint(request: NumberedAccount): string {
  const subject =
    request.kind === 'bank'
      ? `bank:${request.routingNumber}:${request.accountNumber}`
      : `card:${request.number}`;
  return `fp_${createHmac('sha256', FINGERPRINT_KEY).update(subject).digest('base64url').slice(0, 32)}`;
}

/**
 * Test bank accounts (CHECKING, any valid routing number): account number → decline code, as an
 * ACH return would give them (R01 insufficient funds, R02 account closed). Other accounts approve.
 */
export const SANDBOX_BANK_ACCOUNTS: Record<string, string> = {
  '9900000001': '51',
  '9900000002': 'R2',
};

/** The behaviour profile a method's token carries: a test number's, else `ok` or `bank`. */
export function sandboxProfile(request: NumberedAccount): string {
  if (request.kind === 'bank')
    return (
      SANDBOX_BANK_ACCOUNTS[request.accountNumber] ?? SANDBOX_NOTICE_ACCOUNTS[request.accountNumber] ?? 'bank'
    );
  return SANDBOX_CARDS[request.number] ?? SANDBOX_DISPUTE_CARDS[request.number] ?? 'ok';
}

/**
 * The token profiles of the test accounts that plan returns and of the cards that plan disputes
 * (they approve as `bank` and `ok` do).
 */
export const NOTICE_PROFILES = new Set([
  ...Object.values(SANDBOX_NOTICE_ACCOUNTS),
  ...Object.values(SANDBOX_DISPUTE_CARDS),
]);
