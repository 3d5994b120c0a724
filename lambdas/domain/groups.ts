/**
 * Group and payment rules: plain functions, no AWS. The records (group-records.ts) hold cents;
 * views (API shapes) hold amounts in the currency unit.
 */
import { BadRequestError, ImmutableFieldViolationError } from '#shared/errors';
import type { CreateGroupInput, GroupView, UpdateGroupInput } from '#contract/schemas/groups';
import type {
  AddPaymentInput,
  InlinePaymentInput,
  PaymentView,
  UpdatePaymentInput,
} from '#contract/schemas/payments';
import type { EventType } from '#contract/events';
import { newEvent, type ServiceEvent } from './events';
import { fromCents, toCents } from './money';
import type { VoidOrRefundResponse } from '#contract/schemas/payments';
import { summaryView, type AuthResponse } from './processing';
import { retryPolicyOf } from './retries';
import type { Group, GroupStatus, Payment, PaymentAttempt } from './group-records';

export type {
  Group,
  GroupStatus,
  Payment,
  PaymentAttempt,
  TransactionInitiator,
  VoidOrRefundSummary,
} from './group-records';

/** `2026-11-21T09`: the UTC hour a group is processed in; sorts chronologically. */
export const slotOf = (scheduleDate: string, scheduleHour: number): string =>
  `${scheduleDate}T${String(scheduleHour).padStart(2, '0')}`;

export const currentSlot = (now: Date): string => now.toISOString().slice(0, 13);

/**
 * A slot earlier than the current UTC hour is refused on create and on update
 * (docs/product.md#schedule-slots).
 */
export function assertSlotNotPast(scheduleDate: string, scheduleHour: number, now: Date): void {
  if (slotOf(scheduleDate, scheduleHour) < currentSlot(now)) {
    throw new BadRequestError(
      `scheduleDate/scheduleHour ${slotOf(scheduleDate, scheduleHour)}:00Z is in the past (now ${now.toISOString()})`,
    );
  }
}

/** Payments can be added, changed or deleted only while their group is pending. */
export function assertPaymentsEditable(group: Group): void {
  if (group.status === 'pending') return;
  const why: Record<Exclude<GroupStatus, 'pending'>, string> = {
    processing: 'is being processed',
    processed: 'has already been processed; use void-or-refund instead',
    deleted: 'is deleted',
  };
  throw new BadRequestError(
    `payment group ${group.paymentGroupId} ${why[group.status]}; its payments cannot change`,
  );
}

export function newGroup(input: CreateGroupInput, merchantId: string, id: string, now: Date): Group {
  assertSlotNotPast(input.scheduleDate, input.scheduleHour, now);
  const ts = now.toISOString();
  return {
    paymentGroupId: id,
    merchantId,
    scheduleDate: input.scheduleDate,
    scheduleHour: input.scheduleHour,
    locationId: input.locationId,
    transactionInitiator: input.transactionInitiator ?? 'Merchant',
    surchargeCompliance: input.surchargeCompliance ?? false,
    allowPartial: input.allowPartial ?? false,
    ...(input.retryPolicy && { retryPolicy: retryPolicyOf(input.retryPolicy) }),
    status: 'pending',
    paymentCount: 0,
    totalCents: 0,
    dateCreated: ts,
    lastUpdated: ts,
  };
}

/**
 * A new group with its payments (`newId` names each), the group's count and total taken from
 * them: what a create request writes, all at once.
 */
export function newGroupWithPayments(
  input: CreateGroupInput,
  merchantId: string,
  newId: () => string,
  now: Date,
): { group: Group; payments: Payment[] } {
  const group = newGroup(input, merchantId, newId(), now);
  const payments = (input.payments ?? []).map((p) => newPayment(p, group, newId(), now));
  group.paymentCount = payments.length;
  group.totalCents = payments.reduce((sum, p) => sum + p.amountCents, 0);
  return { group, payments };
}

/**
 * The group after an update, or `undefined` when the update is to be ignored: a processing or
 * processed group keeps its schedule; void-or-refund is used instead (docs/product.md#updating-a-group).
 */
export function updatedGroup(group: Group, input: UpdateGroupInput, now: Date): Group | undefined {
  if (group.status === 'processing' || group.status === 'processed') return undefined;
  if (group.status === 'deleted')
    throw new BadRequestError(`payment group ${group.paymentGroupId} is deleted`);
  const next: Group = {
    ...group,
    scheduleDate: input.scheduleDate ?? group.scheduleDate,
    scheduleHour: input.scheduleHour ?? group.scheduleHour,
    locationId: input.locationId ?? group.locationId,
    transactionInitiator: input.transactionInitiator ?? group.transactionInitiator,
    surchargeCompliance: input.surchargeCompliance ?? group.surchargeCompliance,
    allowPartial: input.allowPartial ?? group.allowPartial,
    ...(input.retryPolicy && { retryPolicy: retryPolicyOf(input.retryPolicy) }),
    lastUpdated: now.toISOString(),
    eventSeq: (group.eventSeq ?? 0) + 1,
  };
  const rescheduled = next.scheduleDate !== group.scheduleDate || next.scheduleHour !== group.scheduleHour;
  if (rescheduled) assertSlotNotPast(next.scheduleDate, next.scheduleHour, now);
  return next;
}

