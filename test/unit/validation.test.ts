import { MAX_PAYMENTS_PER_CREATE } from '#contract/limits';
import {
  createGroupSchema,
  listGroupsQuerySchema,
  updateGroupSchema,
  type CreateGroupInput,
  type ListGroupsQuery,
  type UpdateGroupInput,
} from '#contract/schemas/groups';
import {
  addPaymentSchema,
  inlinePaymentSchema,
  updatePaymentSchema,
  type AddPaymentInput,
  type UpdatePaymentInput,
} from '#contract/schemas/payments';
import { describe as describeError, fieldName } from '#shared/validation';
import { validator } from '#support/validators-by-schema';
import { messageOf } from '#support/fixtures/index';

const GROUP_ID = '01890a5d-ac96-774b-bcce-b302099a8057';
const PAYMENT_ID = '01890a5d-ac96-774b-bcce-b302099a8058';

const createGroup = validator<CreateGroupInput>(createGroupSchema);
const updateGroup = validator<UpdateGroupInput>(updateGroupSchema);
const addPayment = validator<AddPaymentInput>(addPaymentSchema);
const updatePayment = validator<UpdatePaymentInput>(updatePaymentSchema);
const inlinePayment = validator(inlinePaymentSchema);
const listQuery = validator<ListGroupsQuery>(listGroupsQuerySchema, 'query');

const group = (over: Record<string, unknown> = {}) => ({
  servicePayId: '32350000001',
  scheduleDate: '2026-06-01',
  scheduleHour: 9,
  locationId: 12,
  ...over,
});
const pay = (over: Record<string, unknown> = {}) => ({ profileId: 'payor1/method1', amount: 19.99, ...over });
const addBody = (over: Record<string, unknown> = {}) => ({ paymentGroupId: GROUP_ID, ...pay(), ...over });

describe('fieldName', () => {
  it.each([
    ['', undefined, ''],
    ['', 'scheduleHour', 'scheduleHour'],
    ['/scheduleHour', undefined, 'scheduleHour'],
    ['/payments/3/amount', undefined, 'payments[3].amount'],
    ['/payments/3', 'amount', 'payments[3].amount'],
    ['/payments/0/fees/12/name', undefined, 'payments[0].fees[12].name'],
    ['/0', undefined, '[0]'],
    ['/customAttributes/a~1b', undefined, 'customAttributes.a/b'],
    ['/customAttributes/a~0b', undefined, 'customAttributes.a~b'],
    ['/customAttributes/a~01', undefined, 'customAttributes.a~1'],
    ['/a/b/c', undefined, 'a.b.c'],
  ])('(%p, %p) → %p', (path, child, name) => {
    expect(fieldName(path, child)).toBe(name);
  });
});

describe('describe (error message of one ajv error)', () => {
  const anyOfError = (parentSchema: object) => ({
    keyword: 'anyOf',
    instancePath: '/customAttributes/x',
    schemaPath: '#/properties/customAttributes/additionalProperties/anyOf',
    params: {},
    message: 'must match a schema in anyOf',
    parentSchema,
  });

  it('words an anyOf error of a customAttributes value with the schema description', () => {
    const schema = addPaymentSchema.properties.customAttributes.additionalProperties;
    expect(describeError(anyOfError(schema), 'body')).toBe(
      'customAttributes.x must be a string (up to 1000 characters, no control characters, no card number), a number (|n| <= 1e15, up to 6 decimals, no card number) or a boolean',
    );
  });

  it('has a generic wording for an anyOf without a description', () => {
    expect(describeError(anyOfError({ anyOf: [] }), 'body')).toBe(
      'customAttributes.x has an invalid type or value',
    );
  });

  it('words the maxDecimals keyword', () => {
    const error = { keyword: 'maxDecimals', instancePath: '/fees/1/amount', schemaPath: '#', params: {} };
    expect(describeError(error, 'body')).toBe('fees[1].amount must have at most 2 decimal places');
  });
});

