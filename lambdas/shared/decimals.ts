/**
 * Decimal places of a number as written: the check behind the schemas' `maxDecimals` keyword
 * (money: 2), which the precompiled validators (lambdas/generated/validators.ts) call, and the
 * rule of domain/money.ts.
 */

/**
 * Decimal places of the number's shortest round-trip form (what JSON.stringify writes):
 * `0.30000000000000004` has 17, `19.99` has 2, `1e-7` has 7. One rule for every number
 * (docs/decisions.md "Decimals"): a request's number is taken as written, never rounded.
 */
function decimalsOf(value: number): number {
  const [mantissa = '', exponent = '0'] = String(Math.abs(value)).split('e');
  const fraction = mantissa.split('.')[1] ?? '';
  return Math.max(0, fraction.length - Number(exponent));
}

/**
 * `value` has at most `decimals` decimal places (decimalsOf) and is a safe integer or, scaled by
 * them, still one (so cents convert exactly).
 */
export function hasAtMostDecimals(value: number, decimals: number): boolean {
  return (
    Number.isFinite(value) &&
    decimalsOf(value) <= decimals &&
    (Number.isSafeInteger(value) || Number.isSafeInteger(Math.round(value * 10 ** decimals)))
  );
}
