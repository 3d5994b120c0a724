/**
 * Identifiers: UUIDv7 (RFC 9562) so that ids sort by creation time; a group's payments are
 * listed and processed in the order they were added.
 */
import { v5, v7 } from 'uuid';

export const newId = (): string => v7();

/** Namespace of the transaction ids of scheduled payments (UUIDv5 of the paymentId). */
const PAYMENT_TRANSACTION_NAMESPACE = '6b1c9b1e-5a51-4f3e-9c55-3f1f4a7e2d10';

/** A scheduled payment's sale id, derived from the payment: a retried charge finds its record. */
export const transactionIdOf = (paymentId: string): string => v5(paymentId, PAYMENT_TRANSACTION_NAMESPACE);

/** Namespace of the groups of series' occurrences (UUIDv5 of `<seriesId>#<occurrence>`). */
const SERIES_OCCURRENCE_NAMESPACE = '2d0b7c4e-9f1a-4b6e-8a3d-7c5e1f0a9b24';

/**
 * The group of a series' occurrence, derived from both: however often or concurrently the
 * creation job runs, the occurrence's group can be written only once.
 */
export const occurrenceGroupId = (seriesId: string, occurrence: number): string =>
  v5(`${seriesId}#${occurrence}`, SERIES_OCCURRENCE_NAMESPACE);
/**
 * The sale id of a scheduled payment's attempt: the first is `transactionIdOf(paymentId)` (as it
 * always was), a retry's is derived from the payment and its number, so each attempt is its own
 * sale that a retried step finds again. (Its processor key: domain/processor-keys.ts.)
 */
export const attemptTransactionId = (paymentId: string, attempt: number): string =>
  attempt <= 1 ? transactionIdOf(paymentId) : v5(`${paymentId}:${attempt}`, PAYMENT_TRANSACTION_NAMESPACE);
