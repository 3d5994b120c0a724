/**
 * What the Stripe adapter can do, known before its module (and Stripe's large package) is loaded:
 * processor/index.ts answers them for the adapter it loads on first use, stripe-processor.ts
 * declares them. One place, so that the two cannot disagree.
 */
import type { PaymentProcessor } from '#processor/processor';

export const STRIPE_TRAITS: Pick<PaymentProcessor, 'voidsBankDebits' | 'voidIsRefund'> = {
  /** A submitted ACH debit cannot be cancelled at Stripe: only refunded once it succeeded. */
  voidsBankDebits: false,
  /** The service's void is a Stripe refund of a captured charge: a cardholder can still dispute it. */
  voidIsRefund: true,
};
