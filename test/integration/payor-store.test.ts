/** The payor store against DynamoDB Local: uniqueness, the method limit and the default under races. */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Payor, SavedMethod } from '#domain/payors';
import { BadRequestError, NotFoundError, ServiceUnavailableError } from '#shared/errors';
import { keys } from '#store/keys';
import { MAX_METHODS_PER_PAYOR } from '#contract/limits';
import { reloadConfigForTests } from '#shared/config';
import { DynamoMethodStore } from '#store/methods';
import { DynamoPayorStore } from '#store/payors';
import {
  addMethod,
  updateMethod,
  changePayor,
  DuplicateCustomerAccountIdError,
  requirePayor,
  savePayor,
} from '#core/payors';
import { deleteMethod as deleteSavedMethod, deletePayor } from '#core/method-deletion';
import { createTestTable, type TestTable } from '#support/ddb';
import { makeMethod, makePayor, nameOf, settle } from '#support/fixtures/index';

let table: TestTable;
let store: DynamoPayorStore;
let methodStore: DynamoMethodStore;
const MERCHANT = '32350000001';

beforeAll(async () => {
  table = await createTestTable();
  // The deletions run on the container's stores: this table.
  process.env.TABLE_NAME = table.tableName;
  reloadConfigForTests();
  store = new DynamoPayorStore(table.db, table.tableName);
  methodStore = new DynamoMethodStore(table.db, table.tableName);
});
afterAll(() => table.drop());

/** Every item of a payor's partition, as stored. */
async function partition(payorId: string) {
  const out = await table.db.send(
    new QueryCommand({
      TableName: table.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.payor(payorId).pk },
      ConsistentRead: true,
    }),
  );
  const items = out.Items ?? [];
  return {
    items,
    payor: items.find((i) => i.entity === 'payor') as (Payor & Record<string, unknown>) | undefined,
    methods: items.filter((i) => i.entity === 'method') as (SavedMethod & Record<string, unknown>)[],
  };
}

async function customerItem(customerAccountId: string, merchantId = MERCHANT) {
  const { Item } = await table.db.send(
    new GetCommand({
      TableName: table.tableName,
      Key: keys.customer(merchantId, customerAccountId),
      ConsistentRead: true,
    }),
  );
  return Item;
}

async function stored(merchantId = MERCHANT, extra: Partial<Payor> = {}) {
  const made = makePayor(merchantId, extra);
  await store.create(made.payor, made.method);
  return made;
}

/** The payor's invariants, read from the raw items. */
async function expectConsistent(payorId: string) {
  const { payor, methods } = await partition(payorId);
  expect(payor).toBeDefined();
  expect(payor!.methodCount).toBe(methods.length);
  expect(methods.length).toBeGreaterThanOrEqual(1);
  expect(methods.length).toBeLessThanOrEqual(MAX_METHODS_PER_PAYOR);
  expect(methods.map((m) => m.savedPaymentMethodId)).toContain(payor!.defaultPaymentMethodId);
  return { payor: payor!, methods };
}

/** The delete-method handler's call (no payment uses these methods). */
const deleteMethod = (payorId: string, methodId: string) =>
  deleteSavedMethod(payorId, methodId, MERCHANT, undefined, new Date());

