/**
 * Money is integer cents inside the service. JSON carries amounts as numbers with at most two
 * decimals (validated by the schemas: multipleOf 0.01); conversion happens only at the edges.
 */
export type Cents = number;

/** Largest single amount the service accepts (docs/product.md#money). */
export const MAX_AMOUNT = 999_999.99;

/**
 * True when `amount` is a whole number of cents. The tolerance is one rounding step of the
 * product (|amount * 100| * EPSILON): wide enough for binary floating point (19.99 * 100 is
 * 1998.9999999999998; every cent value up to 999999.99 passes), too narrow for any third decimal.
 */
export function isWholeCents(amount: number): boolean {
  return hasAtMostDecimals(amount, 2);
}

/** `value` has at most `decimals` decimal places (same tolerance as isWholeCents). */
export function hasAtMostDecimals(value: number, decimals: number): boolean {
  if (!Number.isFinite(value)) return false;
  if (Number.isSafeInteger(value)) return true;
  const scaled = value * 10 ** decimals;
  const cents = Math.round(scaled);
  return Number.isSafeInteger(cents) && Math.abs(cents - scaled) <= Math.abs(scaled) * Number.EPSILON;
}

export function toCents(amount: number): Cents {
  if (!isWholeCents(amount)) throw new RangeError(`amount ${amount} has more than two decimals`);
  return Math.round(amount * 100);
}

export const fromCents = (cents: Cents): number => cents / 100;

/** `d.dd` for people (e-mails, messages). */
export const formatCents = (cents: Cents): string =>
  `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;
