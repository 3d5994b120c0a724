/**
 * What a failed call to Stripe means for the service. Stripe's own error messages are never
 * repeated: they can quote the request's parameters (a card number Stripe refused, a key), and
 * whatever this adapter throws is logged by its callers. Only the HTTP status, Stripe's error type
 * and code (short words, checked) and its request id are kept.
 *
 * - A card error (402) is a decline: the sale maps it (declines.ts).
 * - 429, 5xx, a connection failure, a timeout (also one in the middle of a body), an answer that
 *   is not JSON, a refused key (401, 403): the processor is unavailable. A 5xx that Stripe marks
 *   `Stripe-Should-Retry: false` is stored under its idempotency key and would be replayed as is:
 *   `retryable: false`, for the caller to find the outcome by the key instead of retrying.
 * - An idempotency error: the key was used before with other parameters.
 * - Any other 4xx: Stripe refused the request itself (nothing was done).
 */
import Stripe from 'stripe';
import { ProcessorUnavailableError } from '#processor/processor';
import type { StripeDeclineFields } from './declines';

/** Stripe could not be asked, or gave no definite answer. */
export class StripeUnavailableError extends ProcessorUnavailableError {
  constructor(
    message: string,
    /** False when asking again with the same key would only replay the same failure. */
    readonly retryable = true,
    credentialsRefused = false,
  ) {
    super(message, { credentialsRefused });
  }
}

export type StripeFailure =
  | { kind: 'declined'; fields: StripeDeclineFields; paymentIntent?: Stripe.PaymentIntent }
  | { kind: 'key-conflict' }
  | { kind: 'refused'; status: number; code: string };

/** A code or type as it may be quoted (Stripe's are short words); anything else is not. */
export const safeCode = (value: unknown): string =>
  typeof value === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(value) ? value : 'unrecognized';

/** The error's name, status, Stripe type and code and request id: nothing Stripe wrote in words. */
function describe(error: Stripe.errors.StripeError): string {
  const parts = [
    error.statusCode !== undefined ? `HTTP ${error.statusCode}` : undefined,
    safeCode(error.rawType ?? error.type),
    error.code !== undefined ? safeCode(error.code) : undefined,
    error.requestId !== undefined ? `request ${safeCode(error.requestId)}` : undefined,
  ];
  return parts.filter((p) => p !== undefined).join(', ');
}

const shouldRetry = (error: Stripe.errors.StripeError): string | undefined => {
  const value = error.headers?.['stripe-should-retry'];
  return typeof value === 'string' ? value : undefined;
};

/**
 * The failure a Stripe call ended in, or a StripeUnavailableError thrown for one that leaves the
 * outcome open. `what` names the call in the message (`sale`, `refund`...).
 */
export function failureOf(error: unknown, what: string): StripeFailure {
  if (!(error instanceof Stripe.errors.StripeError)) {
    // Not Stripe's: a bug of ours or the runtime's; its message may quote anything, so not kept.
    throw new StripeUnavailableError(
      `Stripe ${what}: unexpected failure (${safeCode((error as Error)?.name)})`,
    );
  }
  const status = error.statusCode;
  if (error instanceof Stripe.errors.StripeCardError) {
    return {
      kind: 'declined',
      fields: {
        code: error.code ?? null,
        decline_code: error.decline_code ?? null,
        advice_code: error.advice_code ?? null,
        network_advice_code: error.network_advice_code ?? null,
        network_decline_code: error.network_decline_code ?? null,
      },
      ...(error.payment_intent !== undefined && { paymentIntent: error.payment_intent }),
    };
  }
  if (error instanceof Stripe.errors.StripeIdempotencyError) return { kind: 'key-conflict' };
  if (
    status === undefined ||
    status === 429 ||
    status >= 500 ||
    status === 401 ||
    status === 403 ||
    status === 409 ||
    error instanceof Stripe.errors.StripeConnectionError ||
    error instanceof Stripe.errors.StripeRateLimitError ||
    error instanceof Stripe.errors.StripeAuthenticationError ||
    error instanceof Stripe.errors.StripePermissionError
  ) {
    const retryable = !(status !== undefined && status >= 500 && shouldRetry(error) === 'false');
    // The key refused (not one without a permission, 403): read again, it may have been rolled.
    const keyRefused = status === 401 || error instanceof Stripe.errors.StripeAuthenticationError;
    throw new StripeUnavailableError(
      `Stripe ${what} unavailable (${describe(error)})`,
      retryable,
      keyRefused,
    );
  }
  return { kind: 'refused', status, code: safeCode(error.code) };
}

/** Stripe answered with an object this adapter cannot read: treated as no answer. */
export const malformed = (what: string, detail: string): StripeUnavailableError =>
  new StripeUnavailableError(`Stripe ${what}: unreadable answer (${detail})`);