describe('customerAccountId is unique per merchant', () => {
  test('a second payor with the same customerAccountId is refused with a 400', async () => {
    const first = await stored(MERCHANT, { customerAccountId: 'cust-dup-1' });
    const second = makePayor(MERCHANT, { customerAccountId: 'cust-dup-1' });
    const refusal = await savePayor(second.payor, second.method, store).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(DuplicateCustomerAccountIdError);
    expect((refusal as BadRequestError).status).toBe(400);
    expect((await customerItem('cust-dup-1'))?.payorId).toBe(first.payor.payorId);
    expect((await partition(second.payor.payorId)).items).toHaveLength(0);
    // Another merchant may use the same customerAccountId.
    await expect(stored('32350000002', { customerAccountId: 'cust-dup-1' })).resolves.toBeDefined();
  });

  test('of 10 concurrent creates with one customerAccountId exactly one succeeds', async () => {
    const candidates = Array.from({ length: 10 }, () =>
      makePayor(MERCHANT, { customerAccountId: 'cust-race-1' }),
    );
    const outcomes = await Promise.allSettled(candidates.map((c) => savePayor(c.payor, c.method, store)));
    const winners = candidates.filter((_, i) => outcomes[i]!.status === 'fulfilled');
    expect(winners).toHaveLength(1);
    const reasons = outcomes.filter((o) => o.status === 'rejected').map((o) => nameOf(o.reason));
    expect(reasons).toEqual(Array(9).fill('DuplicateCustomerAccountIdError'));
    expect((await customerItem('cust-race-1'))?.payorId).toBe(winners[0]!.payor.payorId);
    for (const loser of candidates.filter((c) => c !== winners[0])) {
      expect((await partition(loser.payor.payorId)).items).toHaveLength(0);
    }
  });

  test('moving a customerAccountId frees the old one', async () => {
    const { payor } = await stored(MERCHANT, { customerAccountId: 'cust-move-old' });
    const next = {
      ...payor,
      customerAccountId: 'cust-move-new',
      lastUpdated: new Date(Date.now() + 1).toISOString(),
    };
    expect(await changePayor(payor, next, [], store)).toBe(true);
    expect(await customerItem('cust-move-old')).toBeUndefined();
    expect((await customerItem('cust-move-new'))?.payorId).toBe(payor.payorId);
    expect(await store.payorIdByCustomer(MERCHANT, 'cust-move-new')).toBe(payor.payorId);
    // The old id can be taken by another payor; the new one cannot.
    const other = await stored(MERCHANT, { customerAccountId: 'cust-move-old' });
    expect((await customerItem('cust-move-old'))?.payorId).toBe(other.payor.payorId);
    const third = makePayor(MERCHANT, { customerAccountId: 'cust-move-new' });
    await expect(savePayor(third.payor, third.method, store)).rejects.toBeInstanceOf(
      DuplicateCustomerAccountIdError,
    );
    // A stale update (payor changed since read) is refused and changes nothing.
    expect(await changePayor(payor, { ...payor, customerAccountId: 'cust-move-stale' }, [], store)).toBe(
      false,
    );
    expect(await customerItem('cust-move-stale')).toBeUndefined();
  });

  test('an update racing a create for the same new customerAccountId leaves exactly one owner', async () => {
    const rounds = await Promise.all(
      Array.from({ length: 6 }, async (_, round) => {
        const { payor } = await stored(MERCHANT, { customerAccountId: `cust-from-${round}` });
        const target = `cust-to-${round}`;
        const rival = makePayor(MERCHANT, { customerAccountId: target });
        const next = {
          ...payor,
          customerAccountId: target,
          lastUpdated: new Date(Date.now() + 1).toISOString(),
        };
        const [updated, created] = await Promise.allSettled([
          changePayor(payor, next, [], store),
          savePayor(rival.payor, rival.method, store),
        ]);
        return { round, payor, rival, updated, created, target };
      }),
    );
    for (const { round, payor, rival, updated, created, target } of rounds) {
      const movedOk = updated.status === 'fulfilled' && updated.value === true;
      const createdOk = created.status === 'fulfilled';
      expect([movedOk, createdOk].filter(Boolean)).toHaveLength(1);
      const owner = (await customerItem(target))?.payorId;
      const updatedPayor = (await partition(payor.payorId)).payor!;
      if (movedOk) {
        expect(owner).toBe(payor.payorId);
        expect(updatedPayor.customerAccountId).toBe(target);
        expect(await customerItem(`cust-from-${round}`)).toBeUndefined();
        expect((await partition(rival.payor.payorId)).items).toHaveLength(0);
        expect(nameOf((created as PromiseRejectedResult).reason)).toBe('DuplicateCustomerAccountIdError');
      } else {
        expect(owner).toBe(rival.payor.payorId);
        expect(updatedPayor.customerAccountId).toBe(`cust-from-${round}`);
        expect((await customerItem(`cust-from-${round}`))?.payorId).toBe(payor.payorId);
        expect(nameOf((updated as PromiseRejectedResult).reason)).toBe('DuplicateCustomerAccountIdError');
      }
    }
  });
});

