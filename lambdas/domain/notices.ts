/**
 * Notices: what a processor answers later (docs/architecture.md "Notices"; docs/product.md
 * "Returns" and "Notifications of change"). Plain rules, no AWS: the return codes and their
 * categories and the per-object order.
 */
import type { ReturnCategory } from './transactions';

/**
 * Nacha return reason codes (Nacha Operating Rules, Appendix Four "Return Entries"), with the
 * category the service acts on: the return-rate groups of Nacha's rules (Article Two, Subsection
 * 2.17.2: unauthorized R05, R07, R10, R11, R29, R51; administrative R02, R03, R04), and `nsf`
 * for the two a debit may be reinitiated after (Subsection 2.12.4: R01, R09).
 */
export const RETURN_CODES: Readonly<Record<string, { reason: string; category: ReturnCategory }>> = {
  R01: { reason: 'Insufficient funds', category: 'nsf' },
  R02: { reason: 'Account closed', category: 'administrative' },
  R03: { reason: 'No account, or unable to locate the account', category: 'administrative' },
  R04: { reason: 'Invalid account number', category: 'administrative' },
  R05: { reason: 'Unauthorized debit to a consumer account (corporate entry)', category: 'unauthorized' },
  R06: { reason: "Returned at the originating bank's request", category: 'other' },
  R07: { reason: 'Authorization revoked by the customer', category: 'unauthorized' },
  R08: { reason: 'Payment stopped', category: 'other' },
  R09: { reason: 'Uncollected funds', category: 'nsf' },
  R10: { reason: 'Customer advises the debit was unauthorized or improper', category: 'unauthorized' },
  R11: { reason: 'Customer advises the debit was not as authorized', category: 'unauthorized' },
  R12: { reason: 'Account sold to another bank', category: 'other' },
  R14: { reason: 'Account holder deceased', category: 'other' },
  R15: { reason: 'Beneficiary deceased', category: 'other' },
  R16: { reason: 'Account frozen', category: 'other' },
  R20: { reason: 'Non-transaction account', category: 'other' },
  R23: { reason: 'Credit refused by the receiver', category: 'other' },
  R24: { reason: 'Duplicate entry', category: 'other' },
  R29: { reason: 'Corporate customer advises the debit was not authorized', category: 'unauthorized' },
  R51: { reason: 'Item related to an RCK entry is ineligible or improper', category: 'unauthorized' },
};

/** A return code's meaning and category: an unknown code is `other`, with the processor's words. */
export function returnCodeOf(
  code: string,
  processorReason?: string,
): { reason: string; category: ReturnCategory } {
  return RETURN_CODES[code] ?? { reason: processorReason ?? `Returned (${code})`, category: 'other' };
}

/**
 * What applying a notice came to (each counted by the run that met it):
 * - `applied`: the record changed now;
 * - `applied_before`: its mark exists (a repeat, or a concurrent caller won);
 * - `stale`: older than the last notice applied to its object, or one that cannot move its record
 *   back (a clearing after a return): marked, nothing changed;
 * - `held`: no final record for it yet (a webhook that beat the processor's API answer, a sale
 *   Pending, a refund in flight): kept and tried again;
 * - `skipped`: nothing to change, for good (a notice for a deleted method, a voided sale): marked,
 *   logged and counted.
 */
export type NoticeOutcomeKind = 'applied' | 'applied_before' | 'stale' | 'held' | 'skipped';

export interface NoticeOutcome {
  outcome: NoticeOutcomeKind;
  /** Why, in words (held, skipped, stale). */
  reason?: string;
}

export const outcome = (kind: NoticeOutcomeKind, reason?: string): NoticeOutcome =>
  reason === undefined ? { outcome: kind } : { outcome: kind, reason };

/**
 * Per object, notices apply in the processor's order: one whose sequence is not past the last
 * applied to the record (`noticeSeq`) is late, and changes nothing.
 */
export const isLate = (noticeSeq: number | undefined, sequence: number): boolean =>
  noticeSeq !== undefined && sequence <= noticeSeq;

/** How long a notice that matches no record yet is kept and tried again before it is given up. */
export const HOLD_DAYS = 7;

/** The waits between tries of a held notice: 30 s, then doubling up to an hour. */
export const holdDelaySeconds = (tries: number): number => Math.min(3600, 30 * 2 ** Math.max(0, tries - 1));

/**
 * What the stores keep of a notice (the processor port's `ProcessorNotice` is one: domain/ and
 * store/ do not import the port): its identity, object and order; the rest is kept as it came.
 */
export interface NoticeRef {
  noticeId: string;
  kind: string;
  merchantId: string;
  objectId: string;
  sequence: number;
  occurredAt: string;
}

/**
 * A notice's further effects, written ahead in its transaction and done after it (each step
 * idempotent; what a crash leaves, the backstop job finishes):
 * - `method`: the saved method of the returned debit closed (`administrative`) or revoked
 *   (`unauthorized`: and that method's payments in every series suspended), its payor e-mailed;
 * - `refunds`: refunds held until the debit cleared, now sent;
 * - `retry`: the payment of a debit returned for insufficient funds retried as after a decline;
 * - `summary`: a returned payment moved into its group's processingSummary (returned, no longer
 *   approved), when no run of the group is counting;
 * - `return-email`: the payor told that the debit was returned.
 * A notice writes one follow-up item with all its steps (store/notices.ts: `work` and `also`).
 */
export type NoticeFollowUp =
  | {
      kind: 'method';
      action: 'close' | 'revoke';
      merchantId: string;
      payorId: string;
      savedPaymentMethodId: string;
      /** What caused it, for the method's history and the e-mail: the return code and its sale. */
      code: string;
      transactionId: string;
    }
  | { kind: 'refunds'; merchantId: string; transactionId: string; refundIds: string[] }
  /** `nsf`: the returned debit's payment retried as after a `51` decline (its group's policy, Nacha's limit). */
  | { kind: 'retry'; merchantId: string; paymentGroupId: string; paymentId: string; transactionId: string }
  /** Every return of a scheduled payment's debit: moved into its group's processingSummary, once. */
  | { kind: 'summary'; merchantId: string; paymentGroupId: string; paymentId: string; transactionId: string }
  /** A scheduled payment's card charge disputed: the dispute moved into its group's processingSummary, once. */
  | {
      kind: 'dispute-summary';
      merchantId: string;
      paymentGroupId: string;
      paymentId: string;
      disputeId: string;
    }
  /** Every return: the payor e-mailed that the debit was returned (one e-mail per sale). */
  | { kind: 'return-email'; merchantId: string; payorId: string; transactionId: string };
