/**
 * The adapter timeout: every processor call gives up after a bound well below the function's own
 * timeout (API functions: 10 s), so that a slow processor ends in ProcessorUnavailableError and
 * the caller's timeout reversal (or retry with the same key) runs, instead of the function being
 * killed half-way with nothing recorded. docs/decisions.md "Processor timeout".
 */
import { PROCESSOR_TIMING } from '#contract/processor';
import { withTimeout } from '#shared/clock';
import { ProcessorUnavailableError, type PaymentProcessor } from './processor';

/**
 * The sandbox's bound of one call (each adapter has its own: contract/processor.ts): a sale plus
 * its timeout reversal (2 × 3 s) fits in an API function's 10 s.
 */
export const PROCESSOR_TIMEOUT_MS = PROCESSOR_TIMING.sandbox.callMs;

const bounded = <T>(call: Promise<T>, ms: number, what: string, giveUp?: AbortController): Promise<T> =>
  withTimeout(call, ms, () => {
    giveUp?.abort();
    throw new ProcessorUnavailableError(`processor ${what} gave no answer within ${ms} ms`);
  });

/** A sale bounded by `ms`; the adapter is told when its caller gives up (`signal`). */
function boundedSale(inner: PaymentProcessor, ms: number): PaymentProcessor['sale'] {
  return (request) => {
    const giveUp = new AbortController();
    return bounded(inner.sale({ ...request, signal: giveUp.signal }), ms, 'sale', giveUp);
  };
}

/** The adapter with every network call bounded by `ms` (settlementTime is local arithmetic). */
export function withProcessorTimeout(inner: PaymentProcessor, ms: number): PaymentProcessor {
  return {
    voidsBankDebits: inner.voidsBankDebits,
    voidIsRefund: inner.voidIsRefund,
    tokenize: (r) => bounded(inner.tokenize(r), ms, 'tokenize'),
    sale: boundedSale(inner, ms),
    void: (r) => bounded(inner.void(r), ms, 'void'),
    refund: (r) => bounded(inner.refund(r), ms, 'refund'),
    reverseUnanswered: (r) => bounded(inner.reverseUnanswered(r), ms, 'reversal'),
    settlementTime: (t) => inner.settlementTime(t),
    ...(inner.settleNow && { settleNow: (r) => bounded(inner.settleNow!(r), ms, 'settle') }),
    // A report read by the daily reconciliation, not a call an API function waits on.
    listActivity: (since, until) => inner.listActivity(since, until),
    // Read by the daily account updater job, which has minutes, not an API caller's seconds.
    accountUpdates: (since, until) => inner.accountUpdates(since, until),
    // Listed by the notices' backstop job (minutes), and the test clock's bring-forward.
    ...(inner.listNotices && { listNotices: (r) => inner.listNotices!(r) }),
    ...(inner.noticesNow && { noticesNow: (r) => bounded(inner.noticesNow!(r), ms, 'notices') }),
    // A webhook's reading asks the processor at most once (a dispute's charge).
    ...(inner.readWebhook && { readWebhook: (r) => bounded(inner.readWebhook!(r), ms, 'webhook') }),
  };
}