describe('saved methods', () => {
  test(`addMethod stops at ${MAX_METHODS_PER_PAYOR} methods`, async () => {
    const { payor } = await stored();
    for (let i = 1; i < MAX_METHODS_PER_PAYOR; i++) {
      await addMethod(makeMethod(payor.payorId, MERCHANT), false, new Date(), methodStore);
    }
    const extra = makeMethod(payor.payorId, MERCHANT);
    const refusal = await addMethod(extra, false, new Date(), methodStore).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(BadRequestError);
    expect((refusal as Error).message).toMatch(/at most 20/);
    const { methods } = await expectConsistent(payor.payorId);
    expect(methods).toHaveLength(MAX_METHODS_PER_PAYOR);
    expect(methods.map((m) => m.savedPaymentMethodId)).not.toContain(extra.savedPaymentMethodId);
  });

  test('concurrent adds never take a payor beyond the limit', async () => {
    const { payor } = await stored();
    const adds = Array.from({ length: 30 }, () =>
      addMethod(makeMethod(payor.payorId, MERCHANT), false, new Date(), methodStore),
    );
    const { ok, errors } = await settle(adds);
    const { methods } = await expectConsistent(payor.payorId);
    expect(methods).toHaveLength(1 + ok.length);
    // DynamoDB Local serializes the transactions: every add that fits succeeds, the rest are 400.
    expect(ok).toHaveLength(MAX_METHODS_PER_PAYOR - 1);
    expect(errors.map(nameOf)).toEqual(Array(30 - (MAX_METHODS_PER_PAYOR - 1)).fill('BadRequestError'));
    // The original default is unchanged: none of the adds asked to be default.
    expect((await partition(payor.payorId)).payor!.defaultPaymentMethodId).toBe(payor.defaultPaymentMethodId);
    // Topping up sequentially reaches exactly the limit, then refuses.
    for (let i = methods.length; i < MAX_METHODS_PER_PAYOR; i++) {
      await addMethod(makeMethod(payor.payorId, MERCHANT), false, new Date(), methodStore);
    }
    await expect(
      addMethod(makeMethod(payor.payorId, MERCHANT), false, new Date(), methodStore),
    ).rejects.toBeInstanceOf(BadRequestError);
    expect((await expectConsistent(payor.payorId)).methods).toHaveLength(MAX_METHODS_PER_PAYOR);
  });

  test('addMethod on a payor of another merchant or a missing payor is 404', async () => {
    const { payor } = await stored();
    await expect(
      addMethod(makeMethod(payor.payorId, '32350000002'), false, new Date(), methodStore),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(
      addMethod(makeMethod('no-such-payor', MERCHANT), false, new Date(), methodStore),
    ).rejects.toBeInstanceOf(NotFoundError);
    expect((await expectConsistent(payor.payorId)).methods).toHaveLength(1);
  });

  test('racing setAsDefault adds and updates leave one default naming an existing method', async () => {
    const { payor, method } = await stored();
    const existing = [method];
    for (let i = 0; i < 4; i++) {
      const m = makeMethod(payor.payorId, MERCHANT);
      await addMethod(m, false, new Date(), methodStore);
      existing.push(m);
    }
    const added = Array.from({ length: 10 }, () => makeMethod(payor.payorId, MERCHANT));
    const work: Promise<unknown>[] = [
      ...added.map((m) => addMethod(m, true, new Date(), methodStore)),
      ...existing.map((m) =>
        updateMethod(
          m.payorId,
          m.savedPaymentMethodId,
          MERCHANT,
          { setAsDefault: true },
          new Date(),
          methodStore,
        ),
      ),
    ];
    const { ok } = await settle(work);
    expect(ok.length).toBeGreaterThan(0);
    const { payor: after, methods } = await expectConsistent(payor.payorId);
    // The default is one of the methods that asked to be default (and is stored).
    const asked = [...added, ...existing].map((m) => m.savedPaymentMethodId);
    expect(asked).toContain(after.defaultPaymentMethodId);
    expect(methods.filter((m) => m.savedPaymentMethodId === after.defaultPaymentMethodId)).toHaveLength(1);
  });

  test('adding without setAsDefault keeps the default; updateMethod(setAsDefault) moves it', async () => {
    const { payor, method } = await stored();
    const second = makeMethod(payor.payorId, MERCHANT);
    await addMethod(second, false, new Date(), methodStore);
    expect((await partition(payor.payorId)).payor!.defaultPaymentMethodId).toBe(method.savedPaymentMethodId);
    await updateMethod(
      payor.payorId,
      second.savedPaymentMethodId,
      MERCHANT,
      { setAsDefault: true },
      new Date(),
      methodStore,
    );
    expect((await partition(payor.payorId)).payor!.defaultPaymentMethodId).toBe(second.savedPaymentMethodId);
    // Updating a method that does not exist is 404 and moves nothing.
    const ghost = makeMethod(payor.payorId, MERCHANT);
    await expect(
      updateMethod(
        payor.payorId,
        ghost.savedPaymentMethodId,
        MERCHANT,
        { setAsDefault: true },
        new Date(),
        methodStore,
      ),
    ).rejects.toBeInstanceOf(NotFoundError);
    expect((await expectConsistent(payor.payorId)).payor.defaultPaymentMethodId).toBe(
      second.savedPaymentMethodId,
    );
  });

  test('deleting the default makes the oldest other method default; the last one is kept', async () => {
    const { payor, method } = await stored();
    const second = makeMethod(payor.payorId, MERCHANT, 'ok', new Date(Date.now() + 1000));
    await addMethod(second, false, new Date(), methodStore);
    await deleteMethod(payor.payorId, method.savedPaymentMethodId);
    const { payor: after, methods } = await expectConsistent(payor.payorId);
    expect(after.defaultPaymentMethodId).toBe(second.savedPaymentMethodId);
    expect(methods).toHaveLength(1);
    await expect(deleteMethod(payor.payorId, second.savedPaymentMethodId)).rejects.toBeInstanceOf(
      BadRequestError,
    );
    expect((await expectConsistent(payor.payorId)).methods).toHaveLength(1);
  });

  test('deleting every method concurrently leaves exactly one, and it is the default', async () => {
    for (let round = 0; round < 3; round++) {
      const { payor, method } = await stored();
      const all = [method];
      for (let i = 0; i < 5; i++) {
        const m = makeMethod(payor.payorId, MERCHANT, 'ok', new Date(Date.now() + (i + 1) * 1000));
        await addMethod(m, false, new Date(), methodStore);
        all.push(m);
      }
      const { ok, errors } = await settle(
        all.map((m) => deleteMethod(payor.payorId, m.savedPaymentMethodId)),
      );
      for (const error of errors) {
        expect(
          [BadRequestError, NotFoundError, ServiceUnavailableError].some((type) => error instanceof type),
        ).toBe(true);
      }
      const { payor: after, methods } = await expectConsistent(payor.payorId);
      expect(methods).toHaveLength(1);
      expect(after.defaultPaymentMethodId).toBe(methods[0]!.savedPaymentMethodId);
      expect(ok.length).toBeLessThanOrEqual(5);
    }
  });

  test('deletes racing with default moves never leave a dangling default', async () => {
    const { payor, method } = await stored();
    const all = [method];
    for (let i = 0; i < 7; i++) {
      const m = makeMethod(payor.payorId, MERCHANT, 'ok', new Date(Date.now() + (i + 1) * 1000));
      await addMethod(m, false, new Date(), methodStore);
      all.push(m);
    }
    await settle<unknown>([
      ...all.map((m) => deleteMethod(payor.payorId, m.savedPaymentMethodId)),
      ...all
        .slice(4)
        .map((m) =>
          updateMethod(
            m.payorId,
            m.savedPaymentMethodId,
            MERCHANT,
            { setAsDefault: true },
            new Date(),
            methodStore,
          ),
        ),
    ]);
    await expectConsistent(payor.payorId);
  });
});

test('deleting a payor removes the payor, its methods and its customerAccountId in one go', async () => {
  const { payor } = await stored(MERCHANT, { customerAccountId: 'cust-delete-1' });
  for (let i = 0; i < 3; i++)
    await addMethod(makeMethod(payor.payorId, MERCHANT), false, new Date(), methodStore);
  const found = await requirePayor(payor.payorId, MERCHANT, store);
  expect(found.methods).toHaveLength(4);
  await deletePayor(payor.payorId, MERCHANT, new Date());
  expect((await partition(payor.payorId)).items).toHaveLength(0);
  expect(await customerItem('cust-delete-1')).toBeUndefined();
  expect(await store.find(payor.payorId, MERCHANT)).toBeUndefined();
  // The customerAccountId is free again.
  await expect(stored(MERCHANT, { customerAccountId: 'cust-delete-1' })).resolves.toBeDefined();
});

test('a payor is found only under its own merchant', async () => {
  const { payor, method } = await stored();
  expect((await store.find(payor.payorId, MERCHANT))?.methods).toEqual([method]);
  expect(await methodStore.findMethod(payor.payorId, method.savedPaymentMethodId, MERCHANT)).toEqual(method);
  expect(await store.find(payor.payorId, '32350000002')).toBeUndefined();
  expect(
    await methodStore.findMethod(payor.payorId, method.savedPaymentMethodId, '32350000002'),
  ).toBeUndefined();
});