function paymentFields(input: InlinePaymentInput) {
  return {
    profileId: input.profileId,
    amountCents: toCents(input.amount),
    orderId: input.orderId,
    recurring: input.recurring ?? false,
    allowPartial: input.allowPartial,
    sendEmailReceipt: input.sendEmailReceipt ?? false,
    sendDeclineNotification: input.sendDeclineNotification ?? false,
    customAttributes: input.customAttributes as Payment['customAttributes'],
    fees: input.fees?.map((f) => ({ name: f.name, amountCents: toCents(f.amount) })),
  };
}

export function newPayment(
  input: InlinePaymentInput | AddPaymentInput,
  group: Pick<Group, 'paymentGroupId' | 'merchantId'>,
  id: string,
  now: Date,
): Payment {
  const ts = now.toISOString();
  return {
    paymentId: id,
    paymentGroupId: group.paymentGroupId,
    merchantId: group.merchantId,
    ...paymentFields(input),
    sendPaymentScheduledNotification: input.sendPaymentScheduledNotification ?? false,
    deleted: false,
    dateCreated: ts,
    lastUpdated: ts,
    authResponse: null,
  };
}

/** Full replacement of a payment's integrator fields (docs/product.md#updating-a-payment). */
export function replacedPayment(existing: Payment, input: UpdatePaymentInput, now: Date): Payment {
  if (existing.deleted) throw new BadRequestError(`payment ${existing.paymentId} is deleted`);
  if (
    input.sendPaymentScheduledNotification !== undefined &&
    input.sendPaymentScheduledNotification !== existing.sendPaymentScheduledNotification
  ) {
    throw new ImmutableFieldViolationError('sendPaymentScheduledNotification');
  }
  return {
    ...existing,
    ...paymentFields(input),
    sendPaymentScheduledNotification: existing.sendPaymentScheduledNotification,
    lastUpdated: now.toISOString(),
  };
}

/** Path and body must name the same resource. */
export function assertSameId(field: string, bodyValue: string | undefined, pathValue: string): void {
  if (bodyValue !== undefined && bodyValue.toLowerCase() !== pathValue.toLowerCase()) {
    throw new BadRequestError(`${field} ${bodyValue} does not match the path (${pathValue})`);
  }
}

export const groupView = (g: Group): GroupView => ({
  paymentGroupId: g.paymentGroupId,
  servicePayId: g.merchantId,
  scheduleDate: g.scheduleDate,
  scheduleHour: g.scheduleHour,
  locationId: g.locationId,
  transactionInitiator: g.transactionInitiator,
  surchargeCompliance: g.surchargeCompliance,
  allowPartial: g.allowPartial,
  status: g.status,
  deleted: g.status === 'deleted',
  paymentCount: g.paymentCount,
  totalAmount: fromCents(g.totalCents),
  dateCreated: g.dateCreated,
  lastUpdated: g.lastUpdated,
  ...(g.seriesId !== undefined && { seriesId: g.seriesId, occurrence: g.occurrence }),
  ...(g.processingSummary && { processingSummary: summaryView(g.processingSummary) }),
  ...(g.executionArn !== undefined && { executionArn: g.executionArn }),
  ...(g.voidOrRefundSummary && {
    voidOrRefundSummary: {
      status: g.voidOrRefundSummary.status,
      voidedCount: g.voidOrRefundSummary.voidedCount,
      refundedCount: g.voidOrRefundSummary.refundedCount,
      refundScheduledCount: g.voidOrRefundSummary.refundScheduledCount ?? 0,
      skippedCount: g.voidOrRefundSummary.skippedCount,
      failedCount: g.voidOrRefundSummary.failedCount,
      executionArn: g.voidOrRefundSummary.executionArn,
    },
  }),
  ...(g.retryPolicy && {
    retryPolicy: { maxRetries: g.retryPolicy.maxRetries, intervalHours: g.retryPolicy.intervalHours },
  }),
});

/**
 * The event announcing `type` of a group as it is after the change (its `eventSeq` already the
 * event's sequence): the group as GET shows it.
 */
