/**
 * Processor keys: the idempotency key the service sends with every processor call that moves
 * money. The processor replays a call it already has by its key (one key, one charge), and the
 * reconciliation matches the processor's activity to the service's records by it, so the strings
 * are a contract with the processor: built and parsed here only, and pinned by
 * test/unit/processor-keys.test.ts (a changed template would charge a replayed payment again and
 * leave every earlier call unmatched).
 *
 * - `sale:<transactionId>`: a sale of the transactions API;
 * - `payment:<paymentId>`: the first charge of a scheduled payment, `payment:<paymentId>:<attempt>`
 *   each retry (2, 3, ...): no attempt is charged twice, and each retry is a new charge;
 * - `void:<transactionId>`: the void of a sale;
 * - `refund:<refundId>`: a refund, of the API or of a group's void-or-refund (scheduled or not).
 *
 * Here in domain/ so that both sides reach it: core/ sends the keys, processor/ adapters read
 * them back (the Stripe adapter tells a void from a refund by its key).
 */
import { attemptTransactionId } from '#shared/ids';

export const processorKeys = {
  sale: (transactionId: string): string => `sale:${transactionId}`,
  payment: (paymentId: string, attempt = 1): string =>
    attempt <= 1 ? `payment:${paymentId}` : `payment:${paymentId}:${attempt}`,
  void: (transactionId: string): string => `void:${transactionId}`,
  refund: (refundId: string): string => `refund:${refundId}`,
};

/** What a processor key names. */
type ProcessorKey =
  | { kind: 'sale'; transactionId: string }
  | { kind: 'payment'; paymentId: string; attempt: number }
  | { kind: 'void'; transactionId: string }
  | { kind: 'refund'; refundId: string };

/** A retry's suffix: `:<attempt>`, 2 or more, as `processorKeys.payment` writes it. */
const RETRY = /^(.+):([1-9]\d*)$/;

/**
 * What `key` names, or undefined for a key the service does not make (another system's calls in
 * the processor's activity).
 */
export function parseProcessorKey(key: string): ProcessorKey | undefined {
  const colon = key.indexOf(':');
  if (colon < 0) return undefined;
  const prefix = key.slice(0, colon);
  const id = key.slice(colon + 1);
  switch (prefix) {
    case 'sale':
    case 'void':
      return { kind: prefix, transactionId: id };
    case 'refund':
      return { kind: 'refund', refundId: id };
    case 'payment': {
      const retry = RETRY.exec(id);
      const attempt = retry ? Number(retry[2]) : 1;
      return attempt >= 2
        ? { kind: 'payment', paymentId: retry![1]!, attempt }
        : { kind: 'payment', paymentId: id, attempt: 1 };
    }
    default:
      return undefined;
  }
}

/**
 * The sale a key names: its own for `sale:` and `void:`, the attempt's derived sale for
 * `payment:` (shared/ids.ts attemptTransactionId); undefined for refunds and foreign keys.
 */
export function saleIdOfKey(key: string): string | undefined {
  const parsed = parseProcessorKey(key);
  if (parsed === undefined || parsed.kind === 'refund') return undefined;
  return parsed.kind === 'payment'
    ? attemptTransactionId(parsed.paymentId, parsed.attempt)
    : parsed.transactionId;
}

/** The refund a key names (`refund:<refundId>`), or undefined. */
export function refundIdOfKey(key: string): string | undefined {
  const parsed = parseProcessorKey(key);
  return parsed?.kind === 'refund' ? parsed.refundId : undefined;
}
