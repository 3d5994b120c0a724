/**
 * Card numbers where they do not belong (PCI DSS 3; docs/decisions.md "Card numbers in free
 * text"): the one detector behind the schemas' `noCardNumber` keyword, which the precompiled
 * validators (lambdas/generated/validators.ts) call on every free-text value and key, e-mail
 * address, webhook URL and idempotency key, and behind the redaction of error messages and log
 * records. Free text is stored, used as a key, echoed in responses, and reaches e-mails, webhooks,
 * reports and logs; a full card number (PAN) must reach none of them.
 *
 * A card number is a run of 13 to 19 digits that starts with a card brand's prefix and passes the
 * Luhn check, as people write it: in groups separated by any spaces or dashes (any Unicode space,
 * tab or line break, hyphen, en or em dash, minus sign, or an invisible joiner or soft hyphen, one
 * or several), in any script's decimal digits (full-width `４１１１` too), percent-encoded in a
 * URL (`4111%201111...`, `+` between digits as a space), or in an e-mail address's local part,
 * whose dots, underscores and plus signs separate groups too. A run is split only where its
 * groups are: a card number is whole groups of it (`Qty 2 4111 1111 1111 1111 12/30` holds one),
 * and digits glued to digits are one number (20 or more of them are no card number). The brand
 * prefix keeps random 13-19 digit references out (one in ten passes the Luhn check alone), so an
 * order number starting with 0, 1, 7, 8 or 9 is never one; the first 15 digits of a run right
 * after a plus sign are a phone number in international form (E.164), never a card number, but
 * for the lengths and prefixes of Amex and Diners numbers no country's phones have; and a UUID is
 * an id, whatever its digits.
 */

import type { ErrorObject } from 'ajv';

/** What a redacted card number reads as (error messages, log records). */
const CARD_NUMBER_MASK = '[card number]';

const MIN_DIGITS = 13;
const MAX_DIGITS = 19;
const E164_DIGITS = 15;

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

/**
 * A card brand's prefix, at `lastIndex`: Visa 4; Mastercard 51-55, 2221-2720; Amex 34, 37;
 * Discover 6011, 644-649, 65; JCB 3528-3589; Diners 300-305, 36, 38, 39; UnionPay 62.
 */
const BRAND_PREFIX =
  /4|5[1-5]|2(22[1-9]|2[3-9]\d|[3-6]\d\d|7[01]\d|720)|3[46-9]|30[0-5]|35(2[89]|[3-8]\d)|6(011|4[4-9]|5|2)/y;

/**
 * A card number's shape that no phone number in international form has: an Amex number (15 digits
 * from 34 or 37: Spain's numbers have 11 digits, those of +370 to +379 at most 13) or a Diners
 * one (14 digits from 300-305, 36, 38 or 39: Greece's have 12, Hungary's at most 11, those of +380
 * to +389 at most 12, Italy's at most 13).
 */
const noPhoneShaped = (digits: string, from: number, to: number): boolean => {
  if (digits[from] !== '3') return false;
  const second = digits[from + 1]!;
  if (to - from === 15) return second === '4' || second === '7';
  if (to - from !== 14) return false;
  return second === '6' || second === '8' || second === '9' || (second === '0' && digits[from + 2]! <= '5');
};

/**
 * A UUID (8-4-4-4-12 hexadecimal digits), in any letter case, standing on its own: a run glued to
 * more hexadecimal digits is no UUID (a card number's last eight digits and `-xxxx-xxxx-xxxx-…`
 * after them, or `…-xxxx-` and its first twelve, are a card number beside other text).
 */
const UUID = /(?<![0-9a-f])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9a-f])/gi;

const OTHER = -1;
const SEPARATOR = -2;

/**
 * Spaces and dashes beyond ASCII: White_Space, dash punctuation, the minus signs (U+2212, the
 * superscript and subscript minus, the heavy minus, the modifier letter minus); what shows as
 * blank: the Hangul fillers and the blank Braille pattern; and what shows as nothing between two
 * digits: every format character (invisible joiners, direction marks and isolates, the soft
 * hyphen) and every combining mark (variation selectors included).
 */