export const groupEvent = (type: EventType, group: Group, now: Date): ServiceEvent<GroupView> =>
  newEvent(
    {
      type,
      merchantId: group.merchantId,
      objectId: group.paymentGroupId,
      sequence: group.eventSeq ?? 1,
      data: groupView(group),
    },
    now,
  );

/** A group with its payments, as its create answers it. */
export const groupWithPaymentsView = ({ group, payments }: { group: Group; payments: Payment[] }) => ({
  ...groupView(group),
  payments: payments.map(paymentView),
});

export const paymentView = (p: Payment): PaymentView => ({
  paymentId: p.paymentId,
  paymentGroupId: p.paymentGroupId,
  profileId: p.profileId,
  amount: fromCents(p.amountCents),
  ...(p.orderId !== undefined && { orderId: p.orderId }),
  ...(p.sponsorKey !== undefined && { sponsorKey: p.sponsorKey }),
  recurring: p.recurring,
  ...(p.allowPartial !== undefined && { allowPartial: p.allowPartial }),
  sendEmailReceipt: p.sendEmailReceipt,
  sendPaymentScheduledNotification: p.sendPaymentScheduledNotification,
  sendDeclineNotification: p.sendDeclineNotification ?? false,
  ...(p.customAttributes !== undefined && { customAttributes: p.customAttributes }),
  ...(p.fees !== undefined && {
    fees: p.fees.map((f) => ({ name: f.name, amount: fromCents(f.amountCents) })),
  }),
  deleted: p.deleted,
  dateCreated: p.dateCreated,
  lastUpdated: p.lastUpdated,
  authResponse: p.authResponse,
  attempts: attemptsOf(p).map(({ round: _round, ...view }) => view),
  ...(p.retry && { retry: { ...p.retry } }),
  ...(p.voidOrRefundResponses !== undefined && { voidOrRefundResponses: p.voidOrRefundResponses }),
  ...(p.dispute !== undefined && { dispute: { ...p.dispute } }),
});

/** One attempt as its answer shows it. */
export function attemptOf(attempt: number, auth: AuthResponse, round?: number): PaymentAttempt {
  return {
    attempt,
    at: auth.processedAt,
    status: auth.status,
    responseCode: auth.responseCode,
    ...(auth.declineCategory !== undefined && { declineCategory: auth.declineCategory }),
    ...(auth.merchantAdviceCode !== undefined && { merchantAdviceCode: auth.merchantAdviceCode }),
    ...(auth.transactionId !== undefined && { transactionId: auth.transactionId }),
    ...(round !== undefined && { round }),
  };
}

/** A payment's attempts: as recorded, or its one answer (answered before attempts were kept). */
export const attemptsOf = (p: Pick<Payment, 'attempts' | 'authResponse'>): PaymentAttempt[] =>
  p.attempts ?? (p.authResponse ? [attemptOf(1, p.authResponse)] : []);

/**
 * The event announcing `type` of a payment as it is after the change (its `eventSeq` already the
 * event's sequence): the payment as GET shows it.
 */
export const paymentEvent = (type: EventType, payment: Payment, now: Date): ServiceEvent<PaymentView> =>
  newEvent(
    {
      type,
      merchantId: payment.merchantId,
      objectId: payment.paymentId,
      sequence: payment.eventSeq ?? 1,
      data: paymentView(payment),
    },
    now,
  );

/** The event type of a payment's answer: approved (whole or partial), declined, or failed (no answer). */
export function answerEventType(auth: AuthResponse): EventType {
  if (auth.status === 'Approved') return 'payment.approved';
  return auth.status === 'Failed' ? 'payment.failed' : 'payment.declined';
}

/** The event a reversal recorded on a payment announces: a void done, a refund completed; else none. */
export function reversalEventType(
  response: VoidOrRefundResponse,
): 'payment.voided' | 'payment.refunded' | undefined {
  if (response.type === 'Void') return response.status === 'Voided' ? 'payment.voided' : undefined;
  return response.status === 'Completed' ? 'payment.refunded' : undefined;
}

/** List filters of both group lists (validated query parameters). */
export interface GroupFilter {
  date?: string;
  hour?: number;
  locationId?: number;
  pendingOnly: boolean;
  /** With pendingOnly: `pending` ones alone, not those processing (a trigger's groups to start). */
  startable?: boolean;
}

/** `servicePayId` in a body must name the path's merchant, in either MID form. */
export function assertServicePayId(
  servicePayId: string | undefined,
  merchant: { merchantId: string; shortId?: string },
): void {
  if (servicePayId === undefined) return;
  if (servicePayId !== merchant.merchantId && servicePayId !== merchant.shortId) {
    throw new BadRequestError(`servicePayId ${servicePayId} does not match the merchant in the path`);
  }
}
