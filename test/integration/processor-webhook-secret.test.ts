/**
 * The processor's webhook signing secret as operators roll it: the Stripe adapter on its stand-in,
 * the secret in a file (as PROCESSOR_WEBHOOK_SECRET names it; Secrets Manager in the cloud), and
 * webhooks signed by the `stripe` package's own test signer.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { useProcessor } from '#processor/index';
import { receiveProcessorWebhook } from '#core/processor-webhooks';
import { reloadConfigForTests } from '#shared/config';
import { useClock } from '#shared/clock';
import { BadRequestError } from '#shared/errors';
import { useTestClock, type TestClock } from '#support/clock';
import { stripeOnStandIn, type StripeOnStandIn } from '#support/stripe-stand-in';

const FIRST = 'whsec_first0123456789abcdefghijklmn';
const ROLLED = 'whsec_rolled0123456789abcdefghijklm';
const AGAIN = 'whsec_again0123456789abcdefghijklmno';
let env: StripeOnStandIn;
let file: string;
let clock: TestClock;

beforeAll(async () => {
  clock = useTestClock('2031-09-01T12:00:00.000Z');
  env = await stripeOnStandIn();
  useProcessor(env.processor);
  file = join(mkdtempSync(join(tmpdir(), 'webhook-secret-')), 'secret');
  writeFileSync(file, FIRST);
  process.env.PROCESSOR_WEBHOOK_SECRET = `file:${file}`;
  reloadConfigForTests();
});
afterAll(async () => {
  useProcessor(undefined);
  useClock(undefined);
  delete process.env.PROCESSOR_WEBHOOK_SECRET;
  reloadConfigForTests();
  await env.close();
});

let events = 0;
/** A test-mode event of an account that is none of the service's, signed with `secret` now. */
function signedWith(secret: string) {
  const timestamp = Math.floor(clock.nowMs() / 1000);
  const body = JSON.stringify({
    id: `evt_secret${++events}`,
    object: 'event',
    type: 'charge.succeeded',
    api_version: '2024-06-20',
    account: 'acct_1NotTheService',
    created: timestamp,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    data: { object: { id: 'ch_1', object: 'charge' } },
  });
  return {
    body,
    headers: {
      'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp }),
    },
  };
}

const receive = (secret: string) => receiveProcessorWebhook(signedWith(secret), clock.now());

test(
  'Defect: a rolled webhook signing secret was refused by every warm container until it ended (each ' +
    'had read the old secret once): Stripe was answered 400 for hours',
  async () => {
    expect(await receive(FIRST)).toMatchObject({ received: true, ignored: 'unknown_account' });
    writeFileSync(file, ROLLED);
    clock.advance(61_000);
    // Signed with the rolled secret: read again and verified.
    expect(await receive(ROLLED)).toMatchObject({ received: true, ignored: 'unknown_account' });
    // The old one no longer verifies.
    await expect(receive(FIRST)).rejects.toBeInstanceOf(BadRequestError);
  },
);

test('a refused signature reads the secret again at most once a minute (a flood of forged webhooks costs one read)', async () => {
  writeFileSync(file, AGAIN);
  clock.advance(61_000);
  // A forged webhook: the secret is read again (now AGAIN), and the forgery is still refused.
  await expect(receive('whsec_forged0123456789abcdefghijklm')).rejects.toBeInstanceOf(BadRequestError);
  expect(await receive(AGAIN)).toMatchObject({ received: true });
  writeFileSync(file, ROLLED);
  // Within the minute the secret in memory stands: a webhook signed with the newer one waits for
  // Stripe's next try, a minute on.
  await expect(receive(ROLLED)).rejects.toBeInstanceOf(BadRequestError);
  clock.advance(61_000);
  expect(await receive(ROLLED)).toMatchObject({ received: true });
});
