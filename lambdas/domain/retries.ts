/**
 * Retries of declined scheduled payments (DESIGN section 5; docs/product.md#retries): plain rules,
 * no AWS. What a payment's answer decides about its next attempt, when that attempt is due, and
 * the card networks' and Nacha's limits on retries of one card or bank account, counted over the
 * merchant's attempts on it (sales of the API included).
 *
 * The limits, as the networks publish them:
 * - Visa Core Rules, "Decline Response Code reattempts" (in force since April 2021): after a
 *   decline the issuer may approve later (category 2), a merchant reattempts a card at most 15
 *   times in 30 days; never after a category-1 decline ("issuer will never approve").
 *   Other card brands are held to the same limit here.
 * - Mastercard Transaction Processing Excellence, "Excessive Authorization Attempts": at most 10
 *   attempts on a card in 24 hours and 35 in 30 days after a decline; and "Merchant Advice Code
 *   Transaction Excellence": never again after merchant advice code 03 (do not try again) or 21
 *   (payment cancelled).
 * - Nacha Operating Rules, Subsection 2.12.4 "Reinitiation of Entries": a debit returned for
 *   insufficient or uncollected funds (R01, R09) may be reinitiated at most twice within 180 days
 *   of the original entry's settlement; other returns are not reinitiated.
 */
import type { RetryPolicyInput, RetryReason } from '#contract/schemas/retries';
import { RETRY_POLICY } from '#contract/limits';
import { isBank, type AccountType } from './cards';

export type { RetryReason };

export interface RetryPolicy {
  maxRetries: number;
  intervalHours: number;
}

/** No retries: the policy of a group without one whose merchant set none. */
export const NO_RETRIES: RetryPolicy = { maxRetries: 0, intervalHours: RETRY_POLICY.intervalHours.default };

/** A policy as given (intervalHours optional) with its default filled in. */
export const retryPolicyOf = (input: RetryPolicyInput): RetryPolicy => ({
  maxRetries: input.maxRetries,
  intervalHours: input.intervalHours ?? RETRY_POLICY.intervalHours.default,
});

/** The policy a group's payments follow: the group's own, else the merchant's, else none. */
export const effectivePolicy = (group?: RetryPolicy, merchant?: RetryPolicy): RetryPolicy =>
  group ?? merchant ?? NO_RETRIES;

export type RetryStatus = 'scheduled' | 'succeeded' | 'exhausted' | 'not_retried';

/** A payment's retry as it keeps it (and shows it). */
export interface PaymentRetry {
  status: RetryStatus;
  /** scheduled: the hourly slot of the next attempt (ISO-8601, on the hour). */
  nextAttemptAt?: string;
  reason?: RetryReason;
  /** The rule behind the reason, in words. */
  detail?: string;
}

/** What an attempt answered, as the decision needs it. */
export interface AttemptAnswer {
  status: 'Approved' | 'Declined' | 'Failed' | 'Returned';
  responseCode: string;
  declineCategory?: '1' | '2';
  merchantAdviceCode?: string;
}

/**
 * One attempt on a card or bank account, as its history keeps it: when, how it ended (`pending`:
 * not answered yet, counted as a decline), and whether it was a scheduled payment's retry.
 */
export interface CardUse {
  at: string;
  outcome: 'approved' | 'declined' | 'pending';
  retry: boolean;
}

type Network = 'visa' | 'mastercard' | 'nacha';

interface NetworkLimit {
  network: Network;
  max: number;
  windowHours: number;
  /** The rule in words, as a payment's retry.detail names it. */
  rule: string;
}

const DAY = 24;

