/**
 * The notices backstop job (DESIGN section 6, "Notices"; core/notice-backstop.ts): its handler,
 * schedule and bounds, read by CDK (lib/cdk/notice-backstop.ts) and the local runtime.
 */
import { PROCESSOR_TIMING, type ProcessorName } from './processor';

export const NOTICE_BACKSTOP_JOB = {
  handler: 'scheduled/receive-notices',
  /** Every minute in the cloud: the sandbox's notices come only this way; a real processor's
   * webhooks come first, and this finds what they lost. */
  intervalMinutes: 1,
  /** Locally (LOCAL_NOTICES_TIMER on): seconds between runs, so a notice lands within seconds. */
  localIntervalSeconds: 5,
  /** No page is listed, and no held notice or follow-up started, after this many seconds. */
  budgetSeconds: 40,
  /**
   * The function's timeout on the sandbox; on a processor whose calls take longer, the budget, one
   * call at its bound (a page started before the deadline lists at least one account) and the
   * same 12 s margin (noticeBackstopTimeoutSeconds).
   */
  timeoutSeconds: 55,
  /** Notices listed a page at a time; held notices and follow-ups taken a batch at a time. */
  pageSize: 100,
} as const;

/** The backstop's timeout on a stage of `processor` (seconds): its budget and one call, with room. */
export const noticeBackstopTimeoutSeconds = (processor: ProcessorName): number =>
  Math.max(
    NOTICE_BACKSTOP_JOB.timeoutSeconds,
    NOTICE_BACKSTOP_JOB.budgetSeconds + Math.ceil(PROCESSOR_TIMING[processor].callMs / 1000) + 12,
  );

/**
 * The processors' inbound webhook routes (DESIGN section 6, "A real processor: Stripe"): outside
 * the merchants' API (no bearer token: the processor signs each body), on a stage whose processor
 * sends them only. CDK (lib/cdk/processor-events.ts) and the local runtime read it.
 */
export const PROCESSOR_EVENTS = {
  stripe: {
    method: 'POST',
    path: '/processor-events/stripe',
    handler: 'processor-events/stripe',
    /** A larger body is 413, unread (Stripe's events are a few KB). */
    maxBodyBytes: 256 * 1024,
    /**
     * Under API Gateway's 29 s, as every API function, so that the function, not the gateway,
     * answers a slow event (one Stripe call of up to 20 s and its writes): a 504 is a 5xx that
     * Stripe would send again while the function still runs.
     */
    timeoutSeconds: 28,
  },
} as const;
