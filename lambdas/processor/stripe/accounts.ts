/**
 * Which Stripe connected account (Stripe Connect, direct charges) holds each merchant's
 * customers and charges. The merchant registry keeps the mapping (store/processor-accounts.ts
 * writes it; store/merchant-accounts.ts reads it, handed to the adapter by core/processor.ts);
 * tests give a fixed one. A merchant without an account cannot be charged through Stripe.
 */
export interface ConnectedAccounts {
  /** The merchant's account (`acct_...`), or undefined when it has none. */
  accountOf(merchantId: string): Promise<string | undefined>;
  /** Every merchant with an account: what reconciliation and the account updater read. */
  all(): Promise<readonly { merchantId: string; account: string }[]>;
  /**
   * Before a method is vaulted at `account`: marks the merchant as having vaulted there, so that
   * its mapping can no longer change (the registry refuses a remap once the mark exists).
   */
  vaulting?(merchantId: string, account: string): Promise<void>;
  /** After vaulting: whether the merchant's account is still `account` (read afresh). */
  stillMapped?(merchantId: string, account: string): Promise<boolean>;
  /** The way back: the merchant whose account it is (a webhook names the account), if any. */
  merchantOf(account: string): Promise<string | undefined>;
}

/** A fixed mapping (tests). */
export function fixedAccounts(byMerchant: Readonly<Record<string, string>>): ConnectedAccounts {
  const entries = Object.entries(byMerchant).map(([merchantId, account]) => ({ merchantId, account }));
  return {
    accountOf: async (merchantId) => byMerchant[merchantId],
    all: async () => entries,
    merchantOf: async (account) => entries.find((e) => e.account === account)?.merchantId,
  };
}
