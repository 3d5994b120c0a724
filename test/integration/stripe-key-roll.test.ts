/**
 * The Stripe secret key as operators roll it: the adapter as a function's configuration makes it
 * (PROCESSOR=stripe, the key in a file as STRIPE_SECRET_KEY names it; Secrets Manager in the
 * cloud), on the stand-in, which refuses the old key once it is rolled, as Stripe does.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProcessorUnavailableError, type PaymentProcessor } from '#processor/processor';
import { configuredProcessor, RELOAD_AFTER_REFUSAL_MS, useProcessor } from '#processor/index';
import { fixedAccounts } from '#processor/stripe/accounts';
import { reloadConfigForTests } from '#shared/config';
import { useClock } from '#shared/clock';
import { useTestClock, type TestClock } from '#support/clock';
import {
  ACCOUNT,
  cardOf,
  MERCHANT,
  STAND_IN_KEY,
  stripeOnStandIn,
  type StripeOnStandIn,
} from '#support/stripe-stand-in';

const ROLLED = 'sk_test_rolled0123456789abcdefSECRET';
const VARIABLES = ['PROCESSOR', 'STRIPE_SECRET_KEY', 'STRIPE_MODE', 'STRIPE_API'] as const;
const saved = Object.fromEntries(VARIABLES.map((v) => [v, process.env[v]]));
let env: StripeOnStandIn;
let file: string;
let clock: TestClock;
let processor: PaymentProcessor;

beforeAll(async () => {
  clock = useTestClock('2031-09-01T12:00:00.000Z');
  env = await stripeOnStandIn();
  file = join(mkdtempSync(join(tmpdir(), 'stripe-key-')), 'secret');
  writeFileSync(file, STAND_IN_KEY);
  Object.assign(process.env, {
    PROCESSOR: 'stripe',
    STRIPE_SECRET_KEY: `file:${file}`,
    STRIPE_MODE: 'test',
    STRIPE_API: `http://${env.standIn.host}:${env.standIn.port}`,
  });
  reloadConfigForTests();
  useProcessor(undefined);
  processor = configuredProcessor({ merchantAccounts: () => fixedAccounts({ [MERCHANT]: ACCOUNT }) });
});
afterAll(async () => {
  useProcessor(undefined);
  useClock(undefined);
  for (const v of VARIABLES) {
    if (saved[v] === undefined) delete process.env[v];
    else process.env[v] = saved[v];
  }
  reloadConfigForTests();
  await env.close();
});

/** What a card's tokenization came to: vaulted, or why the processor was unavailable. */
async function tokenizing(): Promise<string> {
  try {
    const { token } = await processor.tokenize(cardOf('4242424242424242'));
    return token === '' ? 'no token' : 'vaulted';
  } catch (error) {
    if (!(error instanceof ProcessorUnavailableError)) throw error;
    return error.credentialsRefused ? 'key refused' : `unavailable: ${error.message}`;
  }
}

test('defect: the Stripe secret key was read once per function instance: after an operator rolled it, every warm instance was refused until it was replaced', async () => {
  expect(await tokenizing()).toBe('vaulted');
  clock.advance(10 * 60_000);
  // Rolled at Stripe: the key in memory is refused (a 401: nothing done, "processor unavailable").
  env.standIn.rollKey(ROLLED);
  expect(await tokenizing()).toBe('key refused');
  // The next call reads the secret again: not updated yet, so the old key, refused again.
  expect(await tokenizing()).toBe('key refused');
  // Updated now, but read at most once a minute: within the minute the key in memory is used.
  writeFileSync(file, ROLLED);
  clock.advance(RELOAD_AFTER_REFUSAL_MS - 1000);
  expect(await tokenizing()).toBe('key refused');
  // A minute after the last read: read again, the rolled key taken, and Stripe answers.
  clock.advance(1000);
  expect(await tokenizing()).toBe('vaulted');
  expect(await tokenizing()).toBe('vaulted');
});
