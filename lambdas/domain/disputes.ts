/**
 * Card disputes (DESIGN section 6 "Card disputes"; docs/product.md "Disputes"): plain rules, no
 * AWS. What a processor's dispute notice does to the service's dispute record, to the sale it
 * disputes (and the scheduled payment that sale charged), and which further effect it leaves.
 *
 * - A notice applies only to a final sale: none yet, or still Pending, is `held`. A sale that
 *   moved no money (declined; voided, where the processor's void is one: the sandbox's) has
 *   nothing to dispute (`skipped`). A sale voided where a void is a refund of a charge that moved
 *   money (Stripe's) can be disputed as a refunded one can.
 * - A dispute of a bank debit (how a processor reports some late returns) is an unauthorized
 *   return: `R10` on the return path (core/bank-notices.ts), once, by its opening notice.
 * - Per dispute, notices apply in the processor's order: one not past the last applied is
 *   `stale`, and so is any after it closed (`won` and `lost` are final): a late notice never
 *   moves a dispute back.
 * - The first notice of a dispute (whichever kind) creates it: `dispute.created` (and
 *   `dispute.closed` when it came closed); a later one is `dispute.updated`, or `dispute.closed`
 *   when it is won or lost.
 * - While a dispute is open (`inquiry`, `needs_response`, `under_review`), nothing of its sale can
 *   be refunded or voided (`availableRefundAmount` 0); nor after it was lost (the cardholder has
 *   the money back). A won dispute leaves the sale as before.
 * - Reasons `fraudulent`, `unrecognized` and `subscription_canceled` revoke the card's saved method
 *   as an unauthorized return does (the notice's `method` follow-up: revoked, its series payments
 *   suspended); the others only flag the sale.
 * - A scheduled payment's dispute counts in its group's processingSummary (disputedCount and
 *   disputedAmount; still approved) once per dispute: the `dispute-summary` follow-up.
 */
import { v5 as uuidv5 } from 'uuid';
import type { EventType } from '#contract/events';
import type { DisputeStatus, DisputeView } from '#contract/schemas/disputes';
import { isBank } from './cards';
import { newEvent, type ServiceEvent } from './events';
import { fromCents, type Cents } from './money';
import { isLate, type NoticeFollowUp } from './notices';
import type { Transaction } from './transactions';

export type { DisputeStatus, DisputeView };

/** A dispute as the service keeps it (store/disputes.ts). */
export interface Dispute {
  disputeId: string;
  merchantId: string;
  transactionId: string;
  paymentId?: string;
  paymentGroupId?: string;
  status: DisputeStatus;
  reason: string;
  amountCents: Cents;
  evidenceDueBy?: string;
  openedAt: string;
  closedAt?: string;
  /** The processor's order (`sequence`) of the last notice applied to it. */
  noticeSeq: number;
  /** Events announced for it (`sequence` of its last). */
  eventSeq: number;
}

/** What a dispute notice says (the processor port's dispute notice, as the domain reads it). */
interface DisputeNoticeFacts {
  kind: 'dispute_opened' | 'dispute_updated' | 'dispute_closed';
  /** The processor's dispute id. */
  disputeId: string;
  sequence: number;
  occurredAt: string;
  status: DisputeStatus;
  reason: string;
  amountCents: number;
  evidenceDueBy?: string;
}

const OPEN: readonly DisputeStatus[] = ['inquiry', 'needs_response', 'under_review'];

const isOpenDispute = (status: DisputeStatus | undefined): boolean =>
  status !== undefined && OPEN.includes(status);

/** The reasons that revoke the card's saved method (as an unauthorized bank return does). */
const REVOKING_REASONS: readonly string[] = ['fraudulent', 'unrecognized', 'subscription_canceled'];

const revokes = (reason: string | undefined): boolean =>
  reason !== undefined && REVOKING_REASONS.includes(reason);

