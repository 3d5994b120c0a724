/**
 * Races on one payor (issue 25, defects 2 and 3): concurrent edits of saved methods, payor updates
 * racing method changes and default switches, customerAccountId uniqueness, and request
 * idempotency claims, with at least 8 callers at once against DynamoDB Local. Every answer is
 * asserted, and the end state must be what the answers said.
 */
import {
  addMethod,
  DuplicateCustomerAccountIdError,
  requirePayor,
  savePayor,
  updateMethod,
  updatePayor,
} from '#core/payors';
import { idempotent } from '#core/idempotency';
import { deleteMethod } from '#core/method-deletion';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { ConflictError } from '#shared/errors';
import { newId } from '#shared/ids';
import { keys } from '#store/keys';
import { DynamoPayorStore } from '#store/payors';
import { address, makeMethod, makePayor } from '#support/fixtures/index';
import { createTestTable, type TestTable } from '#support/ddb';
import { injectFaults, type Injection } from '#support/ddb-faults';

let table: TestTable;
let faults: Injection | undefined;
const MID = '32350000001';
const YEAR = new Date().getUTCFullYear();

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  reloadConfigForTests();
});
afterEach(() => {
  faults?.remove();
  faults = undefined;
});
afterAll(() => table.drop());

async function storedPayor(methods = 1) {
  const { payor, method } = makePayor(MID);
  await new DynamoPayorStore(table.db, table.tableName).create(payor, method);
  const more = [];
  for (let i = 1; i < methods; i++) {
    const m = makeMethod(payor.payorId, MID);
    await addMethod(m, false, new Date());
    more.push(m);
  }
  return { payor, methods: [method, ...more] };
}

const settled = <T>(calls: (() => Promise<T>)[]) => Promise.allSettled(calls.map((call) => call()));
const outcome = (r: PromiseSettledResult<unknown>) =>
  r.status === 'rejected' ? `${(r.reason as Error).name}: ${(r.reason as Error).message}` : 'fulfilled';

describe('concurrent edits of saved methods', () => {
  test('concurrent edits of a saved method are never lost: expiry, billing address, customerData and default of two methods, 8 callers, all take effect', async () => {
    for (let round = 0; round < 3; round++) {
      const { payor, methods } = await storedPayor(2);
      const edits = methods.flatMap((m, i) => [
        { id: m.savedPaymentMethodId, input: { expiryMonth: 3 + i, expiryYear: YEAR + 3 } },
        {
          id: m.savedPaymentMethodId,
          input: { billingAddress: { ...address, line1: `${i} Edited Street` } },
        },
        { id: m.savedPaymentMethodId, input: { customerData: { edit: `method-${i}` } } },
        { id: m.savedPaymentMethodId, input: { setAsDefault: true as const } },
      ]);
      const results = await settled(
        edits.map(
          ({ id, input }) =>
            () =>
              updateMethod(payor.payorId, id, MID, input, new Date()),
        ),
      );
      expect(results.map(outcome)).toEqual(Array(8).fill('fulfilled'));
      const after = await requirePayor(payor.payorId, MID);
      for (const [i, m] of methods.entries()) {
        const stored = after.methods.find((x) => x.savedPaymentMethodId === m.savedPaymentMethodId)!;
        expect(stored).toMatchObject({
          expiryMonth: 3 + i,
          expiryYear: YEAR + 3,
          billingAddress: { line1: `${i} Edited Street` },
          customerData: { edit: `method-${i}` },
        });
      }
      expect(methods.map((m) => m.savedPaymentMethodId)).toContain(after.payor.defaultPaymentMethodId);
    }
  });

  test('concurrent edits of a saved method under stale reads (eventually consistent) all take effect', async () => {
    const { payor, methods } = await storedPayor(1);
    const m = methods[0]!;
    faults = await injectFaults(ddb(), table.tableName, {
      stale: [keys.method(payor.payorId, m.savedPaymentMethodId)],
    });
    await updateMethod(
      payor.payorId,
      m.savedPaymentMethodId,
      MID,
      { customerData: { first: 'edit' } },
      new Date(),
    );
    const inputs = [
      { expiryMonth: 1, expiryYear: YEAR + 4 },
      { billingAddress: { ...address, city: 'Shelbyville' } },
      { customerData: { second: 'edit' } },
      { setAsDefault: true as const },
      { billingAddress: { ...address, city: 'Shelbyville' } },
      { expiryMonth: 1, expiryYear: YEAR + 4 },
      { customerData: { second: 'edit' } },
      { setAsDefault: true as const },
    ];
    const results = await settled(
      inputs.map(
        (input) => () => updateMethod(payor.payorId, m.savedPaymentMethodId, MID, input, new Date()),
      ),
    );
    expect(results.map(outcome)).toEqual(Array(8).fill('fulfilled'));
    const stored = (await requirePayor(payor.payorId, MID)).methods[0]!;
    expect(stored).toMatchObject({
      expiryMonth: 1,
      expiryYear: YEAR + 4,
      billingAddress: { city: 'Shelbyville' },
      customerData: { second: 'edit' },
    });
  });
});