describe('validator', () => {
  it('returns the value itself when valid', () => {
    const body = group({ payments: [pay()] });
    expect(createGroup(body)).toBe(body);
  });

  it.each([
    [null, 'body must be object'],
    [[], 'body must be object'],
    ['text', 'body must be object'],
    [42, 'body must be object'],
  ])('a non-object body %p names the root', (value, message) => {
    expect(messageOf(() => createGroup(value))).toBe(message);
  });

  it('names the root it is given', () => {
    expect(messageOf(() => listQuery('x'))).toBe('query must be object');
  });
});

describe('create group schema', () => {
  it('accepts a minimal body and a full one', () => {
    expect(() => createGroup(group())).not.toThrow();
    expect(() =>
      createGroup(
        group({
          servicePayId: '23500001',
          transactionInitiator: 'Consumer',
          surchargeCompliance: true,
          allowPartial: false,
          payments: [
            pay({
              orderId: 'INV-1',
              recurring: true,
              allowPartial: true,
              sendEmailReceipt: true,
              sendPaymentScheduledNotification: false,
              customAttributes: { a: 'x', b: 1.5, c: false },
              fees: [{ name: 'svc', amount: 0 }],
            }),
          ],
        }),
      ),
    ).not.toThrow();
  });

  it.each(['servicePayId', 'scheduleDate', 'scheduleHour', 'locationId'])(
    'missing %s → "%s is required"',
    (f) => {
      const body: Record<string, unknown> = group();
      delete body[f];
      expect(messageOf(() => createGroup(body))).toBe(`${f} is required`);
    },
  );

  it('names the payment index and field of a 3-decimal amount', () => {
    const payments = [pay(), pay(), pay(), pay({ amount: 1.234 })];
    expect(messageOf(() => createGroup(group({ payments })))).toBe(
      'payments[3].amount must have at most 2 decimal places',
    );
  });

  it('names a missing field inside a payment', () => {
    expect(messageOf(() => createGroup(group({ payments: [pay(), { amount: 1 }] })))).toBe(
      'payments[1].profileId is required',
    );
  });

  it('names an unknown field, top level and nested', () => {
    expect(messageOf(() => createGroup(group({ color: 'red' })))).toBe('color is not a known field');
    expect(messageOf(() => createGroup(group({ deleted: false })))).toBe('deleted is not a known field');
    expect(messageOf(() => createGroup(group({ payments: [pay({ paymentGroupId: GROUP_ID })] })))).toBe(
      'payments[0].paymentGroupId is not a known field',
    );
    expect(
      messageOf(() => createGroup(group({ payments: [pay({ fees: [{ name: 'a', amount: 1, tax: 1 }] })] }))),
    ).toBe('payments[0].fees[0].tax is not a known field');
  });

  it.each([
    [{ scheduleHour: '9' }, 'scheduleHour must be integer'],
    [{ scheduleHour: 9.5 }, 'scheduleHour must be integer'],
    [{ locationId: '12' }, 'locationId must be integer'],
    [{ servicePayId: 32350000001 }, 'servicePayId must be string'],
    [{ surchargeCompliance: 'yes' }, 'surchargeCompliance must be boolean'],
    [{ allowPartial: 1 }, 'allowPartial must be boolean'],
    [{ payments: {} }, 'payments must be array'],
    [{ payments: [pay({ amount: '19.99' })] }, 'payments[0].amount must be number'],
    [{ payments: [pay({ recurring: 'true' })] }, 'payments[0].recurring must be boolean'],
    [{ payments: [pay({ profileId: 5 })] }, 'payments[0].profileId must be string'],
  ])('wrong type %p → %p', (over, message) => {
    expect(messageOf(() => createGroup(group(over)))).toBe(message);
  });

  it('refuses an unknown transactionInitiator naming the allowed values', () => {
    expect(messageOf(() => createGroup(group({ transactionInitiator: 'Bank' })))).toBe(
      'transactionInitiator must be one of Merchant, Consumer',
    );
    expect(messageOf(() => createGroup(group({ transactionInitiator: 'merchant' })))).toBe(
      'transactionInitiator must be one of Merchant, Consumer',
    );
  });

  it.each([
    '2026-02-30',
    '2026-13-01',
    '2026-00-10',
    '2026-04-31',
    '2027-02-29',
    '2026-6-1',
    '26-06-01',
    '2026-06-01T00:00:00Z',
    '',
  ])('refuses the impossible or malformed date %p', (scheduleDate) => {
    expect(messageOf(() => createGroup(group({ scheduleDate })))).toBe(
      'scheduleDate must be a valid date (yyyy-MM-dd)',
    );
  });

  it.each(['2028-02-29', '2026-02-28', '2026-12-31', '2026-01-01'])(
    'accepts the real date %p',
    (scheduleDate) => {
      expect(() => createGroup(group({ scheduleDate }))).not.toThrow();
    },
  );

  it.each([0, 23])('accepts scheduleHour %p', (scheduleHour) => {
    expect(() => createGroup(group({ scheduleHour }))).not.toThrow();
  });

  it('refuses scheduleHour outside 0-23 and a negative locationId', () => {
    expect(messageOf(() => createGroup(group({ scheduleHour: 24 })))).toBe('scheduleHour must be <= 23');
    expect(messageOf(() => createGroup(group({ scheduleHour: -1 })))).toBe('scheduleHour must be >= 0');
    expect(messageOf(() => createGroup(group({ locationId: -1 })))).toBe('locationId must be >= 0');
  });

  it.each(['123', '1234567', '123456789', '3235000000', '323500000011', '2350000a', ' 23500001'])(
    'refuses servicePayId %p with "must be an 8 or 11 digit merchant ID"',
    (servicePayId) => {
      expect(messageOf(() => createGroup(group({ servicePayId })))).toBe(
        'servicePayId must be an 8 or 11 digit merchant ID',
      );
    },
  );

  it(`accepts up to ${MAX_PAYMENTS_PER_CREATE} payments and refuses more`, () => {
    const payments = Array.from({ length: MAX_PAYMENTS_PER_CREATE }, () => pay());
    expect(() => createGroup(group({ payments }))).not.toThrow();
    expect(messageOf(() => createGroup(group({ payments: [...payments, pay()] })))).toBe(
      `payments must NOT have more than ${MAX_PAYMENTS_PER_CREATE} items`,
    );
  });
});