const WIDE_SEPARATOR =
  /^[\s\p{Pd}\u2212\u207b\u208b\u2796\u02d7\u115f\u1160\u3164\uffa0\u2800\p{Cf}\p{M}\u180e]$/u;
const DECIMAL_DIGIT = /^\p{Nd}$/u;
const wide = new Map<number, number>();

/** A non-ASCII code point's kind: its digit value, SEPARATOR or OTHER (computed once each). */
function wideKind(code: number): number {
  let kind = wide.get(code);
  if (kind !== undefined) return kind;
  const char = String.fromCodePoint(code);
  if (DECIMAL_DIGIT.test(char)) {
    // Unicode assigns decimal digits in whole blocks of ten, 0 to 9: the value is the distance
    // from the first digit of the contiguous blocks, modulo ten.
    let first = code;
    while (DECIMAL_DIGIT.test(String.fromCodePoint(first - 1))) first--;
    kind = (code - first) % 10;
  } else kind = WIDE_SEPARATOR.test(char) ? SEPARATOR : OTHER;
  if (wide.size < 10_000) wide.set(code, kind);
  return kind;
}

/** A code point's kind: 0-9 for a digit, SEPARATOR, or OTHER. */
function kindOf(code: number): number {
  if (code < 128) {
    if (code >= 48 && code <= 57) return code - 48;
    // space, hyphen-minus, and tab, LF, VT, FF, CR
    return code === 32 || code === 45 || (code >= 9 && code <= 13) ? SEPARATOR : OTHER;
  }
  return wideKind(code);
}

/** A card number found: `[start, end)` in UTF-16 units, from its first digit to its last. */
interface Span {
  start: number;
  end: number;
}

/**
 * The card numbers of `text` (at most one, with `first`), each made of whole groups of a run of
 * digits groups; after a find, the search goes on after it.
 */
function scan(written: string, first: boolean): Span[] {
  // A UUID is an id whose digit groups can line up as a card number's (one random id in some
  // thousands): it is read as one word, the same length, so that spans still index `written`.
  const text = written.includes('-') ? written.replace(UUID, (id) => '_'.repeat(id.length)) : written;
  const found: Span[] = [];
  let digits = ''; // the run's digits, in ASCII
  const starts: number[] = []; // UTF-16 index of each digit
  const ends: number[] = []; // just after each digit
  const groups: number[] = []; // index in `digits` where each group begins
  let afterSeparator = false;
  let plusLed = false; // the run follows a plus sign: a phone number in international form
  let previous = 0;

  const flush = (): void => {
    groups.push(digits.length); // the end of the last group
    for (let g = 0; g + 1 < groups.length && !(first && found.length > 0); g++) {
      const from = groups[g]!;
      BRAND_PREFIX.lastIndex = from;
      if (!BRAND_PREFIX.test(digits)) continue;
      for (let h = g + 1; h < groups.length; h++) {
        const to = groups[h]!;
        if (to - from > MAX_DIGITS) break;
        // E.164: a phone number has at most 15 digits, its country code's among them; none has
        // an Amex or a Diners number's shape.
        const phone = g === 0 && plusLed && to - from <= E164_DIGITS && !noPhoneShaped(digits, from, to);
        if (to - from < MIN_DIGITS || phone) continue;
        if (!passesLuhn(digits.slice(from, to))) continue;
        found.push({ start: starts[from]!, end: ends[to - 1]! });
        g = h - 1; // on after this one
        break;
      }
    }
    digits = '';
    starts.length = ends.length = groups.length = 0;
  };

  for (let i = 0; i < text.length && !(first && found.length > 0);) {
    const code = text.codePointAt(i)!;
    const width = code > 0xffff ? 2 : 1;
    const kind = kindOf(code);
    if (kind >= 0) {
      if (digits === '') plusLed = previous === 0x2b || previous === 0xff0b;
      if (digits === '' || afterSeparator) groups.push(digits.length);
      digits += kind;
      starts.push(i);
      ends.push(i + width);
      afterSeparator = false;
    } else if (kind === SEPARATOR) {
      afterSeparator = digits !== '';
    } else if (digits !== '') {
      flush();
    }
    previous = code;
    i += width;
  }
  if (digits !== '') flush();
  return found;
}

