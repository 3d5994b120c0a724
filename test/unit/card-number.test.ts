/** Issue 22, item 4: the check behind the schemas' `noCardNumber` keyword. */
import { containsCardNumber, passesLuhn } from '#shared/card-number';

describe('passesLuhn', () => {
  test.each([
    '4012888888881881',
    '4111111111111111',
    '5555555555554444',
    '378282246310005',
    '6011111111111117',
  ])('a test card number passes: %s', (pan) => expect(passesLuhn(pan)).toBe(true));
  test('a changed digit fails', () => expect(passesLuhn('4012888888881882')).toBe(false));
});

describe('containsCardNumber', () => {
  test.each([
    '4012888888881881',
    'acct 4012888888881881',
    'pan:4012888888881881;',
    '4012 8888 8888 1881',
    '4012-8888-8888-1881',
    '378282246310005', // 15 digits (Amex)
    '4222222222222', // 13 digits
    '6011000990139424 and more',
  ])('finds a Luhn-valid run of 13-19 digits in %j', (text) => expect(containsCardNumber(text)).toBe(true));

  test.each([
    '4012888888881882', // 16 digits, not Luhn-valid
    '1234567890123', // 13 digits, not Luhn-valid
    '+1 (555) 123-4567', // a phone number
    '+44 20 7946 0958',
    '555-0100',
    '401288888888', // 12 digits
    '40128888888818810000', // 20 digits: no PAN
    'order 2024-11-26 #42',
    '4012.8888.8888.1881x'.replace(/\./g, ' / '), // groups apart
    '',
    'no digits at all',
  ])('passes %j', (text) => expect(containsCardNumber(text)).toBe(false));

  test('a long text of digits and spaces is checked in linear time (no backtracking blow-up)', () => {
    const text = '1 '.repeat(5000) + 'x';
    expect(containsCardNumber(text)).toBe(false);
  });
});
