/**
 * The token the service keeps for a method vaulted at Stripe: the payor's customer and the
 * PaymentMethod (`cus_…/pm_…`), and for a bank account the mandate that authorizes its debits
 * (`cus_…/pm_…/mandate_…`). A charge needs all of them and no other call: one module builds and
 * reads them. The account updater names a card by the same token (the PaymentMethod keeps its id
 * when Stripe updates the card).
 */
export interface VaultToken {
  customer: string;
  paymentMethod: string;
  mandate?: string;
}

const PATTERN = /^(cus_[A-Za-z0-9]+)\/(pm_[A-Za-z0-9]+)(?:\/(mandate_[A-Za-z0-9]+))?$/;

export const vaultToken = (t: VaultToken): string =>
  [t.customer, t.paymentMethod, ...(t.mandate !== undefined ? [t.mandate] : [])].join('/');

/** The parts of a token, or undefined for one Stripe did not make (a sandbox token, say). */
export function parseVaultToken(token: string): VaultToken | undefined {
  const match = PATTERN.exec(token);
  if (!match) return undefined;
  return {
    customer: match[1]!,
    paymentMethod: match[2]!,
    ...(match[3] !== undefined && { mandate: match[3] }),
  };
}
