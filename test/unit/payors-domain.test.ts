import { parseMethodInput } from '#domain/method-input';
import {
  methodView,
  newMethod,
  parseProfileId,
  payorView,
  replacementDefault,
  updatedMethod,
} from '#domain/payors';
import {
  address,
  cardInput,
  checkingInput,
  messageOf,
  METHOD_ID,
  MID,
  payor,
  PAYOR_ID,
  savedChecking,
  savedMethod,
} from '#support/fixtures/index';

const NOW = new Date('2026-05-10T14:37:12.345Z');
const LATER = new Date('2026-05-11T08:00:00.000Z');
const CARD = '4111111111111111';
const ACCOUNT = '000123456789';
const ROUTING = '011000015';

/** What `newMethod` takes: a validated method input. */
type MethodInput = Parameters<typeof newMethod>[0];

describe('parseMethodInput', () => {
  it('returns a valid card and a valid CHECKING account as given', () => {
    const card = cardInput({ customerData: { k: 'v' }, setAsDefault: true });
    expect(parseMethodInput(card, NOW)).toBe(card);
    const bank = checkingInput();
    expect(parseMethodInput(bank, NOW, 'paymentMethod')).toBe(bank);
  });

  it.each([
    ['MASTERCARD', '5555555555554444'],
    ['AMEX', '378282246310005'],
    ['DISCOVER', '6011111111111117'],
  ])('accepts a %s card', (accountType, cardNumber) => {
    expect(() => parseMethodInput(cardInput({ accountType, cardNumber }), NOW)).not.toThrow();
  });

  it('accepts a card expiring this month', () => {
    expect(() => parseMethodInput(cardInput({ expiryMonth: 5, expiryYear: 2026 }), NOW)).not.toThrow();
  });

  it.each<[Record<string, unknown>, string]>([
    [cardInput({ cardNumber: '4111111111111112' }), 'cardNumber is not a valid card number (check digit)'],
    [cardInput({ cardNumber: '4111 1111 1111 1111' }), 'cardNumber must be 12-19 digits'],
    [cardInput({ cardNumber: '41111111111' }), 'cardNumber must be 12-19 digits'],
    [cardInput({ cardNumber: '41111111111111111111' }), 'cardNumber must NOT have more than 19 characters'],
    [cardInput({ cardNumber: 4111111111111111 }), 'cardNumber must be string'],
    [cardInput({ accountType: 'MASTERCARD' }), 'cardNumber is a VISA card but accountType is MASTERCARD'],
    [
      cardInput({ accountType: 'AMEX', cardNumber: '5555555555554444' }),
      'cardNumber is a MASTERCARD card but accountType is AMEX',
    ],
    [
      cardInput({ cardNumber: '3530000000000003' }),
      'cardNumber is not a card of a supported type (VISA, MASTERCARD, AMEX, DISCOVER)',
    ],
    [cardInput({ expiryMonth: 4, expiryYear: 2026 }), 'expiry 04/2026 is in the past'],
    [cardInput({ expiryMonth: 13 }), 'expiryMonth must be <= 12'],
    [cardInput({ expiryMonth: 0 }), 'expiryMonth must be >= 1'],
    [cardInput({ cardNumber: undefined }), 'cardNumber is required'],
    [cardInput({ expiryYear: undefined }), 'expiryYear is required'],
    [cardInput({ billingAddress: undefined }), 'billingAddress is required'],
    [
      cardInput({ billingAddress: { ...address, country: 'USA' } }),
      'billingAddress.country must be an ISO 3166-1 alpha-2 code like US',
    ],
    [cardInput({ routingNumber: ROUTING }), 'routingNumber is not a known field'],
    [
      cardInput({ accountType: 'AMEX_GOLD' }),
      'accountType must be one of VISA, MASTERCARD, AMEX, DISCOVER, CHECKING, SAVINGS',
    ],
    [cardInput({ accountType: undefined }), 'accountType is required'],
    [checkingInput({ routingNumber: '123456789' }), 'routingNumber is not a valid ABA routing number'],
    [checkingInput({ accountNumber: '123' }), 'accountNumber must be 5-17 digits'],
    [
      checkingInput({ accountNumber: '123456789012345678' }),
      'accountNumber must NOT have more than 17 characters',
    ],
    [checkingInput({ expiryMonth: 12 }), 'expiryMonth is not a known field'],
    [checkingInput({ expiryYear: 2030 }), 'expiryYear is not a known field'],
    [checkingInput({ routingNumber: undefined }), 'routingNumber is required'],
    [checkingInput({ cardNumber: CARD }), 'cardNumber is not a known field'],
  ])('refuses %p: "paymentMethod.%s" under the root, "%s" without it', (value, message) => {
    expect(messageOf(() => parseMethodInput(value, NOW, 'paymentMethod'))).toBe(`paymentMethod.${message}`);
    expect(messageOf(() => parseMethodInput(value, NOW))).toBe(message);
  });

  it('never echoes a card or account number in a message', () => {
    const refused: Record<string, unknown>[] = [
      cardInput({ cardNumber: '4111111111111112' }),
      cardInput({ cardNumber: '3530000000000003' }),
      cardInput({ accountType: 'DISCOVER' }),
      cardInput({ expiryYear: 2020 }),
      checkingInput({ routingNumber: '123456789' }),
      checkingInput({ accountNumber: '12345678901234x' }),
      checkingInput({ expiryMonth: 1 }),
    ];
    for (const value of refused) {
      const message = messageOf(() => parseMethodInput(value, NOW, 'paymentMethod'));
      const secrets = [value.cardNumber, value.accountNumber].filter((s) => typeof s === 'string');
      for (const secret of secrets as string[]) {
        expect(message).not.toContain(secret);
        expect(message).not.toContain(secret.slice(-6));
      }
    }
  });
});