/** The limits on retries of one card or account per merchant, by network (see the top). */
const NETWORK_LIMITS: Record<Network, readonly NetworkLimit[]> = {
  visa: [
    {
      network: 'visa',
      max: 15,
      windowHours: 30 * DAY,
      rule: 'Visa: at most 15 reattempts of a card in 30 days (Visa Core Rules, decline reattempts)',
    },
  ],
  mastercard: [
    {
      network: 'mastercard',
      max: 10,
      windowHours: DAY,
      rule: 'Mastercard: at most 10 reattempts of a card in 24 hours (Excessive Authorization Attempts)',
    },
    {
      network: 'mastercard',
      max: 35,
      windowHours: 30 * DAY,
      rule: 'Mastercard: at most 35 reattempts of a card in 30 days (Excessive Authorization Attempts)',
    },
  ],
  nacha: [
    {
      network: 'nacha',
      max: 2,
      windowHours: 180 * DAY,
      rule: 'Nacha: at most 2 reinitiations of a debit in 180 days (Operating Rules 2.12.4)',
    },
  ],
};

/** The network whose rules an account type follows: Visa's for every card brand but Mastercard. */
const networkOf = (accountType: AccountType | undefined): Network =>
  accountType === 'MASTERCARD' ? 'mastercard' : isBank(accountType) ? 'nacha' : 'visa';

/**
 * Merchant advice codes after which a card is never tried again: Mastercard's 03 and 21, and
 * Stripe's `advice_code: do_not_try_again` (on any brand), which its adapter gives as 03.
 */
const FINAL_ADVICE_CODES: readonly string[] = ['03', '21'];

/** The only decline a bank debit is re-presented after (insufficient funds; ACH R01/R09). */
const CHECKING_RETRY_CODE = '51';

const HOUR_MS = 3_600_000;

/** The first hourly slot at least `intervalHours` after `lastAttemptAt` (ISO, on the hour). */
export function nextAttemptAt(lastAttemptAt: Date, intervalHours: number): string {
  const earliest = lastAttemptAt.getTime() + intervalHours * HOUR_MS;
  return new Date(Math.ceil(earliest / HOUR_MS) * HOUR_MS).toISOString();
}

/** `2026-11-21T09`: the slot (as groups' slots are written) an instant falls in. */
export const slotAt = (iso: string): string => iso.slice(0, 13);

/**
 * Reattempts among `history` at `at` in the window of `windowHours` before it: attempts later than
 * `at - window` that were a scheduled payment's retry or came after a decline of the same card or
 * account (an attempt not answered yet counts as a decline). `history` is in time order and may
 * start before the window (the attempt before it tells whether the first in it was a reattempt).
 */
export function reattemptsWithin(history: readonly CardUse[], at: Date, windowHours: number): number {
  const from = at.getTime() - windowHours * HOUR_MS;
  let count = 0;
  history.forEach((use, i) => {
    if (Date.parse(use.at) <= from) return;
    const previous = history[i - 1];
    if (use.retry || (previous !== undefined && previous.outcome !== 'approved')) count++;
  });
  return count;
}

/**
 * The first limit a retry at `at` would pass, if any. `prospective`: the retry is not in
 * `history` yet (when one is scheduled) and counts one more; at the attempt itself it is (its
 * entry is written first, so that concurrent retries of one card all see each other).
 */
export function limitPassed(
  accountType: AccountType | undefined,
  history: readonly CardUse[],
  at: Date,
  prospective: boolean,
): NetworkLimit | undefined {
  return NETWORK_LIMITS[networkOf(accountType)].find(
    (limit) => reattemptsWithin(history, at, limit.windowHours) + (prospective ? 1 : 0) > limit.max,
  );
}

/** A retry stopped by a network's limit, naming the rule and the count. */
const stoppedBy = (limit: NetworkLimit): PaymentRetry => ({
  status: 'not_retried',
  reason: 'network_limit',
  detail: limit.rule,
});

export interface RetryDecisionInput {
  policy: RetryPolicy;
  /** The attempt just answered (1: the payment's first charge). */
  attempt: number;
  answer: AttemptAnswer;
  accountType: AccountType | undefined;
  /** The card's or account's attempts at this merchant, in time order (this one included). */
  history: readonly CardUse[];
  /** When the attempt was answered. */
  at: Date;
}

