/**
 * What payment changes write (store/payments.ts sends them): the group-side half of a change to
 * the group's payments, and each answer: the first, a retry's, a scheduled retry cancelled, a
 * payment with a scheduled retry deleted. Each is a transaction's items, the payment's change
 * announced by its events (store/events.ts).
 */
import { nextSequence, type ServiceEvent } from '#domain/events';
import { answerEventType, paymentEvent, type Group, type Payment, type PaymentAttempt } from '#domain/groups';
import type { OutboxItem } from '#domain/notifications';
import type { AuthResponse } from '#domain/processing';
import type { PaymentRetry } from '#domain/retries';
import { deletionSummaryDelta } from '#domain/summary-deltas';
import { MAX_PAYMENTS_PER_GROUP } from '#contract/limits';
import { keys } from './keys';
import { announcedUpdate } from './events';
import { outboxPut } from './outbox';

/** The schedule a payment-scheduled notice names. */
export type Slot = Pick<Group, 'scheduleDate' | 'scheduleHour'>;

/** The group-side half of every payment change: totals move only while it is pending. */
export function groupTotals(
  tableName: string,
  group: Pick<Group, 'paymentGroupId' | 'merchantId'>,
  countDelta: number,
  centsDelta: number,
  now: Date,
  /** The slot the caller read (a notice names it): the change holds only if it is unchanged. */
  slot?: Slot,
): object {
  return {
    Update: {
      TableName: tableName,
      Key: keys.group(group.paymentGroupId),
      UpdateExpression: 'ADD paymentCount :c, totalCents :t SET lastUpdated = :now',
      ConditionExpression:
        '#status = :pending AND merchantId = :m' +
        (countDelta > 0 ? ' AND paymentCount < :max' : '') +
        (slot ? ' AND scheduleDate = :d AND scheduleHour = :h' : ''),
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':c': countDelta,
        ':t': centsDelta,
        ':now': now.toISOString(),
        ':pending': 'pending',
        ':m': group.merchantId,
        ...(countDelta > 0 && { ':max': MAX_PAYMENTS_PER_GROUP }),
        ...(slot && { ':d': slot.scheduleDate, ':h': slot.scheduleHour }),
      },
    },
  };
}

/** What an attempt's answer writes beside its authResponse (core/attempts.ts). */
export interface AnswerRecord {
  /** The attempt as the payment lists it. */
  attempt: PaymentAttempt;
  /** The retry it decides (absent: none to show). */
  retry?: PaymentRetry;
  /** The payor's decline notice, written with the answer. */
  outbox?: OutboxItem;
}

/** Outcome of recording a retry's answer or cancellation. */
export type RetryWriteOutcome = 'ok' | 'changed';

/** The events an answer announces: the answer's, then `payment.retry_scheduled` when it schedules one. */
function answerEvents(answered: Payment, seen: number | undefined, now: Date): ServiceEvent[] {
  const first = (seen ?? 0) + 1;
  const events = [
    paymentEvent(answerEventType(answered.authResponse!), { ...answered, eventSeq: first }, now),
  ];
  if (answered.retry?.status === 'scheduled')
    events.push(paymentEvent('payment.retry_scheduled', { ...answered, eventSeq: first + 1 }, now));
  return events;
}

/** The first answer of `current` (as read), `answered` being the payment with it. */
export function firstAnswerWrites(
  tableName: string,
  current: Payment,
  answered: Payment,
  record: AnswerRecord,
  now: Date,
): object[] {
  return [
    ...announcedUpdate(
      tableName,
      {
        Key: keys.payment(current.paymentGroupId, current.paymentId),
        set:
          'authResponse = :a, attempts = :attempts, lastUpdated = :now' +
          (record.retry ? ', #retry = :r' : ''),
        condition: 'attribute_not_exists(authResponse) OR authResponse = :null',
        ...(record.retry && { names: { '#retry': 'retry' } }),
        values: {
          ':a': answered.authResponse,
          ':attempts': [record.attempt],
          ':null': null,
          ':now': now.toISOString(),
          ...(record.retry && { ':r': record.retry }),
        },
      },
      current.eventSeq,
      answerEvents(answered, current.eventSeq, now),
    ),
    ...(record.outbox ? [outboxPut(tableName, record.outbox)] : []),
  ];
}