describe('payor updates racing method changes', () => {
  test('concurrent payor updates of different fields, method adds and default switches all take effect', async () => {
    const { payor, methods } = await storedPayor(2);
    const added = [makeMethod(payor.payorId, MID), makeMethod(payor.payorId, MID)];
    const results = await settled<unknown>([
      () => updatePayor(payor.payorId, MID, { email: 'new@example.com' }, new Date()),
      () => updatePayor(payor.payorId, MID, { sponsorKey: 'SPONSOR1' }, new Date()),
      () => updatePayor(payor.payorId, MID, { customerAccountType: 'family' }, new Date()),
      () => updatePayor(payor.payorId, MID, { customerData: { grade: '4' } }, new Date()),
      () => addMethod(added[0]!, false, new Date()),
      () => addMethod(added[1]!, true, new Date()),
      () =>
        updateMethod(
          payor.payorId,
          methods[1]!.savedPaymentMethodId,
          MID,
          { setAsDefault: true },
          new Date(),
        ),
      () =>
        updateMethod(
          payor.payorId,
          methods[0]!.savedPaymentMethodId,
          MID,
          { setAsDefault: true },
          new Date(),
        ),
    ]);
    expect(results.map(outcome)).toEqual(Array(8).fill('fulfilled'));
    const after = await requirePayor(payor.payorId, MID);
    expect(after.payor).toMatchObject({
      email: 'new@example.com',
      sponsorKey: 'SPONSOR1',
      customerAccountType: 'family',
      customerData: { grade: '4' },
      methodCount: 4,
    });
    expect(after.methods).toHaveLength(4);
    expect([added[1]!, ...methods].map((m) => m.savedPaymentMethodId)).toContain(
      after.payor.defaultPaymentMethodId,
    );
  });

  test('of 8 concurrent deletes and default switches, every answer is true and the payor keeps a default that exists', async () => {
    const { payor, methods } = await storedPayor(5);
    const ids = methods.map((m) => m.savedPaymentMethodId);
    const results = await settled<unknown>([
      ...ids.slice(0, 4).map((id) => () => deleteMethod(payor.payorId, id, MID, undefined, new Date())),
      ...ids
        .slice(1, 5)
        .map((id) => () => updateMethod(payor.payorId, id, MID, { setAsDefault: true }, new Date())),
    ]);
    // A switch to a method deleted meanwhile is a true 404; nothing else may fail.
    for (const [i, r] of results.entries()) {
      if (i < 4) expect(outcome(r)).toBe('fulfilled');
      else expect(outcome(r)).toMatch(/^fulfilled$|^MethodNotFoundError: saved payment method .* not found$/);
    }
    const after = await requirePayor(payor.payorId, MID);
    expect(after.methods.map((m) => m.savedPaymentMethodId)).toEqual([ids[4]]);
    expect(after.payor).toMatchObject({ methodCount: 1, defaultPaymentMethodId: ids[4] });
  });
});

describe('uniqueness and idempotency claims', () => {
  test('of 8 concurrent creates with one customerAccountId one wins and 7 answer that it belongs to another payor', async () => {
    const customerAccountId = `family-${newId()}`;
    const results = await settled(
      Array.from({ length: 8 }, () => () => {
        const { payor, method } = makePayor(MID, { customerAccountId });
        return savePayor(payor, method);
      }),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((x) => x.status === 'rejected')) {
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(DuplicateCustomerAccountIdError);
    }
  });

  test('8 concurrent requests with one idempotency key: one does the work, the others replay it or are told it is in progress', async () => {
    const ref = { merchantId: MID, scope: 'race', key: newId() };
    let runs = 0;
    const results = await settled(
      Array.from(
        { length: 8 },
        () => () =>
          idempotent(ref, { amount: 1 }, newId(), new Date(), async (id) => {
            runs++;
            await new Promise((resolve) => setTimeout(resolve, 20));
            return { status: 201, body: { id } };
          }),
      ),
    );
    expect(runs).toBe(1);
    const bodies = new Set<string>();
    for (const r of results) {
      if (r.status === 'fulfilled') bodies.add(JSON.stringify(r.value.body));
      else {
        expect(r.reason).toBeInstanceOf(ConflictError);
        expect((r.reason as Error).message).toBe(
          `a request with idempotencyKey ${ref.key} is still in progress; retry shortly`,
        );
      }
    }
    expect(bodies.size).toBe(1);
    // Another body with the same key is refused as such, whatever the timing.
    const other = await settled(
      Array.from(
        { length: 8 },
        () => () =>
          idempotent(ref, { amount: 2 }, newId(), new Date(), async () => ({ status: 201, body: {} })),
      ),
    );
    for (const r of other) {
      expect(outcome(r)).toBe(
        `ConflictError: idempotencyKey ${ref.key} was already used with a different request`,
      );
    }
  });
});