describe('newMethod', () => {
  const ids = { payorId: PAYOR_ID, merchantId: MID, savedPaymentMethodId: METHOD_ID };

  it('keeps the masked number, the token and the expiry of a card, never the number', () => {
    const input = parseMethodInput(
      cardInput({ expiryMonth: 12, expiryYear: 2030, customerData: { nick: 'work' }, setAsDefault: true }),
      NOW,
    );
    const saved = newMethod(input, ids, 'sbx.ok.token1', NOW);
    expect(saved).toEqual({
      savedPaymentMethodId: METHOD_ID,
      payorId: PAYOR_ID,
      merchantId: MID,
      accountType: 'VISA',
      maskedAccountNumber: '************1111',
      processorToken: 'sbx.ok.token1',
      expiryMonth: 12,
      expiryYear: 2030,
      billingAddress: address,
      customerData: { nick: 'work' },
      dateCreated: NOW.toISOString(),
      lastUpdated: NOW.toISOString(),
    });
    expect(JSON.stringify(saved)).not.toContain(CARD);
    expect(saved).not.toHaveProperty('cardNumber');
    expect(saved).not.toHaveProperty('setAsDefault');
  });

  it('keeps the masked account number of a CHECKING account, no expiry, never the account number', () => {
    const input = parseMethodInput(checkingInput(), NOW);
    const saved = newMethod(input, ids, 'sbx.bank.token2', NOW);
    expect(saved).toMatchObject({ accountType: 'CHECKING', maskedAccountNumber: '********6789' });
    expect(saved.processorToken).toBe('sbx.bank.token2');
    expect(saved).not.toHaveProperty('expiryMonth');
    expect(saved).not.toHaveProperty('expiryYear');
    expect(saved).not.toHaveProperty('accountNumber');
    expect(saved).not.toHaveProperty('routingNumber');
    expect(JSON.stringify(saved)).not.toContain(ACCOUNT);
  });

  it.each([
    ['AMEX', '378282246310005', '***********0005'],
    ['DISCOVER', '6011000000000000001', '***************0001'],
  ])('masks a %s number of its own length', (accountType, cardNumber, masked) => {
    const input = { ...cardInput({ accountType, cardNumber }) } as MethodInput;
    const saved = newMethod(input, ids, 't', NOW);
    expect(saved.maskedAccountNumber).toBe(masked);
    expect(JSON.stringify(saved)).not.toContain(cardNumber);
  });
});

