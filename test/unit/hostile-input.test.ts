/**
 * Issue 9, the functions' side: each defect the attack found, named after it, through the
 * handlers (the in-memory DynamoDB mock) or the request schemas.
 */
import '#support/handlers/env';
import { createGroupSchema } from '#contract/schemas/groups';
import { addPaymentSchema } from '#contract/schemas/payments';
import { createPayorSchema, customerDataSchema, updateMethodSchema } from '#contract/schemas/payors';
import { validator } from '#support/validators-by-schema';
import { handler as getGroup } from '#lambdas/groups/get-group';
import { handler as listGroups } from '#lambdas/groups/list-groups';
import { handler as createGroup } from '#lambdas/groups/create-group';
import { handler as addPayment } from '#lambdas/payments/add-payment';
import {
  apiEvent,
  expectError,
  FUTURE_DATE,
  GROUP_ID,
  groupPath,
  invoke,
  lambdaContext,
  MID,
  resetDb,
} from '#support/handlers/invoke';

beforeEach(() => resetDb());

const OBJECT_PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);
const group = { servicePayId: MID, scheduleDate: FUTURE_DATE, scheduleHour: 9, locationId: 1 };
const pay = { profileId: 'payor1/method1', amount: 10 };
/** JSON text with `name` as an own key (an object literal cannot hold `__proto__` as data). */
const withKey = (name: string) => JSON.parse(`{${JSON.stringify(name)}: "x"}`) as Record<string, string>;

describe('prototype keys in customAttributes/customerData give 500', () => {
  it.each(OBJECT_PROTOTYPE_NAMES)(
    'create group refuses the customAttributes key %s with a 400',
    async (name) => {
      const response = await invoke(createGroup, {
        method: 'POST',
        body: { ...group, payments: [{ ...pay, customAttributes: withKey(name) }] },
      });
      expect(expectError(response, 400)).toBe(`payments[0].customAttributes.${name} is a reserved name`);
    },
  );

  it('add payment refuses constructor in customAttributes', async () => {
    const response = await invoke(addPayment, {
      method: 'POST',
      path: '/rest/merchants/x/payments',
      body: { paymentGroupId: GROUP_ID, ...pay, customAttributes: withKey('constructor') },
    });
    expect(expectError(response, 400)).toBe('customAttributes.constructor is a reserved name');
  });

  it('payor and method schemas refuse __proto__ in customerData', () => {
    const proto = withKey('__proto__');
    expect(() => validator(customerDataSchema)(proto)).toThrow('__proto__ is a reserved name');
    expect(() => validator(createPayorSchema)({ paymentMethod: {}, customerData: proto })).toThrow(
      'customerData.__proto__ is a reserved name',
    );
    expect(() => validator(updateMethodSchema)({ customerData: proto })).toThrow(
      'customerData.__proto__ is a reserved name',
    );
  });
});

describe('huge page numbers give 500 on the group lists', () => {
  it('refuses pageNumber × pageSize past 2^31−1 with a 400 naming pageNumber', async () => {
    const response = await invoke(listGroups, { query: { pageSize: '500', pageNumber: '4294968' } });
    expect(expectError(response, 400)).toMatch(/^pageNumber must be/);
  });
});

describe('CR/LF and other control characters accepted in free text', () => {
  it.each(['a\r\nBcc: x@evil.example', 'tab\there', 'nul\u0000', 'del\u007f'])(
    'refuses the orderId %j',
    (orderId) => {
      expect(() => validator(addPaymentSchema)({ paymentGroupId: GROUP_ID, ...pay, orderId })).toThrow(
        'orderId must not contain control characters',
      );
    },
  );

  it('refuses control characters in customerData values and fee names', () => {
    expect(() => validator(customerDataSchema)({ note: 'a\nb' })).toThrow(
      'note must not contain control characters',
    );
    expect(() =>
      validator(createGroupSchema)({ ...group, payments: [{ ...pay, fees: [{ name: 'x\ry', amount: 1 }] }] }),
    ).toThrow('payments[0].fees[0].name must not contain control characters');
  });

  it('accepts other unicode text', () => {
    expect(() =>
      validator(addPaymentSchema)({ paymentGroupId: GROUP_ID, ...pay, orderId: 'Übung № 5 — ok' }),
    ).not.toThrow();
  });
});