describe('payment amount', () => {
  it.each([0.01, 1, 19.99, 0.29, 1.1, 123456.78, 113298.68, 999999.99, 0.07, 4.35, 1e2])(
    'accepts %p',
    (amount) => {
      expect(() => addPayment(addBody({ amount }))).not.toThrow();
      expect(() => inlinePayment(pay({ amount }))).not.toThrow();
    },
  );

  it.each([
    [0, 'amount must be >= 0.01'],
    [-0.01, 'amount must be >= 0.01'],
    [-5, 'amount must be >= 0.01'],
    [0.001, 'amount must be >= 0.01'],
    [0.009, 'amount must be >= 0.01'],
    [1e-9, 'amount must be >= 0.01'],
    [1000000, 'amount must be <= 999999.99'],
    [999999.991, 'amount must be <= 999999.99'],
    [1.005, 'amount must have at most 2 decimal places'],
    [0.011, 'amount must have at most 2 decimal places'],
    [19.999, 'amount must have at most 2 decimal places'],
    [19.990000001, 'amount must have at most 2 decimal places'],
    [1.000000001, 'amount must have at most 2 decimal places'],
    ['19.99', 'amount must be number'],
    [null, 'amount must be number'],
  ])('refuses %p: %p', (amount, message) => {
    expect(messageOf(() => addPayment(addBody({ amount })))).toBe(message);
  });

  it('names the payment of a group create whose amount is too small or too precise', () => {
    expect(messageOf(() => createGroup(group({ payments: [pay(), pay({ amount: 1e-9 })] })))).toBe(
      'payments[1].amount must be >= 0.01',
    );
    expect(messageOf(() => createGroup(group({ payments: [pay({ amount: 19.990000001 })] })))).toBe(
      'payments[0].amount must have at most 2 decimal places',
    );
  });

  it('applies the same rules to fee amounts, which may be 0', () => {
    expect(() => addPayment(addBody({ fees: [{ name: 'waived', amount: 0 }] }))).not.toThrow();
    expect(() => addPayment(addBody({ fees: [{ name: 'big', amount: 113298.68 }] }))).not.toThrow();
    expect(messageOf(() => addPayment(addBody({ fees: [{ name: 'f', amount: 1e-9 }] })))).toBe(
      'fees[0].amount must have at most 2 decimal places',
    );
    expect(messageOf(() => addPayment(addBody({ fees: [{ name: 'f', amount: -1 }] })))).toBe(
      'fees[0].amount must be >= 0',
    );
    expect(
      messageOf(() =>
        addPayment(
          addBody({
            fees: [
              { name: 'a', amount: 1 },
              { name: 'f', amount: 0.001 },
            ],
          }),
        ),
      ),
    ).toBe('fees[1].amount must have at most 2 decimal places');
    expect(messageOf(() => addPayment(addBody({ fees: [{ amount: 1 }] })))).toBe('fees[0].name is required');
  });
});

