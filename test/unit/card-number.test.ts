/**
 * The one detector of card numbers in free text (lambdas/shared/card-number.ts): a Luhn-valid
 * 13-19 digit run with a card brand's prefix, whatever spaces or dashes separate its groups, found
 * inside any text; and the false positives kept honest (phone numbers, dates, order ids).
 */
import fc from 'fast-check';
import { containsCardNumber, passesLuhn, redactCardNumbers } from '#shared/card-number';

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

describe('issue 32 item 1: card numbers slip past the free-text check', () => {
  test('defect: a card number followed by more text is accepted in free text', () => {
    expect(containsCardNumber('4111 1111 1111 1111 12/30')).toBe(true);
    expect(containsCardNumber('4111-1111-1111-1111 123')).toBe(true);
  });

  test('defect: a card number preceded by text is accepted in free text', () => {
    expect(containsCardNumber('Qty 2 4111111111111111')).toBe(true);
    expect(containsCardNumber('room 12 - 5555 5555 5555 4444')).toBe(true);
  });

  test.each([
    ['non-breaking spaces', '4111\u00a01111\u00a01111\u00a01111'],
    ['narrow no-break spaces', '4111\u202f1111\u202f1111\u202f1111'],
    ['thin spaces', '4111\u20091111\u20091111\u20091111'],
    ['en dashes', '4111\u20131111\u20131111\u20131111'],
    ['em dashes', '4111\u20141111\u20141111\u20141111'],
    ['minus signs', '4111\u22121111\u22121111\u22121111'],
    ['doubled spaces', '4111  1111  1111  1111'],
    ['spaced hyphens', '4111 - 1111 - 1111 - 1111'],
    ['zero-width spaces', '4111\u200b1111\u200b1111\u200b1111'],
    ['Hangul fillers', '4111\u31641111\u31641111\u31641111'],
    ['half-width Hangul fillers', '4111\uffa01111\uffa01111\uffa01111'],
    ['blank Braille patterns', '4111\u28001111\u28001111\u28001111'],
    ['superscript minus signs', '4111\u207b1111\u207b1111\u207b1111'],
    ['heavy minus signs', '4111\u27961111\u27961111\u27961111'],
    ['modifier letter minus signs', '4111\u02d71111\u02d71111\u02d71111'],
  ])('defect: a card number with %s between its groups is accepted in free text', (_what, text) => {
    expect(containsCardNumber(text)).toBe(true);
  });

  test.each([
    ['left-to-right marks', '\u200e'],
    ['right-to-left marks', '\u200f'],
    ['left-to-right isolates', '\u2066'],
    ['pop directional isolates', '\u2069'],
    ['variation selectors', '\ufe0f'],
    ['combining low lines', '\u0332'],
    ['byte order marks', '\ufeff'],
  ])(
    'defect: a card number with %s between its groups (shown as nothing) passed the free-text check and the redaction',
    (_what, mark) => {
      const text = ['4111', '1111', '1111', '1111'].join(mark);
      expect(containsCardNumber(`note ${text}`)).toBe(true);
      expect(redactCardNumbers(`note ${text}`)).toBe('note [card number]');
    },
  );

  test('a card number in another script’s digits is found too', () => {
    expect(containsCardNumber('４１１１ １１１１ １１１１ １１１１')).toBe(true);
    expect(containsCardNumber('٤١١١١١١١١١١١١١١١')).toBe(true);
  });

  test('defect: a card number as a JSON number is accepted in free text', () => {
    // customAttributes takes numbers up to 1e15: an Amex number (15 digits) fits.
    expect(containsCardNumber(378282246310005)).toBe(true);
    expect(containsCardNumber(-378282246310005)).toBe(true);
  });

  test('defect: a card number as the local part of an e-mail address is accepted', () => {
    expect(containsCardNumber('4111111111111111@example.com')).toBe(true);
    expect(containsCardNumber('4111.1111.1111.1111@example.com')).toBe(true);
    expect(containsCardNumber('pay_4111_1111_1111_1111+tag@example.com')).toBe(true);
  });

  test("defect: a card number inside a webhook URL's path or query is accepted", () => {
    expect(containsCardNumber('https://hooks.example.com/cards/4111111111111111')).toBe(true);
    expect(containsCardNumber('https://hooks.example.com/in?card=4111%201111%201111%201111')).toBe(true);
    expect(containsCardNumber('https://hooks.example.com/in?card=4111+1111+1111+1111')).toBe(true);
    expect(containsCardNumber('https://hooks.example.com/in?card=4111%25201111%25201111%25201111')).toBe(
      true,
    );
  });

  test.each([
    '4012888888881881',
    'acct 4012888888881881',
    'pan:4012888888881881;',
    'x4111111111111111y',
    '4012 8888 8888 1881',
    '4012-8888-8888-1881',
    '378282246310005', // 15 digits (Amex)
    '3782 822463 10005', // Amex as printed
    '4222222222222', // 13 digits
    '6011000990139424 and more',
    '+4111111111111111', // 16 digits after a plus: more than a phone number holds
  ])('finds a card number in %j', (text) => expect(containsCardNumber(text)).toBe(true));

  test.each([
    '4012888888881882', // 16 digits, not Luhn-valid
    '1234567890123', // 13 digits, not Luhn-valid
    '7992739871300004', // Luhn-valid, but no brand starts with 7
    '+1 (555) 123-4567', // a phone number
    '+44 20 7946 0958',
    '+49 151 23456787', // a German mobile number: 13 digits from 4, Luhn-valid
    '555-0100',
    '401288888888', // 12 digits
    '40128888888818810000', // 20 digits: no card number
    'order 2024-11-26 #42',
    '4012 / 8888 / 8888 / 1881', // groups apart
    '4012.8888.8888.1881', // dots separate numbers, except in an e-mail address's local part
    '',
    'no digits at all',
  ])('passes %j', (text) => expect(containsCardNumber(text)).toBe(false));

  test('a long text of digits and separators is checked in linear time (no backtracking blow-up)', () => {
    expect(containsCardNumber('1 '.repeat(5000) + 'x')).toBe(false);
    expect(containsCardNumber('7'.repeat(100_000))).toBe(false);
  });
});

