/**
 * Account-number rules: Luhn, card brand, ABA routing checksum, masking and expiry. The full
 * number exists only in the request being handled; it is handed to the processor to tokenize
 * and never stored, logged or returned.
 */
import { BadRequestError } from '#shared/errors';

export type CardType = 'VISA' | 'MASTERCARD' | 'AMEX' | 'DISCOVER';
export type AccountType = CardType | 'CHECKING';
const CARD_TYPES: readonly CardType[] = ['VISA', 'MASTERCARD', 'AMEX', 'DISCOVER'];
export const isCard = (type: AccountType): type is CardType => type !== 'CHECKING';

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/** The brand a card number belongs to by its issuer prefix and length, if one we accept. */
export function cardTypeOf(number: string): CardType | undefined {
  const len = number.length;
  if (/^4/.test(number) && [13, 16, 19].includes(len)) return 'VISA';
  if (/^(5[1-5]|222[1-9]|22[3-9]\d|2[3-6]\d\d|27[01]\d|2720)/.test(number) && len === 16) return 'MASTERCARD';
  if (/^3[47]/.test(number) && len === 15) return 'AMEX';
  if (
    /^(6011|65|64[4-9]|622(12[6-9]|1[3-9]\d|[2-8]\d\d|9[01]\d|92[0-5]))/.test(number) &&
    len >= 16 &&
    len <= 19
  ) {
    return 'DISCOVER';
  }
  return undefined;
}

/** Checks a card number (12-19 digits, Luhn, a known brand matching `declared`); 400 otherwise. */
export function assertCardNumber(number: string, declared: CardType): void {
  // Messages never echo the number.
  if (!/^\d{12,19}$/.test(number)) throw new BadRequestError('cardNumber must be 12-19 digits');
  if (!luhnValid(number)) throw new BadRequestError('cardNumber is not a valid card number (check digit)');
  const type = cardTypeOf(number);
  if (!type)
    throw new BadRequestError(`cardNumber is not a card of a supported type (${CARD_TYPES.join(', ')})`);
  if (type !== declared)
    throw new BadRequestError(
      `cardNumber is ${type === 'AMEX' ? 'an' : 'a'} ${type} card but accountType is ${declared}`,
    );
}

/** ABA routing number: 9 digits with the 3-7-1 weighted checksum. */
export function abaValid(routing: string): boolean {
  if (!/^\d{9}$/.test(routing) || /^0+$/.test(routing)) return false;
  const d = [...routing].map(Number);
  const sum = 3 * (d[0]! + d[3]! + d[6]!) + 7 * (d[1]! + d[4]! + d[7]!) + (d[2]! + d[5]! + d[8]!);
  return sum % 10 === 0;
}

export function assertBankAccount(routingNumber: string, accountNumber: string): void {
  if (!abaValid(routingNumber)) throw new BadRequestError('routingNumber is not a valid ABA routing number');
  // At least 5 digits: the masked form shows the last four and must hide something.
  if (!/^\d{5,17}$/.test(accountNumber)) throw new BadRequestError('accountNumber must be 5-17 digits');
}

/** All but the last four digits masked: `************1111`. */
export const maskNumber = (number: string): string =>
  '*'.repeat(Math.max(0, number.length - 4)) + number.slice(-4);

/** A card expires at the end of its expiry month (UTC). */
export function assertNotExpired(month: number, year: number, now: Date): void {
  const current = now.getUTCFullYear() * 12 + now.getUTCMonth();
  if (year * 12 + (month - 1) < current) {
    throw new BadRequestError(`expiry ${String(month).padStart(2, '0')}/${year} is in the past`);
  }
}