/** Cheap first: fewer than 13 characters that can be digits cannot hold a card number. */
function mayHoldOne(text: string): boolean {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // An ASCII digit, or any non-ASCII unit (another script's digit, checked by the scan).
    if ((c >= 48 && c <= 57) || c >= 0x660) if (++count >= MIN_DIGITS) return true;
  }
  return false;
}

/**
 * `%XX` escapes decoded (as UTF-8), and a `+` between digits read as a space, as in a URL's query
 * (a leading `+` stays: it marks a phone number).
 */
function percentDecoded(text: string): string {
  return text
    .replace(/(?<=\p{Nd})\+(?=\p{Nd})/gu, ' ')
    .replace(/(?:%[0-9A-Fa-f]{2})+/g, (escapes) =>
      Buffer.from(escapes.replace(/%/g, ''), 'hex').toString('utf8'),
    );
}

/** E-mail local parts (before an `@`) with their dots, underscores and plus signs as spaces. */
const localPartsSpread = (text: string): string =>
  text.replace(/[\p{L}\p{N}._+\-%]+(?=@)/gu, (local) => local.replace(/[._+]/g, ' '));

/**
 * The readings of `text` a card number may hide in: as written, percent-decoded (twice at most,
 * for a doubly encoded URL), and with e-mail local parts spread into groups.
 */
function readings(text: string): string[] {
  const forms = [text];
  let decoded = text;
  for (let round = 0; round < 2 && /%[0-9A-Fa-f]{2}|\p{Nd}\+\p{Nd}/u.test(decoded); round++) {
    decoded = percentDecoded(decoded);
    forms.push(decoded);
  }
  if (text.includes('@')) forms.push(...forms.map(localPartsSpread));
  return forms;
}

/**
 * Whether a value holds a card number: a string, or a number by its decimal text (the schemas
 * accept numbers JSON and DynamoDB both keep exactly, so that text is the value as sent); any
 * other value holds none.
 */
export function containsCardNumber(value: unknown): boolean {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '';
  if (!mayHoldOne(text)) return false;
  return readings(text).some((form) => mayHoldOne(form) && scan(form, true).length > 0);
}

/** `text` with each card number it holds replaced by CARD_NUMBER_MASK. */
function masked(text: string): string {
  const spans = scan(text, false);
  if (spans.length === 0) return text;
  let out = '';
  let at = 0;
  for (const { start, end } of spans) {
    out += text.slice(at, start) + CARD_NUMBER_MASK;
    at = end;
  }
  return out + text.slice(at);
}

/**
 * `text` without the card numbers it holds, each replaced by CARD_NUMBER_MASK (error messages and
 * log records). A card number found only in another reading (percent-decoded, an e-mail's local
 * part) is masked in that reading, which then stands for the text.
 */
export function redactCardNumbers(text: string): string {
  if (!mayHoldOne(text)) return text;
  let out = masked(text);
  for (let round = 0; round < 3 && containsCardNumber(out); round++) {
    const form = readings(out).find((f) => mayHoldOne(f) && scan(f, true).length > 0)!;
    out = masked(form);
  }
  return out;
}

/**
 * The `noCardNumber` keyword's refusal, as ajv reports a keyword's (every error kept):
 * `errors` with it added (the generated validators call this where a value or key holds a card
 * number). `propertyName` names the key a `propertyNames` check refused (redacted when shown).
 */
export function cardNumberRefused(
  errors: ErrorObject[] | null,
  instancePath: string,
  schemaPath: string,
  propertyName?: string,
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
    ...(propertyName !== undefined && { propertyName }),
  };
  if (errors === null) return [error];
  errors.push(error);
  return errors;
}
