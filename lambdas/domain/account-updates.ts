/**
 * The account updater's changes to a saved method (DESIGN section 5, "The card lifecycle";
 * docs/decisions.md "Account updater"): a new expiry, or a new card (masked number, fingerprint,
 * expiry), leaves the method `active`; a closed account or "contact cardholder" sets its `status`,
 * after which it is never charged. Every change is the account updater's (`updatedBy`) and is
 * announced as `payment_method.account_updated`.
 */
import type { MethodStatus, SavedMethod } from './payors';

/** What the card networks reported for a method's card (the processor's update, without its ids). */
export type AccountChange =
  | { kind: 'new_expiry'; expiryMonth: number; expiryYear: number }
  | {
      kind: 'new_number';
      maskedAccountNumber: string;
      fingerprint?: string;
      expiryMonth: number;
      expiryYear: number;
    }
  | { kind: 'closed' | 'contact_cardholder' };

/** Whether a change makes the method unusable (its payor is then asked for a new method). */
export const makesUnusable = (change: AccountChange): change is { kind: 'closed' | 'contact_cardholder' } =>
  change.kind === 'closed' || change.kind === 'contact_cardholder';

/**
 * Whether an update the acquirer learnt at `at` is older than the last one applied to the method:
 * a late one (a lost webhook listed by the next day's run) never moves the method back (an old
 * new expiry would make a closed account active again).
 */
export const isLateAccountUpdate = (method: SavedMethod, at: string): boolean =>
  method.accountUpdateAt !== undefined && at < method.accountUpdateAt;

/**
 * The method after the change the acquirer learnt at `at` (its revision and event count one
 * more).
 */
export function accountUpdated(
  method: SavedMethod,
  change: AccountChange,
  now: Date,
  at?: string,
): SavedMethod {
  // A revoked method stays revoked: the payor withdrew the authorization, which no card or
  // account update gives back (DESIGN section 6).
  const status: MethodStatus =
    method.status === 'revoked' ? 'revoked' : makesUnusable(change) ? change.kind : 'active';
  return {
    ...method,
    ...(change.kind === 'new_expiry' && { expiryMonth: change.expiryMonth, expiryYear: change.expiryYear }),
    ...(change.kind === 'new_number' && {
      maskedAccountNumber: change.maskedAccountNumber,
      expiryMonth: change.expiryMonth,
      expiryYear: change.expiryYear,
      ...(change.fingerprint !== undefined && { fingerprint: change.fingerprint }),
    }),
    status,
    updatedBy: 'account_updater',
    ...(at !== undefined && { accountUpdateAt: at }),
    lastUpdated: now.toISOString(),
    revision: (method.revision ?? 0) + 1,
    eventSeq: (method.eventSeq ?? 0) + 1,
  };
}

/** What a bank's notification of change corrects (never a full number). */
interface NocChange {
  maskedAccountNumber?: string;
  fingerprint?: string;
  accountType?: 'CHECKING' | 'SAVINGS';
}

/**
 * Whether a notification of change the bank sent at `at` is older than the last one applied to
 * the method: the NOCs of two debits of the account come one after the other, and a late one (a
 * lost webhook listed by the backstop) would put back the correction the newer one replaced.
 */
export const isLateNoc = (method: SavedMethod, at: string): boolean =>
  method.nocAt !== undefined && at < method.nocAt;

/**
 * The bank account after a notification of change the bank sent at `at` (docs/product.md
 * "Notifications of change"): the corrected fields, `correctedBy: "noc"` and when; its status
 * stays as it was (a NOC corrects an account that still takes debits). Its revision and event
 * count one more.
 */
export function nocCorrected(method: SavedMethod, change: NocChange, now: Date, at?: string): SavedMethod {
  return {
    ...method,
    ...(at !== undefined && { nocAt: at }),
    ...(change.maskedAccountNumber !== undefined && { maskedAccountNumber: change.maskedAccountNumber }),
    ...(change.fingerprint !== undefined && { fingerprint: change.fingerprint }),
    ...(change.accountType !== undefined && { accountType: change.accountType }),
    correctedBy: 'noc',
    correctedAt: now.toISOString(),
    lastUpdated: now.toISOString(),
    revision: (method.revision ?? 0) + 1,
    eventSeq: (method.eventSeq ?? 0) + 1,
  };
}