/** The service's id of a processor's dispute: the same for every notice of it, from any source. */
const DISPUTE_NAMESPACE = '6d1f3b0a-2c4e-4f7a-9b8d-3e5a7c9f1b24';
export const disputeIdOf = (merchantId: string, processorDisputeId: string): string =>
  uuidv5(`dispute:${merchantId}:${processorDisputeId}`, DISPUTE_NAMESPACE);

/** What a dispute notice does, as read: apply it, take the return path, or why not. */
type DisputeDecision =
  { outcome: 'apply' } | { outcome: 'return' } | { outcome: 'held' | 'stale' | 'skipped'; reason: string };

const not = (outcome: 'held' | 'stale' | 'skipped', reason: string): DisputeDecision => ({ outcome, reason });

/** A card sale whose charge moved money: Approved, or Voided where a void is a refund. */
const isDisputable = (sale: Pick<Transaction, 'status'>, voidIsRefund: boolean): boolean =>
  sale.status === 'Approved' || (voidIsRefund && sale.status === 'Voided');

/** Whether the notice applies to its sale and its dispute as read, and why not. */
export function disputeDecision(
  notice: Pick<DisputeNoticeFacts, 'kind' | 'sequence'>,
  sale: Transaction | undefined,
  dispute: Dispute | undefined,
  /** The processor's void is a refund (PaymentProcessor.voidIsRefund). */
  voidIsRefund = false,
): DisputeDecision {
  if (!sale) return not('held', 'no sale is recorded for it yet');
  if (sale.status === 'Pending') return not('held', 'its sale is still Pending');
  if (isBank(sale.accountType)) {
    // A bank debit's dispute is its unauthorized return: its opening says so once.
    if (notice.kind !== 'dispute_opened') return not('stale', 'a bank debit is disputed by its return');
    return { outcome: 'return' };
  }
  if (dispute && isLate(dispute.noticeSeq, notice.sequence))
    return not('stale', 'older than the last notice applied to its dispute');
  if (dispute && !isOpenDispute(dispute.status))
    return not('stale', `its dispute is closed already (${dispute.status})`);
  if (!isDisputable(sale, voidIsRefund))
    return not('skipped', `its sale is ${sale.status}: no charge to dispute`);
  return { outcome: 'apply' };
}

/** The dispute after the notice (a new one when none was recorded). */
export function disputeAfter(
  notice: DisputeNoticeFacts,
  sale: Transaction,
  before: Dispute | undefined,
  events: number,
): Dispute {
  const closed = !isOpenDispute(notice.status);
  return {
    disputeId: before?.disputeId ?? disputeIdOf(sale.merchantId, notice.disputeId),
    merchantId: sale.merchantId,
    transactionId: sale.transactionId,
    ...(sale.paymentId !== undefined && { paymentId: sale.paymentId }),
    ...(sale.paymentGroupId !== undefined && { paymentGroupId: sale.paymentGroupId }),
    status: notice.status,
    reason: notice.reason,
    amountCents: notice.amountCents,
    ...(notice.evidenceDueBy !== undefined && !closed && { evidenceDueBy: notice.evidenceDueBy }),
    openedAt: before?.openedAt ?? notice.occurredAt,
    ...(closed && { closedAt: notice.occurredAt }),
    noticeSeq: notice.sequence,
    eventSeq: (before?.eventSeq ?? 0) + events,
  };
}

/**
 * The events a change announces: created (and closed, when it came closed), closed, or updated
 * when what the dispute shows changed (its status, reason, amount or evidence date); none for a
 * notice that changes none of them (Stripe's inquiry going under review, evidence edited).
 */
export function disputeEventTypes(
  before: Dispute | undefined,
  notice: Pick<DisputeNoticeFacts, 'status' | 'reason' | 'amountCents' | 'evidenceDueBy'>,
): EventType[] {
  const closed = !isOpenDispute(notice.status);
  if (!before) return closed ? ['dispute.created', 'dispute.closed'] : ['dispute.created'];
  if (closed) return ['dispute.closed'];
  const changed =
    before.status !== notice.status ||
    before.reason !== notice.reason ||
    before.amountCents !== notice.amountCents ||
    before.evidenceDueBy !== notice.evidenceDueBy;
  return changed ? ['dispute.updated'] : [];
}