// ---- The property: numbers of every brand and length, disguised, inside random text ----

/** Each brand's prefixes, as ranges of a prefix length. */
const BRANDS: Record<string, readonly (readonly [from: number, to: number])[]> = {
  visa: [[4, 4]],
  mastercard: [
    [51, 55],
    [2221, 2720],
  ],
  amex: [
    [34, 34],
    [37, 37],
  ],
  discover: [
    [6011, 6011],
    [644, 649],
    [65, 65],
  ],
  jcb: [[3528, 3589]],
  diners: [
    [300, 305],
    [36, 36],
    [38, 39],
  ],
  unionpay: [[62, 62]],
};

/** The digit that makes `body` Luhn-valid when appended. */
function checkDigit(body: string): string {
  for (let d = 0; d <= 9; d++) if (passesLuhn(`${body}${d}`)) return String(d);
  throw new Error('unreachable');
}

/** A Luhn-valid number of `length` digits starting with `prefix`. */
const cardNumber = (prefix: string, length: number, rest: string): string => {
  const body = (prefix + rest).slice(0, length - 1);
  return body + checkDigit(body);
};

const anyCardNumber = fc
  .tuple(
    fc.constantFrom(...Object.values(BRANDS).flat()),
    fc.integer({ min: 13, max: 19 }),
    fc.stringMatching(/^\d{19}$/),
  )
  .chain(([[from, to], length, rest]) =>
    fc.integer({ min: from, max: to }).map((prefix) => cardNumber(String(prefix), length, rest)),
  );

/** Separators between groups: any Unicode space or dash, invisible ones, one or several. */
const SEPARATORS = [
  ' ',
  '\u00a0',
  '\u2007',
  '\u2009',
  '\u202f',
  '\u3000',
  '\t',
  '-',
  '\u2010',
  '\u2011',
  '\u2012',
  '\u2013',
  '\u2014',
  '\u2212',
  '\ufe63',
  '\uff0d',
  '\u00ad',
  '\u200b',
  '\u2060',
];
const separator = fc
  .array(fc.constantFrom(...SEPARATORS), { minLength: 1, maxLength: 3 })
  .map((s) => s.join(''));

/** Digits of another script: ASCII mostly, full-width, Arabic-Indic or Devanagari now and then. */
const script = fc.constantFrom(0x30, 0x30, 0x30, 0xff10, 0x660, 0x966);
const inScript = (digits: string, zero: number): string =>
  Array.from(digits, (d) => String.fromCodePoint(zero + Number(d))).join('');

