/**
 * Card numbers where they do not belong (issue 22, item 4; PCI DSS 3): the check behind the
 * schemas' `noCardNumber` keyword, which the precompiled validators (lambdas/generated/validators.ts)
 * call on every free-text field (customerAccountId, customerData, customAttributes, orderId,
 * descriptions, fees' names, ...). Free text is stored, used as a key, echoed in responses, and
 * reaches e-mails, reports and logs; a full card number (PAN) must reach none of them.
 *
 * A PAN is 13 to 19 digits that pass the Luhn check. It is looked for as written by people: a run
 * of digits, possibly in groups separated by one space or one hyphen (`4012 8888 8888 1881`,
 * `4012-8888-8888-1881`). A run of 13-19 digits that fails the Luhn check (an order number, most
 * long references) passes, as do shorter runs: a phone number is at most 15 digits by E.164 and
 * most have 12 or fewer with the country code. A rare 13-15 digit reference or phone number that
 * happens to pass the Luhn check (one in ten do) is refused too: the caller writes it with other
 * separators (parentheses, dots) or splits it. A run longer than 19 digits is no PAN
 * (docs/decisions.md "Card numbers in free text").
 */

import type { ErrorObject } from 'ajv';

/** Runs of digits, the digits of a run possibly separated by one space or one hyphen. */
const DIGIT_RUNS = /\d(?:[ -]?\d)*/g;

/** Whether `digits` (only digits) pass the Luhn check. */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Whether `text` holds a run of 13-19 digits (groups as written allowed) that passes the Luhn check. */
export function containsCardNumber(text: string): boolean {
  // Cheap first: fewer than 13 digits in all cannot hold one.
  let count = 0;
  for (let i = 0; i < text.length && count < 13; i++)
    if (text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) count++;
  if (count < 13) return false;
  for (const [run] of text.matchAll(DIGIT_RUNS)) {
    const digits = run.replace(/[ -]/g, '');
    if (digits.length >= 13 && digits.length <= 19 && passesLuhn(digits)) return true;
  }
  return false;
}

/**
 * The `noCardNumber` keyword's refusal, as ajv reports a keyword's (every error kept):
 * `errors` with it added (the generated validators call this where a field holds a card number).
 */
export function cardNumberRefused(
  errors: ErrorObject[] | null,
  instancePath: string,
  schemaPath: string,
): ErrorObject[] {
  // No parentSchema or data (the refusal's words are the keyword's, shared/validation.ts): the
  // card number is not carried further than the check.
  const error: ErrorObject = {
    instancePath,
    schemaPath,
    keyword: 'noCardNumber',
    params: {},
    message: 'must not contain a card number',
    schema: true,
  };
  if (errors === null) return [error];
  errors.push(error);
  return errors;
}
