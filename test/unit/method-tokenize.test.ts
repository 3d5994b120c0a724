/**
 * Creating a saved method asks the processor to vault the account for its merchant and payor: a
 * processor may keep each merchant's vault apart and one customer per payor (Stripe: a connected
 * account, a customer).
 */
import type { createMethod as CreateMethod } from '#core/methods';
import type { useProcessor as UseProcessor } from '#processor/index';
import type { PaymentProcessor, TokenizeRequest } from '#processor/processor';

// The processor registry loads the configuration on import.
process.env.TABLE_NAME ??= 'unit-test-table';
let createMethod: typeof CreateMethod;
let useProcessor: typeof UseProcessor;

const asked: TokenizeRequest[] = [];
const recording = {
  tokenize: async (request: TokenizeRequest) => {
    asked.push(request);
    return { token: `tok-${asked.length}` };
  },
} as unknown as PaymentProcessor;

beforeAll(async () => {
  ({ createMethod } = await import('#core/methods'));
  ({ useProcessor } = await import('#processor/index'));
  useProcessor(recording);
});
afterAll(() => useProcessor(undefined));
beforeEach(() => (asked.length = 0));

const address = { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' };
const now = new Date('2031-01-15T10:00:00.000Z');

test('a card is vaulted for the merchant and payor that own the method', async () => {
  const { method } = await createMethod({
    raw: {
      accountType: 'VISA',
      cardNumber: '4111111111111111',
      expiryMonth: 12,
      expiryYear: 2032,
      billingAddress: address,
    },
    payorId: 'payor-7',
    merchantId: '32350000001',
    now,
  });
  expect(asked).toEqual([
    {
      merchantId: '32350000001',
      payorId: 'payor-7',
      kind: 'card',
      number: '4111111111111111',
      expiryMonth: 12,
      expiryYear: 2032,
    },
  ]);
  expect(method).toMatchObject({ payorId: 'payor-7', merchantId: '32350000001', processorToken: 'tok-1' });
});

test.each([
  ['a bank account is vaulted for the merchant and payor that own the method', 'CHECKING'],
  [
    'defect: a SAVINGS account was vaulted without its type (Stripe made it a checking account): the processor is told which',
    'SAVINGS',
  ],
])('%s', async (_name, accountType) => {
  await createMethod({
    raw: { accountType, routingNumber: '011000015', accountNumber: '000123456789', billingAddress: address },
    payorId: 'payor-8',
    merchantId: '32350000002',
    now,
  });
  expect(asked).toEqual([
    {
      merchantId: '32350000002',
      payorId: 'payor-8',
      kind: 'bank',
      routingNumber: '011000015',
      accountNumber: '000123456789',
      accountType,
    },
  ]);
});

describe('defect: an account vaulted by processorToken whose last four digits or expiry the processor answered null was a 500 (a plain Error), or saved with a null expiry', () => {
  const byToken = { accountType: 'VISA', processorToken: 'pm_unit', billingAddress: address };
  const told = (answer: Record<string, unknown>) =>
    ({ tokenize: async () => ({ token: 'tok-told', ...answer }) }) as unknown as PaymentProcessor;
  afterEach(() => useProcessor(recording));

  it.each<[string, Record<string, unknown>]>([
    ['last4 null', { last4: null, expiryMonth: 12, expiryYear: 2032, brand: 'VISA' }],
    ['last4 of three digits', { last4: '424', expiryMonth: 12, expiryYear: 2032, brand: 'VISA' }],
    ['expiryMonth null', { last4: '4242', expiryMonth: null, expiryYear: 2032, brand: 'VISA' }],
    ['expiryMonth 13', { last4: '4242', expiryMonth: 13, expiryYear: 2032, brand: 'VISA' }],
    ['expiryYear a string', { last4: '4242', expiryMonth: 12, expiryYear: '2032', brand: 'VISA' }],
  ])('%s: processor unavailable (503), nothing saved', async (_name, answer) => {
    const { ProcessorUnavailableError } = await import('#processor/processor');
    useProcessor(told(answer));
    const error = await createMethod({
      raw: byToken,
      payorId: 'payor-9',
      merchantId: '32350000001',
      now,
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProcessorUnavailableError);
  });

  it('a bank account whose type the processor holds otherwise is refused (400 naming processorToken)', async () => {
    useProcessor(told({ last4: '6789', accountType: 'SAVINGS' }));
    await expect(
      createMethod({
        raw: { ...byToken, accountType: 'CHECKING' },
        payorId: 'payor-9',
        merchantId: '32350000001',
        now,
      }),
    ).rejects.toThrow('processorToken is a SAVINGS account but accountType is CHECKING');
  });

  it('a bank account needs its last four digits only', async () => {
    useProcessor(told({ last4: '6789' }));
    const { method } = await createMethod({
      raw: { ...byToken, accountType: 'CHECKING' },
      payorId: 'payor-9',
      merchantId: '32350000001',
      now,
    });
    expect(method).toMatchObject({ maskedAccountNumber: '************6789', processorToken: 'tok-told' });
  });
});