/** `digits` cut into groups at random places, joined by random separators. */
const grouped = (digits: string) =>
  fc
    .tuple(
      fc.uniqueArray(fc.integer({ min: 1, max: digits.length - 1 }), { maxLength: 6 }),
      fc.array(separator, { minLength: 6, maxLength: 6 }),
      script,
    )
    .map(([cuts, seps, zero]) => {
      const at = [0, ...cuts.sort((a, b) => a - b), digits.length];
      const groups = at.slice(1).map((end, i) => inScript(digits.slice(at[i], end), zero));
      return groups.map((g, i) => (i === 0 ? g : seps[i - 1]! + g)).join('');
    });

/** A card number as people write it: in groups, in a URL, or as an e-mail's local part. */
const disguised = anyCardNumber.chain((pan) =>
  fc.oneof(
    { weight: 6, arbitrary: grouped(pan) },
    {
      weight: 1,
      arbitrary: grouped(pan).map((g) => `https://hooks.example.com/in/${encodeURIComponent(g)}?x=1`),
    },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.constantFrom('.', '_', '-'), { minLength: 3, maxLength: 3 })
        .map(
          ([a, b, c]) =>
            `${pan.slice(0, 4)}${a}${pan.slice(4, 8)}${b}${pan.slice(8, 12)}${c}${pan.slice(12)}@example.com`,
        ),
    },
  ),
);

/** Text around it: anything, kept apart from its digits by a character that is not a digit or a plus. */
const around = fc.tuple(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(' ', 'x', ':', '#', '(', '\u00a0', '/', '\n'),
  fc.constantFrom(' ', 'x', ')', '.', ',', '/', '\u2013'),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
);

test('property: a card number of any brand and length, disguised, is found inside any text', () => {
  fc.assert(
    fc.property(disguised, around, (pan, [before, left, right, after]) => {
      expect(containsCardNumber(`${before}${left}${pan}${right}${after}`)).toBe(true);
    }),
    { numRuns: 2000 },
  );
});

// ---- False positives kept honest ----

const letters = fc.stringMatching(/^[A-Za-z ]{0,20}$/);

/**
 * Whole groups of a longer grouped number can make a card number (`4111 1111 1111 1111 1` holds
 * one), so these are written as one run, or in groups of four when 16 digits or fewer.
 */
const asWritten = (digits: string) =>
  digits.length > 16
    ? fc.constant(digits)
    : fc.oneof(
        fc.constant(digits),
        separator.map((sep) => digits.replace(/(\d{4})(?=\d)/g, `$1${sep}`)),
      );

test('property: a number that fails the Luhn check is no card number, as one run or in groups of four', () => {
  const notLuhn = anyCardNumber.map((pan) => pan.slice(0, -1) + String((Number(pan.at(-1)) + 1) % 10));
  fc.assert(
    fc.property(notLuhn.chain(asWritten), letters, letters, (written, before, after) => {
      expect(containsCardNumber(`${before} ${written} ${after}`)).toBe(false);
    }),
  );
});

test('property: a 13-19 digit order id that starts with no brand prefix is never a card number', () => {
  const orderId = fc
    .tuple(fc.constantFrom('0', '1', '7', '8', '9'), fc.stringMatching(/^\d{12,18}$/))
    .map(([first, rest]) => first + rest);
  fc.assert(
    fc.property(orderId.chain(asWritten), letters, (id, before) => {
      expect(containsCardNumber(`${before} #${id}`)).toBe(false);
    }),
  );
});

test('property: a UUID is never a card number, alone or in a sentence', () => {
  fc.assert(
    fc.property(fc.uuid(), letters, (id, before) => {
      expect(containsCardNumber(`${before} ${id} not found`)).toBe(false);
      expect(containsCardNumber(id.toUpperCase())).toBe(false);
    }),
    { numRuns: 5000 },
  );
  // One whose digit groups line up as a Mastercard number (5599 4123 9123 458 passes the Luhn check).
  expect(containsCardNumber('series 41210744-5599-4123-9123-458d033010a0 not found')).toBe(false);
  expect(containsCardNumber('series 41210744 5599-4123-9123-458d033010a0 not found')).toBe(true);
});