describe('updatedMethod', () => {
  it('changes the expiry of a card, stamps lastUpdated and updatedBy and counts a revision, keeping the rest', () => {
    const before = savedMethod();
    const next = updatedMethod(before, { expiryMonth: 1, expiryYear: 2031 }, LATER);
    expect(next).toEqual({
      ...before,
      expiryMonth: 1,
      expiryYear: 2031,
      updatedBy: 'merchant',
      lastUpdated: LATER.toISOString(),
      revision: 1,
      eventSeq: 1,
    });
    expect(updatedMethod(next, { expiryMonth: 2 }, LATER)).toMatchObject({ revision: 2, eventSeq: 2 });
  });

  it('changes one half of the expiry, keeping the other', () => {
    expect(updatedMethod(savedMethod(), { expiryMonth: 3 }, LATER)).toMatchObject({
      expiryMonth: 3,
      expiryYear: 2030,
    });
    expect(updatedMethod(savedMethod(), { expiryYear: 2032 }, LATER)).toMatchObject({
      expiryMonth: 12,
      expiryYear: 2032,
    });
  });

  it('accepts the current month', () => {
    expect(() => updatedMethod(savedMethod(), { expiryMonth: 5, expiryYear: 2026 }, NOW)).not.toThrow();
  });

  it('refuses an expiry in the past, also when only the month moves it there', () => {
    expect(messageOf(() => updatedMethod(savedMethod(), { expiryMonth: 4, expiryYear: 2026 }, NOW))).toBe(
      'expiry 04/2026 is in the past',
    );
    const thisYear = savedMethod({ expiryMonth: 12, expiryYear: 2026 });
    expect(messageOf(() => updatedMethod(thisYear, { expiryMonth: 1 }, NOW))).toBe(
      'expiry 01/2026 is in the past',
    );
  });

  it('refuses expiry fields for a CHECKING account', () => {
    for (const input of [{ expiryMonth: 1 }, { expiryYear: 2030 }, { expiryMonth: 1, expiryYear: 2030 }]) {
      expect(messageOf(() => updatedMethod(savedChecking(), input, NOW))).toBe(
        'expiryMonth/expiryYear apply to cards only, not bank accounts',
      );
    }
  });

  it('replaces the billing address and customerData; the expiry of an expired card need not change', () => {
    const expired = savedMethod({ expiryMonth: 1, expiryYear: 2026, customerData: { a: '1' } });
    const moved = { ...address, line1: '2 Oak Ave', line2: 'Apt 3' };
    const next = updatedMethod(expired, { billingAddress: moved, customerData: { b: '2' } }, NOW);
    expect(next).toMatchObject({
      billingAddress: moved,
      customerData: { b: '2' },
      expiryMonth: 1,
      expiryYear: 2026,
    });
    expect(next.processorToken).toBe(expired.processorToken);
    expect(next.maskedAccountNumber).toBe(expired.maskedAccountNumber);
  });

  it('changes the billing address of a CHECKING account without adding expiry fields', () => {
    const next = updatedMethod(savedChecking(), { billingAddress: { ...address, city: 'Peoria' } }, LATER);
    expect(next.billingAddress.city).toBe('Peoria');
    expect(next).not.toHaveProperty('expiryMonth');
    expect(next.lastUpdated).toBe(LATER.toISOString());
  });
});

describe('replacementDefault', () => {
  const a = savedMethod({ savedPaymentMethodId: 'a', dateCreated: '2026-01-02T00:00:00.000Z' });
  const b = savedMethod({ savedPaymentMethodId: 'b', dateCreated: '2026-01-01T00:00:00.000Z' });
  const c = savedMethod({ savedPaymentMethodId: 'c', dateCreated: '2026-01-03T00:00:00.000Z' });

  it('is the oldest of the other methods', () => {
    expect(replacementDefault([a, b, c], 'c')).toBe('b');
    expect(replacementDefault([c, a, b], 'b')).toBe('a');
    expect(replacementDefault([a, c], 'a')).toBe('c');
  });

  it('breaks a tie on creation time by id', () => {
    const x = savedMethod({ savedPaymentMethodId: 'x', dateCreated: a.dateCreated });
    expect(replacementDefault([x, a, c], 'c')).toBe('a');
  });

  it('is undefined when no other method exists', () => {
    expect(replacementDefault([a], 'a')).toBeUndefined();
    expect(replacementDefault([], 'a')).toBeUndefined();
  });

  it('does not reorder the array it is given', () => {
    const methods = [c, a, b];
    replacementDefault(methods, 'c');
    expect(methods.map((m) => m.savedPaymentMethodId)).toEqual(['c', 'a', 'b']);
  });
});

