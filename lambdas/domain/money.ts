/**
 * Money is integer cents inside the service. JSON carries amounts as numbers with at most two
 * decimals (validated by the schemas: multipleOf 0.01); conversion happens only at the edges.
 */
export type Cents = number;

/** Largest single amount the service accepts (DESIGN.md 3). */
export const MAX_AMOUNT = 999_999.99;

export function toCents(amount: number): Cents {
  const cents = Math.round(amount * 100);
  if (!Number.isSafeInteger(cents) || Math.abs(cents - amount * 100) > 1e-6) {
    throw new RangeError(`amount ${amount} has more than two decimals`);
  }
  return cents;
}

export const fromCents = (cents: Cents): number => cents / 100;

/** `d.dd` for people (e-mails, messages). */
export const formatCents = (cents: Cents): string =>
  `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;
