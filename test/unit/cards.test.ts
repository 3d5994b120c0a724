import {
  abaValid,
  assertBankAccount,
  assertCardNumber,
  assertNotExpired,
  cardTypeOf,
  isCard,
  luhnValid,
  maskNumber,
  type CardType,
} from '#domain/cards';
import { BadRequestError } from '#shared/errors';
import { messageOf } from '#support/fixtures/index';

describe('luhnValid', () => {
  it.each([
    '4111111111111111',
    '5555555555554444',
    '378282246310005',
    '6011111111111117',
    '4000000000000002',
    '4000000000009987',
    '4000000000000077',
    '4222222222222',
    '79927398713',
    '0',
  ])('%p passes the check', (digits) => {
    expect(luhnValid(digits)).toBe(true);
  });

  it.each(['4111111111111112', '4111111111111121', '5555555555554440', '378282246310006', '79927398710', ''])(
    '%p fails the check',
    (digits) => {
      expect(luhnValid(digits)).toBe(false);
    },
  );

  it('detects every single-digit change of a valid number', () => {
    const valid = '4111111111111111';
    for (let position = 0; position < valid.length; position++) {
      for (let digit = 0; digit <= 9; digit++) {
        if (String(digit) === valid[position]) continue;
        const changed = valid.slice(0, position) + digit + valid.slice(position + 1);
        expect([changed, luhnValid(changed)]).toEqual([changed, false]);
      }
    }
  });

  it('detects a swap of two adjacent different digits', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('1411111111111111')).toBe(false);
  });
});

describe('cardTypeOf', () => {
  it.each([
    ['4000000000006', 'VISA'],
    ['4111111111111111', 'VISA'],
    ['4000000000000000006', 'VISA'],
    ['5100000000000008', 'MASTERCARD'],
    ['5555555555554444', 'MASTERCARD'],
    ['5500000000000004', 'MASTERCARD'],
    ['2221000000000009', 'MASTERCARD'],
    ['2299999999999999', 'MASTERCARD'],
    ['2300000000000000', 'MASTERCARD'],
    ['2699999999999999', 'MASTERCARD'],
    ['2719999999999999', 'MASTERCARD'],
    ['2720000000000005', 'MASTERCARD'],
    ['340000000000009', 'AMEX'],
    ['378282246310005', 'AMEX'],
    ['370000000000002', 'AMEX'],
    ['6011111111111117', 'DISCOVER'],
    ['6011000000000000001', 'DISCOVER'],
    ['6500000000000002', 'DISCOVER'],
    ['6440000000000005', 'DISCOVER'],
    ['6490000000000004', 'DISCOVER'],
    ['6221260000000000', 'DISCOVER'],
    ['6221300000000000', 'DISCOVER'],
    ['6225000000000000', 'DISCOVER'],
    ['6229190000000000', 'DISCOVER'],
    ['6229250000000003', 'DISCOVER'],
  ])('%p is %p', (number, type) => {
    expect(cardTypeOf(number)).toBe(type);
  });

  it.each([
    ['400000000002', 'VISA of 12 digits'],
    ['400000000000006', 'VISA of 15 digits'],
    ['40000000000000000', 'VISA of 17 digits'],
    ['5000000000000000', 'prefix 50'],
    ['5600000000000000', 'prefix 56'],
    ['2220000000000000', 'prefix 2220, below the 2-series'],
    ['2721000000000004', 'prefix 2721, above the 2-series'],
    ['555555555555444', 'MASTERCARD of 15 digits'],
    ['3400000000000000', 'AMEX of 16 digits'],
    ['3530000000000003', 'JCB'],
    ['3000000000000004', 'Diners'],
    ['6430000000000000', 'prefix 643'],
    ['6221250000000000', 'prefix 622125'],
    ['6229260000000000', 'prefix 622926'],
    ['601100000000001', 'DISCOVER of 15 digits'],
    ['60110000000000000000', 'DISCOVER of 20 digits'],
    ['100000000008', 'prefix 1'],
  ])('%p is no supported type (%s)', (number) => {
    expect(cardTypeOf(number)).toBeUndefined();
  });
});

describe('assertCardNumber', () => {
  it.each([
    ['4111111111111111', 'VISA'],
    ['4000000000006', 'VISA'],
    ['4000000000000000006', 'VISA'],
    ['5555555555554444', 'MASTERCARD'],
    ['2221000000000009', 'MASTERCARD'],
    ['378282246310005', 'AMEX'],
    ['6011111111111117', 'DISCOVER'],
    ['6221260000000000', 'DISCOVER'],
  ] as const)('accepts %p as %p', (number, type) => {
    expect(() => assertCardNumber(number, type)).not.toThrow();
  });

  it.each<[string, CardType, string]>([
    ['41111111111', 'VISA', 'cardNumber must be 12-19 digits'],
    ['41111111111111111111', 'VISA', 'cardNumber must be 12-19 digits'],
    ['4111 1111 1111 1111', 'VISA', 'cardNumber must be 12-19 digits'],
    ['4111-1111-1111-1111', 'VISA', 'cardNumber must be 12-19 digits'],
    ['411111111111111a', 'VISA', 'cardNumber must be 12-19 digits'],
    ['', 'VISA', 'cardNumber must be 12-19 digits'],
    ['4111111111111112', 'VISA', 'cardNumber is not a valid card number (check digit)'],
    ['5555555555554445', 'MASTERCARD', 'cardNumber is not a valid card number (check digit)'],
    [
      '3530000000000003',
      'VISA',
      'cardNumber is not a card of a supported type (VISA, MASTERCARD, AMEX, DISCOVER)',
    ],
    [
      '400000000002',
      'VISA',
      'cardNumber is not a card of a supported type (VISA, MASTERCARD, AMEX, DISCOVER)',
    ],
    ['4111111111111111', 'MASTERCARD', 'cardNumber is a VISA card but accountType is MASTERCARD'],
    ['5555555555554444', 'VISA', 'cardNumber is a MASTERCARD card but accountType is VISA'],
    ['378282246310005', 'DISCOVER', 'cardNumber is an AMEX card but accountType is DISCOVER'],
    ['6011111111111117', 'AMEX', 'cardNumber is a DISCOVER card but accountType is AMEX'],
  ])('refuses %p declared %p: %p, without echoing the number', (number, declared, message) => {
    const text = messageOf(() => assertCardNumber(number, declared));
    expect(text).toBe(message);
    if (number !== '') expect(text).not.toContain(number);
    const digits = number.replace(/\D/g, '');
    if (digits.length >= 4) {
      expect(text).not.toContain(digits);
      expect(text).not.toContain(digits.slice(-4));
    }
  });
});