/**
 * What an answered attempt decides about the payment's retry: undefined when there is nothing to
 * show (no retries allowed and none made; approved at once). In this order: approved (after a
 * retry: succeeded); category 1; a merchant advice code 03 or 21; a bank debit declined for
 * anything but insufficient funds; the policy's retries used up; a network limit at the time the
 * retry would run; else scheduled at the first hourly slot intervalHours after this attempt.
 */
export function decideRetry(input: RetryDecisionInput): PaymentRetry | undefined {
  const { policy, attempt, answer, accountType } = input;
  if (answer.status === 'Approved') return attempt > 1 ? { status: 'succeeded' } : undefined;
  if (policy.maxRetries === 0 && attempt === 1) return undefined;
  if (answer.declineCategory !== '2')
    return {
      status: 'not_retried',
      reason: 'category_1',
      detail: `response code ${answer.responseCode} is a category-1 decline: the issuer will not approve it later`,
    };
  // On any card: Mastercard's codes, and Stripe's own advice not to try again (as 03) on any brand.
  if (answer.merchantAdviceCode !== undefined && FINAL_ADVICE_CODES.includes(answer.merchantAdviceCode))
    return {
      status: 'not_retried',
      reason: 'advice_code',
      detail:
        networkOf(accountType) === 'mastercard'
          ? `Mastercard merchant advice code ${answer.merchantAdviceCode}: do not try again (Merchant Advice Code Transaction Excellence)`
          : `merchant advice code ${answer.merchantAdviceCode}: the processor says not to try again`,
    };
  if (isBank(accountType) && answer.responseCode !== CHECKING_RETRY_CODE)
    return {
      status: 'not_retried',
      reason: 'network_limit',
      detail: `Nacha: a debit is reinitiated only after a return for insufficient funds, not after ${answer.responseCode} (Operating Rules 2.12.4)`,
    };
  if (attempt - 1 >= policy.maxRetries)
    return {
      status: 'exhausted',
      reason: 'policy_exhausted',
      detail: `declined after ${attempt - 1} of ${policy.maxRetries} retries`,
    };
  const next = nextAttemptAt(input.at, policy.intervalHours);
  const limit = limitPassed(accountType, input.history, new Date(next), true);
  if (limit) return stoppedBy(limit);
  return { status: 'scheduled', nextAttemptAt: next };
}

/**
 * At a retry's attempt, with its own entry written in `history` first: the limit it would pass
 * (it is then not made), if any.
 */
export function admitRetry(
  accountType: AccountType | undefined,
  history: readonly CardUse[],
  at: Date,
): PaymentRetry | undefined {
  const limit = limitPassed(accountType, history, at, false);
  return limit ? stoppedBy(limit) : undefined;
}

/**
 * A payment the merchant reversed, or asked to (a void or a refund of its sale, held, pending,
 * completed or cancelled by the debit's return since), is not charged again: its money went, or was
 * to go, back to the payor.
 */
export const reversedByMerchant = (
  payment: { voidOrRefundResponses?: readonly unknown[] },
  refundsOfSale: readonly unknown[] = [],
): PaymentRetry | undefined =>
  (payment.voidOrRefundResponses?.length ?? 0) > 0 || refundsOfSale.length > 0
    ? retryCancelled('payment_reversed', 'the merchant voided or refunded the payment before its retry')
    : undefined;

/** A scheduled retry that will not run, and why (nothing is charged). */
export const retryCancelled = (reason: RetryReason, detail: string): PaymentRetry => ({
  status: 'not_retried',
  reason,
  detail,
});

/** The history window an attempt's decision reads: the longest of its network's limits. */
export const historyHours = (accountType: AccountType | undefined): number =>
  Math.max(...NETWORK_LIMITS[networkOf(accountType)].map((l) => l.windowHours));