describe('add payment schema', () => {
  it.each(['paymentGroupId', 'profileId', 'amount'])('missing %s → "%s is required"', (f) => {
    const body: Record<string, unknown> = addBody();
    delete body[f];
    expect(messageOf(() => addPayment(body))).toBe(`${f} is required`);
  });

  it.each(['payor1', 'payor1/', '/method1', 'a/b/c', 'a b/c', 'a/b c', 'payör/m'])(
    'refuses profileId %p with "must be of the form"',
    (profileId) => {
      const message = messageOf(() => addPayment(addBody({ profileId })));
      expect(message).toContain('must be of the form');
      expect(message).toBe('profileId must be of the form {payorId}/{savedPaymentMethodId}');
    },
  );

  it.each(['payor1/method1', 'A_b-9/Z_z-0', `${'p'.repeat(64)}/${'m'.repeat(64)}`])(
    'accepts profileId %p',
    (profileId) => {
      expect(() => addPayment(addBody({ profileId }))).not.toThrow();
    },
  );

  it('refuses a malformed paymentGroupId', () => {
    expect(messageOf(() => addPayment(addBody({ paymentGroupId: 'not-a-uuid' })))).toBe(
      'paymentGroupId must be a valid uuid',
    );
  });

  it('refuses unknown and output-only fields', () => {
    expect(messageOf(() => addPayment(addBody({ paymentId: PAYMENT_ID })))).toBe(
      'paymentId is not a known field',
    );
    expect(messageOf(() => addPayment(addBody({ authResponse: null })))).toBe(
      'authResponse is not a known field',
    );
  });

  it('bounds orderId and custom attributes', () => {
    expect(messageOf(() => addPayment(addBody({ orderId: '' })))).toBe(
      'orderId must NOT have fewer than 1 characters',
    );
    expect(messageOf(() => addPayment(addBody({ orderId: 'x'.repeat(101) })))).toBe(
      'orderId must NOT have more than 100 characters',
    );
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
    expect(messageOf(() => addPayment(addBody({ customAttributes: many })))).toBe(
      'customAttributes must NOT have more than 50 properties',
    );
    expect(messageOf(() => addPayment(addBody({ customAttributes: { x: { nested: 1 } } })))).toMatch(
      /^customAttributes\.x /,
    );
  });
});

