/**
 * Money is integer cents inside the service. JSON carries amounts as numbers with at most two
 * decimals (validated by the schemas: multipleOf 0.01); conversion happens only at the edges.
 */
import { hasAtMostDecimals } from '#shared/decimals';

export type Cents = number;

/** Largest single amount the service accepts (docs/product.md#money). */
export const MAX_AMOUNT = 999_999.99;

/**
 * True when `amount` is a whole number of cents: its shortest JSON form has at most 2 decimals.
 */
export function isWholeCents(amount: number): boolean {
  return hasAtMostDecimals(amount, 2);
}

/**
 * An amount in cents. Request amounts were checked by the schema (hasAtMostDecimals); this is a
 * conversion, so it tolerates one rounding step of binary floating point (|amount * 100| *
 * EPSILON: 19.99 * 100 is 1998.9999999999998), never a third decimal.
 */
export function toCents(amount: number): Cents {
  const scaled = amount * 100;
  const cents = Math.round(scaled);
  if (!Number.isSafeInteger(cents) || Math.abs(cents - scaled) > Math.abs(scaled) * Number.EPSILON)
    throw new RangeError(`amount ${amount} has more than two decimals`);
  return cents;
}

export const fromCents = (cents: Cents): number => cents / 100;

/** `d.dd` for people (e-mails, messages). */
export const formatCents = (cents: Cents): string =>
  `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;
