/**
 * Which Stripe connected account (Stripe Connect, direct charges) holds each merchant's
 * customers and charges. The merchant registry keeps the mapping in the cloud; the local runtime
 * and the tests give a fixed one. A merchant without an account cannot be charged through Stripe.
 */
export interface ConnectedAccounts {
  /** The merchant's account (`acct_...`), or undefined when it has none. */
  accountOf(merchantId: string): Promise<string | undefined>;
  /** Every merchant with an account: what reconciliation and the account updater read. */
  all(): Promise<readonly { merchantId: string; account: string }[]>;
}

/** A fixed mapping (local runtime, tests). */
export function fixedAccounts(byMerchant: Readonly<Record<string, string>>): ConnectedAccounts {
  const entries = Object.entries(byMerchant).map(([merchantId, account]) => ({ merchantId, account }));
  return {
    accountOf: async (merchantId) => byMerchant[merchantId],
    all: async () => entries,
  };
}
