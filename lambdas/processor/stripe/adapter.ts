/**
 * The Stripe processor as a function's configuration makes it (PROCESSOR=stripe;
 * lambdas/processor/index.ts loads this module only then): the secret key read once from where
 * STRIPE_SECRET_KEY names it (Secrets Manager in the cloud), checked against the stage's mode
 * (STRIPE_MODE), the merchants' connected accounts as the service hands them (the registry's,
 * through core/processor.ts), the service's cut-offs.
 * Until the key is read nothing is asked of Stripe; a key that cannot be read, or is of the wrong
 * mode, leaves the processor unavailable (never a charge with the wrong key).
 */
import { ProcessorUnavailableError } from '#processor/processor';
import type { FunctionConfig } from '#shared/config';
import { needed } from '#shared/config';
import { readSecretSetting } from '#shared/secret-setting';
import { stripeClient } from './client';
import type { ConnectedAccounts } from './accounts';
import { StripeProcessor } from './stripe-processor';

/** What a key of each mode starts with: a secret key, or a restricted key (docs/operating.md). */
const KEY_PREFIXES = { live: ['sk_live_', 'rk_live_'], test: ['sk_test_', 'rk_test_'] } as const;

/** The address of STRIPE_API (`http://127.0.0.1:<port>`: the local stand-in) as the client takes it. */
function apiOf(address: string): { host: string; port: number; protocol: 'http' | 'https' } {
  const url = new URL(address);
  const protocol = url.protocol === 'https:' ? 'https' : 'http';
  return { host: url.hostname, port: Number(url.port || (protocol === 'https' ? 443 : 80)), protocol };
}

async function load(c: FunctionConfig, accounts: ConnectedAccounts): Promise<StripeProcessor> {
  let secretKey: string;
  try {
    secretKey = await readSecretSetting(needed('stripeSecretKey'), 'STRIPE_SECRET_KEY');
  } catch (error) {
    // The cause says where it failed (an AWS error, a missing file); never the key.
    throw Object.assign(new ProcessorUnavailableError('the Stripe secret key cannot be read'), {
      cause: error,
    });
  }
  if (!KEY_PREFIXES[c.stripeMode].some((prefix) => secretKey.startsWith(prefix)))
    throw new ProcessorUnavailableError(
      `the Stripe secret key is not a ${c.stripeMode}-mode key (STRIPE_MODE=${c.stripeMode})`,
    );
  return new StripeProcessor({
    stripe: stripeClient({
      secretKey,
      ...(c.stripeApi !== undefined && { api: apiOf(c.stripeApi) }),
    }),
    accounts,
    schedule: c.settlement,
    testClock: c.stripeMode === 'test',
    live: c.stripeMode === 'live',
  });
}

/** The Stripe processor of this configuration (its key read, its mode checked). */
export const stripeProcessor = (c: FunctionConfig, accounts: ConnectedAccounts): Promise<StripeProcessor> =>
  load(c, accounts);