/** A retry's answer, if the payment still waits for it (its retry scheduled, as many attempts as read). */
export function retryAnswerWrites(
  tableName: string,
  payment: Payment,
  authResponse: AuthResponse,
  record: AnswerRecord,
  now: Date,
): object[] {
  const before = payment.attempts ?? [];
  const answered: Payment = {
    ...payment,
    authResponse,
    attempts: [...before, record.attempt],
    ...(record.retry ? { retry: record.retry } : {}),
    lastUpdated: now.toISOString(),
  };
  if (!record.retry) delete answered.retry;
  return [
    ...announcedUpdate(
      tableName,
      {
        Key: keys.payment(payment.paymentGroupId, payment.paymentId),
        set:
          'authResponse = :a, attempts = :attempts, lastUpdated = :now' +
          (record.retry ? ', #retry = :r' : ''),
        ...(!record.retry && { remove: '#retry' }),
        condition: '#retry.#status = :scheduled AND size(attempts) = :before AND deleted = :false',
        names: { '#retry': 'retry', '#status': 'status' },
        values: {
          ':a': authResponse,
          ':attempts': answered.attempts,
          ':now': now.toISOString(),
          ':scheduled': 'scheduled',
          ':before': before.length,
          ':false': false,
          ...(record.retry && { ':r': record.retry }),
        },
      },
      payment.eventSeq,
      answerEvents(answered, payment.eventSeq, now),
    ),
    ...(record.outbox ? [outboxPut(tableName, record.outbox)] : []),
  ];
}

/** A scheduled retry that will not run, announced by `payment.updated`, if the payment is as read. */
export function retryCancelWrites(
  tableName: string,
  payment: Payment,
  retry: PaymentRetry,
  now: Date,
): object[] {
  const cancelled: Payment = {
    ...payment,
    retry,
    lastUpdated: now.toISOString(),
    eventSeq: nextSequence(payment.eventSeq),
  };
  return announcedUpdate(
    tableName,
    {
      Key: keys.payment(payment.paymentGroupId, payment.paymentId),
      set: '#retry = :r, lastUpdated = :now',
      condition: '#retry.#status = :scheduled AND size(attempts) = :n',
      names: { '#retry': 'retry', '#status': 'status' },
      values: {
        ':r': retry,
        ':now': now.toISOString(),
        ':scheduled': 'scheduled',
        ':n': (payment.attempts ?? []).length,
      },
    },
    payment.eventSeq,
    paymentEvent('payment.updated', cancelled, now),
  );
}

/**
 * A payment of a processed group with its retry scheduled, deleted (the retry cancelled) while no
 * retry round of the group is charging; the group's totals and summary follow.
 */
export function scheduledRetryDeleteWrites(tableName: string, previous: Payment, now: Date): object[] {
  const retry: PaymentRetry = {
    status: 'not_retried',
    reason: 'payment_deleted',
    detail: 'the payment was deleted before its retry',
  };
  const deleted: Payment = {
    ...previous,
    deleted: true,
    retry,
    lastUpdated: now.toISOString(),
    eventSeq: nextSequence(previous.eventSeq),
  };
  const [update, event] = announcedUpdate(
    tableName,
    {
      Key: keys.payment(previous.paymentGroupId, previous.paymentId),
      set: 'deleted = :true, #retry = :r, lastUpdated = :now',
      // The summary's move below is from the payment as read: its return moved in meanwhile (the
      // mark alone changes) reads it again.
      condition:
        'deleted = :false AND #retry.#status = :scheduled AND size(attempts) = :n AND ' +
        (previous.returnCounted === undefined
          ? 'attribute_not_exists(returnCounted)'
          : 'returnCounted = :counted'),
      names: { '#retry': 'retry', '#status': 'status' },
      values: {
        ':true': true,
        ':false': false,
        ':r': retry,
        ':now': now.toISOString(),
        ':scheduled': 'scheduled',
        ':n': (previous.attempts ?? []).length,
        ...(previous.returnCounted !== undefined && { ':counted': previous.returnCounted }),
      },
    },
    previous.eventSeq,
    paymentEvent('payment.deleted', deleted, now),
  );
  // The group's totals count non-deleted payments; its summary counts the payment as deleted now,
  // no longer as it counted it: declined or failed, or returned (an nsf return schedules a retry
  // too), or approved still until that return is moved in.
  const moves = Object.entries(deletionSummaryDelta(previous));
  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = {
    ':minus': -1,
    ':cents': -previous.amountCents,
    ':processed': 'processed',
    ':m': previous.merchantId,
  };
  moves.forEach(([field, by], i) => {
    names[`#f${i}`] = field;
    values[`:d${i}`] = by;
  });
  const group = {
    Update: {
      TableName: tableName,
      Key: keys.group(previous.paymentGroupId),
      UpdateExpression:
        'ADD paymentCount :minus, totalCents :cents' +
        moves.map((_, i) => `, processingSummary.#f${i} :d${i}`).join(''),
      ConditionExpression:
        '#status = :processed AND merchantId = :m AND attribute_not_exists(retryBound) AND ' +
        'attribute_exists(processingSummary.retriesScheduled)',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
  return [update!, group, event!];
}