describe('methodView', () => {
  it('shows a card with isDefault derived from the default id, never the token or merchant', () => {
    const view = methodView(savedMethod({ customerData: { nick: 'work' } }), METHOD_ID);
    expect(view).toEqual({
      savedPaymentMethodId: METHOD_ID,
      payorId: PAYOR_ID,
      accountType: 'VISA',
      maskedAccountNumber: '************1111',
      expiryMonth: 12,
      expiryYear: 2030,
      billingAddress: address,
      isDefault: true,
      customerData: { nick: 'work' },
      status: 'active',
      dateCreated: '2026-05-01T00:00:00.000Z',
      lastUpdated: '2026-05-02T00:00:00.000Z',
    });
    expect(view).not.toHaveProperty('deletion');
    expect(JSON.stringify(view)).not.toContain('sbx.');
    expect(view).not.toHaveProperty('processorToken');
    expect(view).not.toHaveProperty('merchantId');
  });

  it('is not the default under another default id; customerData defaults to {}; CHECKING has no expiry', () => {
    const view = methodView(savedChecking(), 'other');
    expect(view.isDefault).toBe(false);
    expect(view.customerData).toEqual({});
    expect(view).not.toHaveProperty('expiryMonth');
    expect(view).not.toHaveProperty('expiryYear');
    expect(view).not.toHaveProperty('processorToken');
  });
});

describe('payorView', () => {
  it('shows absent optional fields as null, customerData as {}, and the methods with one default', () => {
    const second = savedMethod({ savedPaymentMethodId: 'm2', processorToken: 'sbx.05.secret' });
    const view = payorView(payor({ methodCount: 2 }), [savedMethod(), second]);
    expect(view).toEqual({
      payorId: PAYOR_ID,
      customerAccountId: null,
      customerAccountType: null,
      sponsorKey: null,
      customerData: {},
      email: null,
      defaultPaymentMethodId: METHOD_ID,
      savedPaymentMethods: [methodView(savedMethod(), METHOD_ID), methodView(second, METHOD_ID)],
      dateCreated: '2026-05-01T00:00:00.000Z',
      lastUpdated: '2026-05-02T00:00:00.000Z',
    });
    expect(view.savedPaymentMethods.map((m) => m.isDefault)).toEqual([true, false]);
    expect(JSON.stringify(view)).not.toContain('sbx.');
    expect(view).not.toHaveProperty('merchantId');
    expect(view).not.toHaveProperty('methodCount');
  });

  it('shows the optional fields that are set', () => {
    const view = payorView(
      payor({
        customerAccountId: 'CUST-1',
        customerAccountType: 'student',
        sponsorKey: 'SK1',
        customerData: { grade: '5' },
        email: 'a@example.com',
        defaultPaymentMethodId: 'm2',
      }),
      [savedMethod(), savedMethod({ savedPaymentMethodId: 'm2' })],
    );
    expect(view).toMatchObject({
      customerAccountId: 'CUST-1',
      customerAccountType: 'student',
      sponsorKey: 'SK1',
      customerData: { grade: '5' },
      email: 'a@example.com',
      defaultPaymentMethodId: 'm2',
    });
    expect(view.savedPaymentMethods.map((m) => [m.savedPaymentMethodId, m.isDefault])).toEqual([
      [METHOD_ID, false],
      ['m2', true],
    ]);
  });
});

describe('parseProfileId', () => {
  it.each([
    ['payor1/method1', 'payor1', 'method1'],
    [`${PAYOR_ID.toUpperCase()}/${METHOD_ID.toUpperCase()}`, PAYOR_ID, METHOD_ID],
    ['Payor_1/Method-1', 'payor_1', 'method-1'],
    ['payor1', 'payor1', ''],
    ['', '', ''],
  ])(
    '%p → {payorId: %p, savedPaymentMethodId: %p} (lower case)',
    (profileId, payorId, savedPaymentMethodId) => {
      expect(parseProfileId(profileId)).toEqual({ payorId, savedPaymentMethodId });
    },
  );
});