export const disputeView = (d: Dispute): DisputeView => ({
  disputeId: d.disputeId,
  transactionId: d.transactionId,
  ...(d.paymentId !== undefined && { paymentId: d.paymentId }),
  ...(d.paymentGroupId !== undefined && { paymentGroupId: d.paymentGroupId }),
  status: d.status,
  reason: d.reason,
  amount: fromCents(d.amountCents),
  ...(d.evidenceDueBy !== undefined && { evidenceDueBy: d.evidenceDueBy }),
  openedAt: d.openedAt,
  ...(d.closedAt !== undefined && { closedAt: d.closedAt }),
});

/** The events of a change, numbered on from the dispute's count before it; each shows it as after. */
export const disputeEvents = (
  types: readonly EventType[],
  after: Dispute,
  now: Date,
): ServiceEvent<DisputeView>[] =>
  types.map((type, i) =>
    newEvent(
      {
        type,
        merchantId: after.merchantId,
        objectId: after.disputeId,
        sequence: after.eventSeq - types.length + 1 + i,
        data: disputeView(after),
      },
      now,
    ),
  );

/**
 * Whether the sale (or its payment) shows this dispute as its latest: none shown yet, the same
 * one, or one opened no later than it.
 */
export const showsAsLatest = (shown: DisputeView | undefined, after: Dispute): boolean =>
  shown === undefined || shown.disputeId === after.disputeId || shown.openedAt <= after.openedAt;

/**
 * The follow-ups a change leaves: the card's method revoked (and its series payments suspended)
 * when the dispute's reason revokes and its reason before did not; and, when the scheduled payment
 * the sale charged shows the dispute (`shownOn`, as read), the dispute moved into its group's
 * processingSummary until its mark says it is.
 */
export function disputeFollowUps(
  sale: Transaction,
  before: Dispute | undefined,
  after: Dispute,
  shownOn?: { paymentGroupId: string; paymentId: string; disputeCounted?: string },
): NoticeFollowUp[] {
  const followUps: NoticeFollowUp[] = [];
  if (revokes(after.reason) && !revokes(before?.reason))
    followUps.push({
      kind: 'method',
      action: 'revoke',
      merchantId: sale.merchantId,
      payorId: sale.payorId,
      savedPaymentMethodId: sale.savedPaymentMethodId,
      code: after.reason,
      transactionId: sale.transactionId,
    });
  if (shownOn && shownOn.disputeCounted !== after.disputeId)
    followUps.push({
      kind: 'dispute-summary',
      merchantId: sale.merchantId,
      paymentGroupId: shownOn.paymentGroupId,
      paymentId: shownOn.paymentId,
      disputeId: after.disputeId,
    });
  return followUps;
}

/** The message of a refund or void refused by the sale's dispute (disputedNow). */
export function disputedRefusal(
  t: Pick<Transaction, 'transactionId' | 'dispute' | 'disputeLost'>,
  what: 'refunded' | 'voided',
): string {
  const d = t.dispute;
  if (d?.status === 'lost')
    return `transaction ${t.transactionId} was disputed and the dispute lost (dispute ${d.disputeId}, ${d.reason}): the cardholder has the money back; it cannot be ${what}`;
  if (d === undefined || !isOpenDispute(d.status))
    return `transaction ${t.transactionId} was disputed and a dispute lost (dispute ${t.disputeLost}): the cardholder has the money back; it cannot be ${what}`;
  return `transaction ${t.transactionId} is disputed (dispute ${d.disputeId}, ${d.status}, ${d.reason}): it cannot be ${what} while the dispute is open`;
}
