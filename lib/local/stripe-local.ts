/**
 * `PROCESSOR=stripe npm start`: the local runtime on the Stripe stand-in (lib/local/stripe/), with
 * nothing else to set. The stand-in listens on a free loopback port with the seeded merchants'
 * connected accounts; the functions get its address (STRIPE_API), a test-mode key written to the
 * data directory (STRIPE_SECRET_KEY=file:…) and STRIPE_MODE=test; each seeded merchant is mapped
 * to its account in the registry (both MID forms), as an operator maps a real one.
 *
 * The stand-in keeps its objects in memory: a restart forgets the customers and methods vaulted
 * before (their methods then decline), so a Stripe runtime is best started on a fresh data
 * directory (DATA_DIR, or DYNAMODB_IN_MEMORY=true).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ProcessorAccounts } from '../../lambdas/store/processor-accounts';
import { localMerchants } from './identities';
import { startStripeStandIn, type StripeStandIn } from './stripe/server';
import { PROCESSOR_EVENTS } from '../../contract/notices';

/** The stand-in's key: a test-mode key by its prefix, which the stand-in alone accepts. */
const LOCAL_STRIPE_KEY = 'sk_test_local0stand0in0key0not0a0real0key';
/**
 * How long a bank debit stays `processing` at the local stand-in before its outcome (Stripe's test
 * mode: moments; Stripe's live mode: days): LOCAL_STRIPE_DEBIT_SECONDS, 10 by default, so that a
 * tester sees a test account's return arrive by webhook.
 */
const LOCAL_DEBIT_SECONDS = 10;
/** The signing secret of the runtime's webhook endpoint, which the stand-in signs its events with. */
const LOCAL_WEBHOOK_SECRET = 'whsec_local0stand0in0webhook0secret';

/** Each seeded merchant's connected account at the stand-in (fixed: tools and tests name them). */
export const localStripeAccounts: Readonly<Record<string, string>> = {
  '32350000001': 'acct_1LocalSpringfield',
  '32350000002': 'acct_1LocalShelbyville',
  '41000000001': 'acct_1LocalCapitalCity',
};

export interface LocalStripe {
  /** The stand-in's address (`http://127.0.0.1:<port>`). */
  readonly url: string;
  readonly standIn: StripeStandIn;
  stop(): Promise<void>;
}

/**
 * Starts the stand-in and sets the functions' Stripe variables in this process (before any
 * handler is loaded); maps the seeded merchants once the table exists (`mapMerchants`). The
 * stand-in sends its events, signed, to the runtime's `POST /processor-events/stripe` on `apiPort`.
 */
export async function startLocalStripe(dataDir: string, apiPort: number): Promise<LocalStripe> {
  const standIn = await startStripeStandIn({
    secretKey: LOCAL_STRIPE_KEY,
    accounts: Object.values(localStripeAccounts),
    debitSettlesAfterSeconds: Number(process.env.LOCAL_STRIPE_DEBIT_SECONDS ?? LOCAL_DEBIT_SECONDS),
    webhook: {
      url: `http://127.0.0.1:${apiPort}${PROCESSOR_EVENTS.stripe.path}`,
      secret: LOCAL_WEBHOOK_SECRET,
    },
  });
  const keyFile = join(dataDir, 'stripe-secret-key');
  writeFileSync(keyFile, LOCAL_STRIPE_KEY, { mode: 0o600 });
  const webhookSecretFile = join(dataDir, 'stripe-webhook-secret');
  writeFileSync(webhookSecretFile, LOCAL_WEBHOOK_SECRET, { mode: 0o600 });
  const url = `${standIn.protocol}://${standIn.host}:${standIn.port}`;
  Object.assign(process.env, {
    STRIPE_MODE: 'test',
    STRIPE_API: url,
    STRIPE_SECRET_KEY: `file:${keyFile}`,
    PROCESSOR_WEBHOOK_SECRET: `file:${webhookSecretFile}`,
  });
  // The debits due settle (and their events go out) within a second, not at the next call.
  const ticking = setInterval(() => {
    standIn.tick().catch((error: unknown) => console.error('stripe stand-in: tick failed', error));
  }, 1000);
  ticking.unref();
  return {
    url,
    standIn,
    stop: () => {
      clearInterval(ticking);
      return standIn.close();
    },
  };
}

/** Maps every seeded merchant to its stand-in account (mapping again changes nothing). */
export async function mapLocalMerchants(db: DynamoDBDocumentClient, tableName: string): Promise<void> {
  const accounts = new ProcessorAccounts(db, tableName);
  for (const merchant of localMerchants) {
    const account = localStripeAccounts[merchant.merchantId];
    if (account !== undefined) await accounts.map(merchant.merchantId, 'stripe', account, 'npm start (seed)');
  }
}