describe('abaValid', () => {
  it.each(['011000015', '021000021', '111000025', '122000247', '026009593', '121000358'])(
    '%p is a valid routing number',
    (routing) => {
      expect(abaValid(routing)).toBe(true);
    },
  );

  it.each(['123456789', '021000022', '011000016', '02100002', '0210000210', '02100002a', ' 21000021', ''])(
    '%p is not',
    (routing) => {
      expect(abaValid(routing)).toBe(false);
    },
  );

  it('weights the digits 3-7-1 (a swap of the first two digits is detected)', () => {
    expect(abaValid('021000021')).toBe(true);
    expect(abaValid('201000021')).toBe(false);
  });
});

describe('assertBankAccount', () => {
  it.each(['12345', '000123456789', '12345678901234567'])('accepts account number %p', (account) => {
    expect(() => assertBankAccount('021000021', account)).not.toThrow();
  });

  it.each([
    ['123456789', '000123456789', 'routingNumber is not a valid ABA routing number'],
    ['02100002', '000123456789', 'routingNumber is not a valid ABA routing number'],
    ['021000021', '123', 'accountNumber must be 5-17 digits'],
    ['021000021', '123456789012345678', 'accountNumber must be 5-17 digits'],
    ['021000021', '0001234567x9', 'accountNumber must be 5-17 digits'],
    ['021000021', '', 'accountNumber must be 5-17 digits'],
  ])('refuses %p / %p: %p, without echoing either number', (routing, account, message) => {
    const text = messageOf(() => assertBankAccount(routing, account));
    expect(text).toBe(message);
    expect(text).not.toContain(routing);
    if (account.length >= 4) expect(text).not.toContain(account);
  });
});

describe('maskNumber', () => {
  it.each([
    ['4111111111111111', '************1111'],
    ['378282246310005', '***********0005'],
    ['4000000000000000006', '***************0006'],
    ['000123456789', '********6789'],
    ['1234', '1234'],
    ['123', '123'],
  ])('%p → %p', (number, masked) => {
    expect(maskNumber(number)).toBe(masked);
    expect(maskNumber(number)).toHaveLength(number.length);
  });
});

describe('isCard', () => {
  it('is true for the card brands and false for CHECKING', () => {
    expect(['VISA', 'MASTERCARD', 'AMEX', 'DISCOVER'].every((t) => isCard(t as CardType))).toBe(true);
    expect(isCard('CHECKING')).toBe(false);
  });
});

describe('assertNotExpired', () => {
  const NOW = new Date('2026-05-10T14:37:00.000Z');

  it.each([
    [5, 2026],
    [6, 2026],
    [12, 2026],
    [1, 2027],
    [4, 2099],
  ])('accepts %p/%p (current month or later)', (month, year) => {
    expect(() => assertNotExpired(month, year, NOW)).not.toThrow();
  });

  it.each([
    [4, 2026, 'expiry 04/2026 is in the past'],
    [12, 2025, 'expiry 12/2025 is in the past'],
    [1, 2026, 'expiry 01/2026 is in the past'],
    [5, 2025, 'expiry 05/2025 is in the past'],
  ])('refuses %p/%p: %p', (month, year, message) => {
    expect(messageOf(() => assertNotExpired(month, year, NOW))).toBe(message);
  });

  it('a card is good to the end of its expiry month, in UTC', () => {
    expect(() => assertNotExpired(5, 2026, new Date('2026-05-31T23:59:59.999Z'))).not.toThrow();
    expect(messageOf(() => assertNotExpired(5, 2026, new Date('2026-06-01T00:00:00.000Z')))).toBe(
      'expiry 05/2026 is in the past',
    );
    // 31 May 22:00 at UTC-5 is already June in UTC.
    expect(() => assertNotExpired(5, 2026, new Date('2026-05-31T22:00:00-05:00'))).toThrow(BadRequestError);
  });

  it('turns the year over correctly: December is fine in December, refused in January', () => {
    expect(() => assertNotExpired(12, 2026, new Date('2026-12-31T12:00:00Z'))).not.toThrow();
    expect(() => assertNotExpired(12, 2026, new Date('2027-01-01T00:00:00Z'))).toThrow('expiry 12/2026');
  });
});

describe('a bank account number must keep something masked', () => {
  it('refuses a 4-digit account number (its masked form would show it whole)', () => {
    expect(() => assertBankAccount('021000021', '1234')).toThrow('accountNumber must be 5-17 digits');
  });
});
