/**
 * Stripe's webhooks (`POST /processor-events/stripe`): the `Stripe-Signature` header checked by
 * the `stripe` package's verifier over the raw body, 300 seconds of tolerance on the service's
 * clock, before anything of the body is read; then its mode (an event of the other mode is
 * refused) and its connected account (one the registry does not know is ignored); then the same
 * mapping as the backstop's listing (notices.ts). Neither the secret nor the body reaches an
 * error or a log.
 */
import Stripe from 'stripe';
import { ProcessorUnavailableError, type WebhookReading, type WebhookRequest } from '#processor/processor';
import { intentReader, noticeOfEvent } from './notices';

/** How old a signature may be (Stripe's own default). */
const TOLERANCE_SECONDS = 300;

interface StripeWebhookDeps {
  stripe: Stripe;
  /** Whether the stage takes live-mode events (a live key) or test-mode ones. */
  live: boolean;
  /** The merchant of a connected account, or undefined when it is none of the service's. */
  merchantOf: (account: string) => Promise<string | undefined>;
  now: () => number;
}

export async function readStripeWebhook(
  deps: StripeWebhookDeps,
  request: WebhookRequest,
): Promise<WebhookReading> {
  const signature = request.headers['stripe-signature'];
  if (signature === undefined || signature === '')
    return { verified: false, why: 'the Stripe-Signature header is missing' };
  const verify = (secret: string): Stripe.Event =>
    deps.stripe.webhooks.constructEvent(
      request.body,
      signature,
      secret,
      TOLERANCE_SECONDS,
      undefined,
      deps.now(),
    );
  let event: Stripe.Event;
  try {
    const secret = await request.signingSecret();
    try {
      event = verify(secret);
    } catch (error) {
      // Refused: the secret may have been rolled since it was read. Verified again with the
      // secret read anew, when it differs (the route reads it again at most once a minute).
      const again = await request.signingSecret(true);
      if (again === secret) throw error;
      event = verify(again);
    }
  } catch (error) {
    if (error instanceof ProcessorUnavailableError) throw error;
    // The verifier's own words (no secret in them): a bad signature, an old timestamp, not JSON.
    const why =
      error instanceof Stripe.errors.StripeSignatureVerificationError ? error.message : 'unreadable';
    return { verified: false, why: `the Stripe-Signature header does not verify: ${why}` };
  }
  if (event.livemode !== deps.live)
    return {
      verified: false,
      why: `a ${event.livemode ? 'live' : 'test'}-mode event on a ${deps.live ? 'live' : 'test'}-mode stage`,
    };
  const account = event.account;
  const merchantId = account === undefined ? undefined : await deps.merchantOf(account);
  if (account === undefined || merchantId === undefined)
    return { verified: true, notices: [], ignored: 'unknown_account' };
  const notice = await noticeOfEvent(event, merchantId, account, intentReader(deps.stripe));
  return notice
    ? { verified: true, notices: [notice] }
    : { verified: true, notices: [], ignored: 'not_a_notice' };
}