test('defect: a 15-digit Amex number after a plus passed as a phone number (no phone number of +34 or +37x has 15 digits)', () => {
  for (const text of ['+378282246310005', 'call +37 8282 2463 10005', '+37 1449 6353 98431'])
    expect(containsCardNumber(text)).toBe(true);
  expect(redactCardNumbers('card +378282246310005 now')).toBe('card +[card number] now');
  // Real numbers of those countries stay: Spain, Lithuania, Monaco, San Marino.
  for (const phone of ['+34 912 345 678', '+370 612 34567', '+377 6 12 34 56 78', '+378 0549 123456'])
    expect(containsCardNumber(phone)).toBe(false);
});

test('defect: a 14-digit Diners number after a plus passed as a phone number (no phone number of +30, +36, +38x or +39 has 14 digits)', () => {
  for (const text of ['+38520000023237', 'call +3056 930902 5904', '+36 2272 0627 1667'])
    expect(containsCardNumber(text)).toBe(true);
  expect(redactCardNumbers('card +38520000023237 now')).toBe('card +[card number] now');
  // Real numbers of those countries stay: Greece, Hungary, Croatia, Italy (its longest).
  for (const phone of ['+30 21 0123 4567', '+36 1 234 5678', '+385 91 234 5678', '+39 06 6982 12345'])
    expect(containsCardNumber(phone)).toBe(false);
});

test('property: a phone number in international form (a plus, at most 15 digits) is never a card number', () => {
  const e164 = fc
    .tuple(fc.stringMatching(/^[1-9]\d{0,2}$/), fc.integer({ min: 4, max: 12 }))
    .chain(([country, national]) =>
      fc
        .stringMatching(new RegExp(`^\\d{${Math.min(national, 15 - country.length)}}$`))
        .chain((number) =>
          fc
            .tuple(fc.constantFrom(' ', '-', '', '\u00a0'), fc.constantFrom(3, 4))
            .map(
              ([sep, size]) =>
                `+${country}${sep === '' ? '' : ' '}${number.replace(new RegExp(`(\\d{${size}})(?=\\d)`, 'g'), `$1${sep}`)}`,
            ),
        ),
    );
  // No country whose code starts 34 or 37 (Spain, 370-379) numbers its phones with 15 digits, nor
  // 30, 36, 38 or 39 with 14: those are Amex- and Diners-shaped (the tests above).
  const cardShaped = (phone: string) =>
    /^(3[47]\d{13}|3(0[0-5]\d{11}|[689]\d{12}))$/.test(phone.replace(/\D/g, ''));
  fc.assert(
    fc.property(
      e164.filter((phone) => !cardShaped(phone)),
      letters,
      letters,
      (phone, before, after) => {
        expect(containsCardNumber(`${before} ${phone} ${after}`)).toBe(false);
      },
    ),
  );
});

test('property: a national phone number (a leading 0, at most 14 digits) is never a card number', () => {
  // The trunk 0 leads an area or mobile code: the first group has at least 2 digits.
  const national = fc
    .tuple(fc.stringMatching(/^0\d{1,4}$/), fc.stringMatching(/^\d{4,9}$/))
    .filter(([code, rest]) => code.length + rest.length <= 14)
    .chain(([code, rest]) => grouped(rest).map((r) => `${code} ${r}`));
  fc.assert(
    fc.property(national, letters, (phone, before) =>
      expect(containsCardNumber(`${before} ${phone}`)).toBe(false),
    ),
  );
});

test('property: a date or a date and time, in the usual forms, is never a card number', () => {
  const date = fc
    .tuple(
      fc.date({
        min: new Date('1900-01-01T00:00:00Z'),
        max: new Date('2199-12-31T00:00:00Z'),
        noInvalidDate: true,
      }),
      fc.constantFrom('iso', 'dmy-', 'dmy.', 'mdy/', 'iso-time', 'compact'),
    )
    .map(([d, form]) => {
      const [y, m, day] = [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()].map((n, i) =>
        String(n).padStart(i === 0 ? 4 : 2, '0'),
      );
      switch (form) {
        case 'iso':
          return `${y}-${m}-${day}`;
        case 'dmy-':
          return `${day}-${m}-${y}`;
        case 'dmy.':
          return `${day}.${m}.${y}`;
        case 'mdy/':
          return `${m}/${day}/${y}`;
        case 'iso-time':
          return d.toISOString();
        default:
          return `${y}${m}${day}`;
      }
    });
  fc.assert(
    fc.property(date, letters, letters, (d, before, after) =>
      expect(containsCardNumber(`${before} ${d} ${after}`)).toBe(false),
    ),
  );
});