describe('update payment schema', () => {
  const body = (over: Record<string, unknown> = {}) => ({ paymentId: PAYMENT_ID, ...addBody(), ...over });

  it('accepts a full body', () => {
    expect(() => updatePayment(body({ sendPaymentScheduledNotification: true }))).not.toThrow();
  });

  it.each(['paymentId', 'paymentGroupId', 'profileId', 'amount'])('missing %s → "%s is required"', (f) => {
    const b: Record<string, unknown> = body();
    delete b[f];
    expect(messageOf(() => updatePayment(b))).toBe(`${f} is required`);
  });

  it('refuses a malformed paymentId', () => {
    expect(messageOf(() => updatePayment(body({ paymentId: '123' })))).toBe('paymentId must be a valid uuid');
  });
});

describe('update group schema', () => {
  it('accepts an empty body and any subset of settings', () => {
    expect(() => updateGroup({})).not.toThrow();
    expect(() => updateGroup({ scheduleHour: 5 })).not.toThrow();
    expect(() =>
      updateGroup({ paymentGroupId: GROUP_ID, servicePayId: '23500001', locationId: 0 }),
    ).not.toThrow();
  });

  it('refuses payments, totals and unknown fields', () => {
    expect(messageOf(() => updateGroup({ payments: [] }))).toBe('payments is not a known field');
    expect(messageOf(() => updateGroup({ totalAmount: 1 }))).toBe('totalAmount is not a known field');
    expect(messageOf(() => updateGroup({ status: 'processed' }))).toBe('status is not a known field');
  });

  it('applies the same field rules as create', () => {
    expect(messageOf(() => updateGroup({ scheduleDate: '2026-02-30' }))).toBe(
      'scheduleDate must be a valid date (yyyy-MM-dd)',
    );
    expect(messageOf(() => updateGroup({ scheduleHour: 24 }))).toBe('scheduleHour must be <= 23');
    expect(messageOf(() => updateGroup({ transactionInitiator: 'x' }))).toBe(
      'transactionInitiator must be one of Merchant, Consumer',
    );
  });
});

describe('list query schema', () => {
  it('accepts no parameters and all of them', () => {
    expect(() => listQuery({})).not.toThrow();
    expect(() =>
      listQuery({ date: '2026-06-01', time: '23', locationID: '12', pageNumber: '3', pageSize: '500' }),
    ).not.toThrow();
  });

  it.each([
    [{ time: 'x' }, 'time must be an integer hour 0-23'],
    [{ time: '-1' }, 'time must be an integer hour 0-23'],
    [{ time: '123' }, 'time must be an integer hour 0-23'],
    [{ time: '1.5' }, 'time must be an integer hour 0-23'],
    [{ locationID: 'abc' }, 'locationID must be an integer >= 0'],
    [{ pageNumber: '-1' }, 'pageNumber must be an integer 1-1000000'],
    [{ pageSize: '5000' }, 'pageSize must be an integer 1-500'],
    [{ pageSize: '' }, 'pageSize must be an integer 1-500'],
    [{ date: '2026-02-30' }, 'date must be a valid date (yyyy-MM-dd)'],
    [{ date: 'today' }, 'date must be a valid date (yyyy-MM-dd)'],
    [{ page: '1' }, 'query parameter page is not known'],
    [{ locationId: '1' }, 'query parameter locationId is not known'],
  ])('refuses %p: %p', (query, message) => {
    expect(messageOf(() => listQuery(query))).toBe(message);
  });
});

describe('customAttributes numbers DynamoDB keeps exactly', () => {
  const parse = validator<unknown>(addPaymentSchema);
  const body = (n: number) => ({
    paymentGroupId: '0190f0a0-0000-7000-8000-000000000000',
    profileId: 'a/b',
    amount: 1,
    customAttributes: { n },
  });
  it.each([1e16, -1e16, 1e-200, 0.1234567])('refuses %p with 400 naming the field', (n) => {
    expect(() => parse(body(n))).toThrow(
      /customAttributes\.n must be a string .*a number \(\|n\| <= 1e15, up to 6 decimals, no card number\)/,
    );
  });
  it.each([0, 42, -7.5, 123456.123456, 1e15])('accepts %p', (n) => {
    expect(() => parse(body(n))).not.toThrow();
  });
});