describe('unknown query parameters ignored on non-list routes', () => {
  it('GetGroup refuses an unknown query name with a 400 naming it', async () => {
    const response = await invoke(getGroup, { pathParameters: groupPath(), query: { unknownName: '1' } });
    expect(expectError(response, 400)).toBe('query parameter unknownName is not known');
  });

  it('refuses an Object.prototype name as a query name', async () => {
    const response = await invoke(getGroup, { pathParameters: groupPath(), query: { constructor: '1' } });
    expect(expectError(response, 400)).toBe('query parameter constructor is not known');
  });
});

describe('one rule for decimals (0.30000000000000004 accepted as 0.30)', () => {
  const add = validator(addPaymentSchema);
  it.each([0.1 + 0.2, Number('10.000000000000001'), 1.234, 1.001, 5.0000001, 123456.789])(
    'refuses %p',
    (amount) => {
      expect(() => add({ paymentGroupId: GROUP_ID, ...pay, amount })).toThrow(
        'amount must have at most 2 decimal places',
      );
    },
  );
  it.each([0.3, 10, 19.99, 999999.99, 0.01, 1.1])('accepts %p', (amount) => {
    expect(() => add({ paymentGroupId: GROUP_ID, ...pay, amount })).not.toThrow();
  });
});

describe('validation errors list every problem', () => {
  it('a 400 for an invalid body keeps the first problem as message and lists all in errors[]', async () => {
    const response = await invoke(createGroup, {
      method: 'POST',
      body: {
        ...group,
        scheduleHour: 24,
        color: 'red',
        payments: [pay, { ...pay, amount: 1.234 }, { amount: 5 }],
      },
    });
    expect(response.status).toBe(400);
    const { errors } = response.body as { errors: { field: string; message: string }[] };
    expect(errors.map((e) => e.field).sort()).toEqual(
      ['color', 'payments[1].amount', 'payments[2].profileId', 'scheduleHour'].sort(),
    );
    expect(errors).toContainEqual({
      field: 'payments[1].amount',
      message: 'payments[1].amount must have at most 2 decimal places',
    });
    expect(response.body.message).toBe(errors[0]!.message);
    expect(expectError(response, 400)).toBe(errors[0]!.message);
  });

  it('a query names every unknown parameter', async () => {
    const response = await invoke(getGroup, { pathParameters: groupPath(), query: { a: '1', b: '2' } });
    expect(response.body.errors).toEqual([
      { field: 'a', message: 'query parameter a is not known' },
      { field: 'b', message: 'query parameter b is not known' },
    ]);
  });

  it('an error the schema did not find has no errors[]', async () => {
    const response = await invoke(getGroup, { pathParameters: groupPath() });
    expect(response.status).toBe(404);
    expect(response.body).not.toHaveProperty('errors');
  });
});

describe("a 400 echoed what the request sent, several times over, past Lambda's 6 MB answer (a 502)", () => {
  /** Lambda's limit on a synchronous answer: the proxy result as JSON. */
  const LAMBDA_RESPONSE_LIMIT = 6 * 1024 * 1024;
  const post = (rawBody: string) =>
    (createGroup as (e: unknown, c: unknown) => Promise<{ statusCode: number; body: string }>)(
      apiEvent({ method: 'POST', pathParameters: { MID }, rawBody }),
      lambdaContext,
    );

  it('defect: an unknown body key of 2.2 MB answered a 400 of over 6 MB: the key is echoed clipped', async () => {
    const key = 'a'.repeat(2_200_000);
    const result = await post(JSON.stringify({ ...group, [key]: 1 }));
    expect(result.statusCode).toBe(400);
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThan(10_000);
    const body = JSON.parse(result.body) as { message: string; errors: { field: string }[] };
    expect(body.errors[0]!.field).toMatch(/^a{2000}…$/);
  });

  it('defect: 150 lone surrogates under one 40 KB key (a 42 KB request) answered a 400 of about 12 MB: at most 100 problems, each clipped', async () => {
    const key = 'k'.repeat(40_000);
    const raw = `{"servicePayId":"${MID}","${key}":[${Array(150).fill('"\\ud800"').join(',')}]}`;
    const result = await post(raw);
    expect(result.statusCode).toBe(400);
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThan(LAMBDA_RESPONSE_LIMIT / 6);
    expect((JSON.parse(result.body) as { errors: unknown[] }).errors.length).toBeLessThanOrEqual(100);
  });
});
