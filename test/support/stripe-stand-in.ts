/**
 * The Stripe adapter on the local stand-in, in-process on a free loopback port: the official
 * `stripe` package talks HTTP to the stand-in exactly as it would to Stripe. The stand-in's clock
 * is the service's (lambdas/shared/clock.ts): a test that moves the service's clock (a TestClock,
 * or Jest's fake Date under the default clock) moves Stripe's with it.
 */
import { startStripeStandIn, type StripeStandIn, type StripeStandInOptions } from '#lib/local/stripe/server';
import type { TokenizeRequest } from '#processor/processor';
import { fixedAccounts } from '#processor/stripe/accounts';
import { stripeClient } from '#processor/stripe/client';
import { StripeProcessor } from '#processor/stripe/stripe-processor';
import { clock } from '#shared/clock';

/** A test secret key: the stand-in refuses any other. */
export const STAND_IN_KEY = 'sk_test_standin0123456789abcdefSECRET';
export const MERCHANT = '32350000001';
export const ACCOUNT = 'acct_1StandInSpringfield';
export const OTHER_MERCHANT = '32350000002';
export const OTHER_ACCOUNT = 'acct_1StandInShelbyville';
/** Hourly cut-offs at :30, as in the cloud. */
const SCHEDULE = { periodSeconds: 3600, offsetSeconds: 1800 };

export interface StripeOnStandIn {
  standIn: StripeStandIn;
  processor: StripeProcessor;
  close(): Promise<void>;
}

export async function stripeOnStandIn(
  options: { timeoutMs?: number; standIn?: Partial<StripeStandInOptions> } = {},
): Promise<StripeOnStandIn> {
  const standIn = await startStripeStandIn({
    secretKey: STAND_IN_KEY,
    accounts: [ACCOUNT, OTHER_ACCOUNT],
    now: () => clock.nowMs(),
    ...options.standIn,
  });
  const stripe = stripeClient({
    secretKey: STAND_IN_KEY,
    api: { host: standIn.host, port: standIn.port, protocol: standIn.protocol },
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
  });
  const processor = new StripeProcessor({
    stripe,
    accounts: fixedAccounts({ [MERCHANT]: ACCOUNT, [OTHER_MERCHANT]: OTHER_ACCOUNT }),
    schedule: SCHEDULE,
  });
  return { standIn, processor, close: () => standIn.close() };
}

let payors = 0;
/** A card to vault for a new payor of MERCHANT (or of the payor given). */
export const cardOf = (number: string, payorId = `payor-${++payors}`): TokenizeRequest => ({
  merchantId: MERCHANT,
  payorId,
  kind: 'card',
  number,
  expiryMonth: 12,
  expiryYear: 2034,
});

/** A checking account with a paper mandate signed today. */
export const bankOf = (
  accountNumber: string,
  payorId = `payor-${++payors}`,
): Extract<TokenizeRequest, { accountNumber: string }> => ({
  merchantId: MERCHANT,
  payorId,
  kind: 'bank',
  routingNumber: '110000000',
  accountNumber,
  accountType: 'CHECKING',
  mandate: { acceptedAt: new Date().toISOString(), method: 'paper' },
});
