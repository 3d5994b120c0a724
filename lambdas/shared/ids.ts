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
