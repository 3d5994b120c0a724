/**
 * Events (issue 18, item 1) against DynamoDB Local: every change a merchant cares about writes its
 * event in the same transaction, so an event exists exactly when its change does (none for a
 * refused or cancelled write), and each object's events count 1, 2, 3... without a gap, also
 * under concurrent changes.
 */
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { createGroup, deleteGroup, updateGroup } from '#core/groups';
import { addPayment, deletePayment, updatePayment } from '#core/payments';
import { deleteMethod, deletePayor } from '#core/method-deletion';
import {
  addMethod,
  DuplicateCustomerAccountIdError,
  savePayor,
  updateMethod,
  updatePayor,
} from '#core/payors';
import { refundSale, refundTransaction, voidSale, voidTransaction } from '#core/reversals';
import { runSale } from '#core/sale';
import { startProcessing } from '#core/processing';
import { completeGroup } from '#core/processing-run';
import type { EventType } from '#contract/events';
import type { ServiceEvent } from '#domain/events';
import { emptyTotals } from '#domain/processing';
import { useProcessor } from '#processor/index';
import { SandboxProcessor } from '#processor/sandbox';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { newId } from '#shared/ids';
import type { Merchant } from '#store/merchants';
import { eventStore } from '#store/events';
import { groupStore } from '#store/groups';
import { paymentStore } from '#store/payments';
import { transactionStore } from '#store/transactions';
import { createTestTable, type TestTable } from '#support/ddb';
import { injectFaults } from '#support/ddb-faults';
import { groupInput, makeMethod, makePayor } from '#support/fixtures/index';
import { saleRequest, storedProfile } from '#support/sales';

let table: TestTable;
const MERCHANT: Merchant = { merchantId: '32350000001', shortId: '23500001', name: 'Springfield Elementary' };
const MID = MERCHANT.merchantId;
const T0 = Date.now();
const SCHEDULE = { periodSeconds: 86_400, offsetSeconds: (Math.floor(T0 / 1000) + 43_200) % 86_400 };
const day = (ahead: number) => new Date(Date.now() + ahead * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  table = await createTestTable();
  Object.assign(process.env, {
    TABLE_NAME: table.tableName,
    SERVICE_STAGE: 'dev',
    STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:events-test',
    // No Step Functions here: a start fails, and the claim is released (announced too).
    AWS_ENDPOINT_URL_SFN: 'http://127.0.0.1:9',
  });
  reloadConfigForTests();
  useProcessor(new SandboxProcessor(ddb(), table.tableName, SCHEDULE));
});
afterAll(async () => {
  useProcessor(undefined);
  await table.drop();
});

/** The object's events, oldest first. */
async function eventsOf(objectId: string): Promise<ServiceEvent[]> {
  const { events } = await eventStore().page(MID, { objectId }, 500);
  return events.reverse();
}

const typesOf = (events: ServiceEvent[]) => events.map((e) => e.type);

/** The sequences count 1, 2, 3... without a gap or a repeat. */
function expectGapless(events: ServiceEvent[]): void {
  expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
  expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  for (const e of events)
    expect(e).toMatchObject({ merchantId: MID, id: expect.stringMatching(/^evt_[0-9a-f]{32}$/) });
}

async function aPayment(groupId: string, amount = 5) {
  const profileId = await storedProfile(table, MID);
  return addPayment(groupId, MERCHANT, { paymentGroupId: groupId, profileId, amount }, new Date());
}

describe("a group's life", () => {
  test('create, update, payments added, changed and deleted, then deleted: each announced with the group as written', async () => {
    const profileId = await storedProfile(table, MID);
    const { group } = await createGroup(
      groupInput({ servicePayId: MID, scheduleDate: day(2), payments: [{ profileId, amount: 10 }] }) as never,
      MERCHANT,
      new Date(),
    );
    const id = group.paymentGroupId;
    await updateGroup(id, MID, { scheduleHour: 20 }, new Date());
    const added = await aPayment(id, 7);
    await updatePayment(
      id,
      added.paymentId,
      MID,
      { paymentId: added.paymentId, paymentGroupId: id, profileId: added.profileId, amount: 8 },
      new Date(),
    );
    await deletePayment(id, added.paymentId, MID, new Date());
    await deleteGroup(id, MID, new Date());

    const groupEvents = await eventsOf(id);
    expect(typesOf(groupEvents)).toEqual(['group.created', 'group.updated', 'group.deleted']);
    expectGapless(groupEvents);
    expect(groupEvents[0]!.data).toMatchObject({ paymentGroupId: id, status: 'pending', paymentCount: 1 });
    expect(groupEvents[1]!.data).toMatchObject({ scheduleHour: 20 });
    // The group as written: its totals at the time (the added payment was deleted before).
    expect(groupEvents[2]!.data).toMatchObject({
      status: 'deleted',
      deleted: true,
      paymentCount: 1,
      totalAmount: 10,
    });

    const paymentEvents = await eventsOf(added.paymentId);
    expect(typesOf(paymentEvents)).toEqual(['payment.created', 'payment.updated', 'payment.deleted']);
    expectGapless(paymentEvents);
    expect(paymentEvents.map((e) => (e.data as { amount: number }).amount)).toEqual([7, 8, 8]);
    expect(paymentEvents[2]!.data).toMatchObject({ deleted: true });
  });

  test("defect: a PUT of a pending group's retryPolicy was answered and announced but not stored, so processing went on with the old policy (retrying after the merchant turned retries off)", async () => {
    const profileId = await storedProfile(table, MID);
    const { group } = await createGroup(
      groupInput({
        servicePayId: MID,
        scheduleDate: day(2),
        retryPolicy: { maxRetries: 3, intervalHours: 24 },
        payments: [{ profileId, amount: 10 }],
      }) as never,
      MERCHANT,
      new Date(),
    );
    const id = group.paymentGroupId;
    const answered = await updateGroup(id, MID, { retryPolicy: { maxRetries: 0 } } as never, new Date());
    expect(answered.retryPolicy).toMatchObject({ maxRetries: 0 });
    const [updated] = (await eventsOf(id)).filter((e) => e.type === 'group.updated');
    expect(updated!.data).toMatchObject({ retryPolicy: { maxRetries: 0 } });
    // What processing reads (BeginGroup: the stored group's policy).
    expect((await groupStore().getGroup(id))!.retryPolicy).toMatchObject({ maxRetries: 0 });
    // A later update that does not name the policy keeps it.
    await updateGroup(id, MID, { scheduleHour: 21 }, new Date());
    expect((await groupStore().getGroup(id))!.retryPolicy).toMatchObject({ maxRetries: 0 });
  });

  test('refused and ignored changes announce nothing: an update of a deleted group, a second delete', async () => {
    const { group } = await createGroup(
      groupInput({ servicePayId: MID, scheduleDate: day(2) }) as never,
      MERCHANT,
      new Date(),
    );
    await deleteGroup(group.paymentGroupId, MID, new Date());
    await expect(updateGroup(group.paymentGroupId, MID, { locationId: 3 }, new Date())).rejects.toThrow(
      'is deleted',
    );
    await deleteGroup(group.paymentGroupId, MID, new Date()); // a no-op
    expect(typesOf(await eventsOf(group.paymentGroupId))).toEqual(['group.created', 'group.deleted']);
  });

  test('a write cancelled with its event (a transaction conflict) leaves neither: the retry announces it once', async () => {
    const { group } = await createGroup(
      groupInput({ servicePayId: MID, scheduleDate: day(2) }) as never,
      MERCHANT,
      new Date(),
    );
    const faults = await injectFaults(ddb(), table.tableName, { conflictRate: 0.5, seed: 3 });
    try {
      for (let i = 0; i < 6; i++)
        await updateGroup(group.paymentGroupId, MID, { locationId: 100 + i }, new Date());
      expect(faults.conflicts).toBeGreaterThan(0);
    } finally {
      faults.remove();
    }
    const events = await eventsOf(group.paymentGroupId);
    expect(typesOf(events)).toEqual(['group.created', ...Array(6).fill('group.updated')]);
    expectGapless(events);
    expect(events.map((e) => (e.data as { locationId: number }).locationId).slice(1)).toEqual([
      100, 101, 102, 103, 104, 105,
    ]);
  });

  test('10 concurrent updates of one group (each loss means another write, so 10 attempts are enough): 11 events, sequences without a gap, the last one showing the group as stored', async () => {
    const { group } = await createGroup(
      groupInput({ servicePayId: MID, scheduleDate: day(2) }) as never,
      MERCHANT,
      new Date(),
    );
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        updateGroup(group.paymentGroupId, MID, { locationId: 200 + i }, new Date()),
      ),
    );
    const events = await eventsOf(group.paymentGroupId);
    expect(events).toHaveLength(11);
    expectGapless(events);
    const stored = await (await import('#core/groups')).requireGroup(group.paymentGroupId, MID);
    expect(events.at(-1)!.data).toMatchObject({ locationId: stored.locationId });
    expect(stored.eventSeq).toBe(11);
  });
});

describe('processing', () => {
  test('a claim announces group.processing; a start that fails releases it (group.updated, pending); completion announces group.processed once', async () => {
    const { group } = await createGroup(
      groupInput({ servicePayId: MID, scheduleDate: day(2) }) as never,
      MERCHANT,
      new Date(),
    );
    const started = await startProcessing({ ...group, merchantId: MID }, new Date());
    expect(started).toMatchObject({ error: 'processing could not be started; try again' });
    const stored = await (await import('#core/groups')).requireGroup(group.paymentGroupId, MID);
    await startProcessing({ ...stored, merchantId: MID }, new Date());
    const claimed = await (await import('#core/groups')).requireGroup(group.paymentGroupId, MID);
    expect(claimed.status).toBe('pending');
    // Claim once more by hand and complete twice (a retried step): one group.processed.
    const { DynamoClaimStore } = await import('#store/claims');
    const claims = new DynamoClaimStore(table.db, table.tableName);
    expect((await claims.claim(claimed, new Date())).claimed).toBe(true);
    const summary = { ...emptyTotals(), processedAt: new Date().toISOString(), settlesAt: null };
    await completeGroup(group.paymentGroupId, summary);
    await completeGroup(group.paymentGroupId, summary);
    const events = await eventsOf(group.paymentGroupId);
    expect(typesOf(events)).toEqual([
      'group.created',
      'group.processing',
      'group.updated',
      'group.processing',
      'group.updated',
      'group.processing',
      'group.processed',
    ]);
    expectGapless(events);
    expect(events[1]!.data).toMatchObject({ status: 'processing' });
    expect(events[2]!.data).toMatchObject({ status: 'pending' });
    expect(events.at(-1)!.data).toMatchObject({ status: 'processed' });
  });

  test("a payment's answer is announced once, as approved, declined or failed", async () => {
    const { group } = await createGroup(
      groupInput({ servicePayId: MID, scheduleDate: day(2) }) as never,
      MERCHANT,
      new Date(),
    );
    const payments = await Promise.all([
      aPayment(group.paymentGroupId, 1),
      aPayment(group.paymentGroupId, 2),
      aPayment(group.paymentGroupId, 3),
    ]);
    const store = paymentStore();
    const answer = (status: string, responseCode: string) => ({ status, responseCode }) as never;
    expect(await store.setAuthResponse(payments[0]!, answer('Approved', '00'), new Date())).toBe(true);
    expect(await store.setAuthResponse(payments[1]!, answer('Declined', '51'), new Date())).toBe(true);
    expect(await store.setAuthResponse(payments[2]!, answer('Failed', '96'), new Date())).toBe(true);
    // A retried step: refused, nothing announced.
    expect(await store.setAuthResponse(payments[0]!, answer('Approved', '00'), new Date())).toBe(false);
    expect(typesOf(await eventsOf(payments[0]!.paymentId))).toEqual(['payment.created', 'payment.approved']);
    expect(typesOf(await eventsOf(payments[1]!.paymentId))).toEqual(['payment.created', 'payment.declined']);
    expect(typesOf(await eventsOf(payments[2]!.paymentId))).toEqual(['payment.created', 'payment.failed']);
  });
});

describe('transactions and refunds', () => {
  const settled = () => new Date(T0 + 13 * 3600_000);

  test('a sale of the transactions API is announced approved, then voided; a declined one declined', async () => {
    const approved = await runSale(saleRequest(MID, await storedProfile(table, MID), 1234), new Date());
    await voidSale(MID, approved.transactionId, new Date());
    await voidSale(MID, approved.transactionId, new Date()); // a repeat: no second event
    const events = await eventsOf(approved.transactionId);
    expect(typesOf(events)).toEqual(['transaction.approved', 'transaction.voided']);
    expectGapless(events);
    expect(events[1]!.data).toMatchObject({ status: 'Voided', transactionId: approved.transactionId });

    const declined = await runSale(saleRequest(MID, await storedProfile(table, MID, '05'), 1235), new Date());
    expect(typesOf(await eventsOf(declined.transactionId))).toEqual(['transaction.declined']);
  });

  test("a scheduled payment's sale is not announced as a transaction (its payment is)", async () => {
    const sale = await runSale(
      saleRequest(MID, await storedProfile(table, MID), 1236, {
        paymentId: newId(),
        missingMethod: 'decline',
      }),
      new Date(),
    );
    expect(sale.status).toBe('Approved');
    expect(await eventsOf(sale.transactionId)).toEqual([]);
  });

  test("defect: the transactions API voided or refunded a scheduled payment's sale with no event, the payment and its group never showing it: 400 naming the group's void-or-refund, nothing moved", async () => {
    const paymentId = newId();
    const sale = await runSale(
      saleRequest(MID, await storedProfile(table, MID), 4321, { paymentId, missingMethod: 'decline' }),
      new Date(),
    );
    expect(sale.status).toBe('Approved');
    const refusal = `the sale of scheduled payment ${paymentId}`;
    await expect(voidTransaction(MID, sale.transactionId, new Date())).rejects.toThrow(refusal);
    await expect(refundTransaction(MID, sale.transactionId, 1000, newId(), settled())).rejects.toThrow(
      refusal,
    );
    const after = await transactionStore().find(sale.transactionId);
    expect(after).toMatchObject({ transaction: { status: 'Approved', refundedCents: 0 }, refunds: [] });
    expect(await eventsOf(sale.transactionId)).toEqual([]);
    // A sale of the transactions API is voided and refunded as before.
    const own = await runSale(saleRequest(MID, await storedProfile(table, MID), 4322), new Date());
    await expect(voidTransaction(MID, own.transactionId, new Date())).resolves.toMatchObject({
      status: 'Voided',
    });
  });

  test('a refund is announced completed, once, with the refund as its POST answers it', async () => {
    const sale = await runSale(saleRequest(MID, await storedProfile(table, MID), 5000), new Date());
    const refundId = newId();
    await refundSale(MID, sale.transactionId, 1000, refundId, settled());
    await refundSale(MID, sale.transactionId, 1000, refundId, settled()); // a repeat
    const events = await eventsOf(refundId);
    expect(typesOf(events)).toEqual(['refund.completed']);
    expect(events[0]!.data).toMatchObject({
      refundId,
      transactionId: sale.transactionId,
      amount: 10,
      status: 'Completed',
    });
  });
});

describe('payors and saved methods', () => {
  test("a payor's life and its methods' are announced; a duplicate customerAccountId announces nothing", async () => {
    const { payor, method } = makePayor(MID, { customerAccountId: `family-${newId()}` });
    await savePayor(payor, method);
    const rival = makePayor(MID, { customerAccountId: payor.customerAccountId });
    await expect(savePayor(rival.payor, rival.method)).rejects.toBeInstanceOf(
      DuplicateCustomerAccountIdError,
    );
    expect(await eventsOf(rival.payor.payorId)).toEqual([]);

    await updatePayor(payor.payorId, MID, { email: 'new@example.com' }, new Date());
    const second = makeMethod(payor.payorId, MID);
    await addMethod(second, true, new Date());
    await updateMethod(
      payor.payorId,
      second.savedPaymentMethodId,
      MID,
      { customerData: { note: 'x' } },
      new Date(),
    );
    await deleteMethod(payor.payorId, method.savedPaymentMethodId, MID, undefined, new Date());
    await deletePayor(payor.payorId, MID, new Date());

    const payorEvents = await eventsOf(payor.payorId);
    expect(typesOf(payorEvents)).toEqual(['payor.created', 'payor.updated', 'payor.deleted']);
    expectGapless(payorEvents);
    expect(payorEvents[0]!.data).toMatchObject({
      payorId: payor.payorId,
      savedPaymentMethods: [{ isDefault: true }],
    });
    expect(payorEvents[1]!.data).toMatchObject({ email: 'new@example.com' });
    const methodEvents = await eventsOf(second.savedPaymentMethodId);
    expect(typesOf(methodEvents)).toEqual(['payment_method.created', 'payment_method.updated']);
    expect(methodEvents.map((e) => (e.data as { isDefault: boolean }).isDefault)).toEqual([true, true]);
    expect(typesOf(await eventsOf(method.savedPaymentMethodId))).toEqual(['payment_method.deleted']);
    // No full card number in any event (ids taken out first: their hex digits can run to twelve).
    const text = JSON.stringify([...payorEvents, ...methodEvents])
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')
      .replace(/evt_[0-9a-f]{32}/g, '<event>');
    expect(text).not.toMatch(/\d{12,}/);
    expect(text).not.toContain('4111111111111111');
  });
});

describe('the events list', () => {
  test('newest first, filtered by type and time, paged with a token that continues exactly after the page', async () => {
    const since = new Date().toISOString();
    const { group } = await createGroup(
      groupInput({ servicePayId: MID, scheduleDate: day(3) }) as never,
      MERCHANT,
      new Date(),
    );
    for (let i = 0; i < 5; i++)
      await updateGroup(group.paymentGroupId, MID, { locationId: 300 + i }, new Date());
    const { listEvents } = await import('#core/events');
    const first = await listEvents(MID, { objectId: group.paymentGroupId, pageSize: '4', since });
    expect(first.items.map((e) => e.sequence)).toEqual([6, 5, 4, 3]);
    const second = await listEvents(MID, {
      objectId: group.paymentGroupId,
      pageSize: '4',
      since,
      pageToken: first.meta.nextPageToken!,
    });
    expect(second.items.map((e) => e.sequence)).toEqual([2, 1]);
    expect(second.meta.nextPageToken).toBeUndefined();
    const created = await listEvents(MID, { type: 'group.created' as EventType, since });
    expect(created.items.map((e) => e.objectId)).toContain(group.paymentGroupId);
    expect(created.items.every((e) => e.type === 'group.created')).toBe(true);
    // A token is bound to its filters.
    await expect(
      listEvents(MID, {
        objectId: group.paymentGroupId,
        pageSize: '4',
        pageToken: first.meta.nextPageToken!,
      }),
    ).rejects.toThrow('pageToken is not a token of this list');
  });

  test('defect: since with an offset (-05:00) or a space for the T was compared as text, listing events from before the moment it names', async () => {
    const { group } = await createGroup(
      groupInput({ servicePayId: MID, scheduleDate: day(3) }) as never,
      MERCHANT,
      new Date(),
    );
    const { listEvents } = await import('#core/events');
    const all = await listEvents(MID, { objectId: group.paymentGroupId });
    const created = Date.parse(all.items[0]!.createdAt);
    // One second after the event, written with an offset: 5 hours earlier as text, so as text
    // it came before the event's own time.
    const after = new Date(created + 1000 - 5 * 3_600_000).toISOString().replace('Z', '-05:00');
    expect(Date.parse(after)).toBe(created + 1000);
    expect((await listEvents(MID, { objectId: group.paymentGroupId, since: after })).items).toEqual([]);
    const spaced = new Date(created + 1000).toISOString().replace('T', ' ');
    expect((await listEvents(MID, { objectId: group.paymentGroupId, since: spaced })).items).toEqual([]);
    // The moment before the event, however written, lists it.
    const before = new Date(created - 1000 + 3_600_000).toISOString().replace('Z', '+01:00');
    expect((await listEvents(MID, { objectId: group.paymentGroupId, since: before })).items).toHaveLength(1);
  });

  test('defect: a since past the year 9999 (an offset west of UTC on its last day) listed every event instead of none: its UTC form (+010000-…) sorted before every date', async () => {
    const { group } = await createGroup(
      groupInput({ servicePayId: MID, scheduleDate: day(3) }) as never,
      MERCHANT,
      new Date(),
    );
    const { listEvents } = await import('#core/events');
    expect((await listEvents(MID, { objectId: group.paymentGroupId })).items).toHaveLength(1);
    for (const since of ['9999-12-31T23:59:59-05:00', '9999-12-31T20:00:00-04:00'])
      expect((await listEvents(MID, { objectId: group.paymentGroupId, since })).items).toEqual([]);
    // The last moment of 9999 in UTC is still an ordinary date: none are that late either.
    expect(
      (await listEvents(MID, { objectId: group.paymentGroupId, since: '9999-12-31T23:59:59Z' })).items,
    ).toEqual([]);
  });

  test('defect: a filtered page read on until it was full or the events ended, so one request for a rare object read every event of a busy merchant: a page reads at most 2,000 events and ends short, with a token that reads on', async () => {
    const { listEvents } = await import('#core/events');
    const { eventItem } = await import('#store/events');
    const { newEvent } = await import('#domain/events');
    const merchantId = '32350000099';
    // The object's one event is the oldest, behind more events than one page reads (2,000).
    const count = 2_500;
    const items = Array.from({ length: count }, (_, i) =>
      eventItem({
        ...newEvent(
          {
            type: 'payment.approved',
            merchantId,
            objectId: i === count - 1 ? 'the-needle' : `payment-${i}`,
            sequence: 1,
            data: { i },
          },
          new Date(),
        ),
        createdAt: new Date(Date.now() - i * 1000).toISOString(),
      }),
    );
    for (let i = 0; i < items.length; i += 25)
      await ddb().send(
        new BatchWriteCommand({
          RequestItems: {
            [table.tableName]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })),
          },
        }),
      );

    const first = await listEvents(merchantId, { objectId: 'the-needle', pageSize: '10' });
    expect(first.items).toEqual([]);
    expect(first.meta.nextPageToken).toBeDefined();
    const second = await listEvents(merchantId, {
      objectId: 'the-needle',
      pageSize: '10',
      pageToken: first.meta.nextPageToken!,
    });
    expect(second.items.map((e) => e.objectId)).toEqual(['the-needle']);
    expect(second.meta.nextPageToken).toBeUndefined();
  }, 120_000);

  test('a page token forged with a valid digest, at a position before since or without an event id, is refused (400), not sent to DynamoDB', async () => {
    const { listEvents } = await import('#core/events');
    const { encodePageToken } = await import('#store/paging');
    const since = new Date(Date.now() - 60_000).toISOString();
    const scope = (s?: string) => `events\n${MID}\n\n\n${s ?? ''}`;
    const forged = (after: string, s?: string) =>
      encodePageToken({ after, offset: 0, total: 0, pageSize: 10 }, scope(s));
    await expect(
      listEvents(MID, { since, pageToken: forged(`2020-01-01T00:00:00.000Z|${newId()}`, since) }),
    ).rejects.toThrow('pageToken is not a token of this list');
    await expect(listEvents(MID, { pageToken: forged('2020-01-01T00:00:00.000Z') })).rejects.toThrow(
      'pageToken is not a token of this list',
    );
    // A forged position inside the range only pages from there.
    const later = await listEvents(MID, {
      since,
      pageToken: forged(`9999-01-01T00:00:00.000Z|${newId()}`, since),
    });
    expect(later.items.every((e) => e.createdAt >= since)).toBe(true);
  });

  test("defect: a page of events whose payments carry large custom attributes passed Lambda's 6 MB response limit (a 5xx): a 400 says to ask for a smaller pageSize, and a smaller page answers", async () => {
    const since = new Date().toISOString();
    const { group } = await createGroup(
      groupInput({ servicePayId: MID, scheduleDate: day(4) }) as never,
      MERCHANT,
      new Date(),
    );
    const profileId = await storedProfile(table, MID);
    // 50 attributes of 1,000 three-byte characters: each payment.created event is about 150 KB.
    const customAttributes = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [`attribute${i}`, '支'.repeat(1_000)]),
    );
    for (let i = 0; i < 42; i++)
      await addPayment(
        group.paymentGroupId,
        MERCHANT,
        { paymentGroupId: group.paymentGroupId, profileId, amount: 1, customAttributes } as never,
        new Date(),
      );
    const { listEvents } = await import('#core/events');
    await expect(listEvents(MID, { since, pageSize: '500' })).rejects.toThrow(
      /above the \d+-byte response limit: use a smaller pageSize/,
    );
    const page = await listEvents(MID, { since, pageSize: '20' });
    expect(page.items).toHaveLength(20);
    expect(page.meta.nextPageToken).toBeDefined();
  }, 60_000);

  test('defect: a page that holds the last events exactly (as many as pageSize) still carries a nextPageToken, whose page is empty: the token is "absent on the last page"', async () => {
    const { group } = await createGroup(
      groupInput({ servicePayId: MID, scheduleDate: day(3) }) as never,
      MERCHANT,
      new Date(),
    );
    await updateGroup(group.paymentGroupId, MID, { locationId: 401 }, new Date());
    const { listEvents } = await import('#core/events');
    // The group's two events (created, updated) on a page of 2: that page is the last.
    const page = await listEvents(MID, { objectId: group.paymentGroupId, pageSize: '2' });
    expect(page.items.map((e) => e.sequence)).toEqual([2, 1]);
    const next = page.meta.nextPageToken
      ? await listEvents(MID, {
          objectId: group.paymentGroupId,
          pageSize: '2',
          pageToken: page.meta.nextPageToken,
        })
      : undefined;
    expect({ nextPageToken: page.meta.nextPageToken, nextPageItems: next?.items.length }).toEqual({
      nextPageToken: undefined,
      nextPageItems: undefined,
    });
  });
});

test('defect: a page of events read every event asked for before its size was weighed: it stops reading once past the response limit', async () => {
  // 40 events of a merchant of their own whose objects are about 400 KB (the largest objects an
  // event carries are some 230 KB; these make the point with fewer): asked for all at once, they
  // are 16 MB. The page used to read every one (a Query per 1 MB) and then refuse the answer; a
  // page of the largest objects at pageSize 500 would read 115 MB in a 512 MB function.
  const { listEvents } = await import('#core/events');
  const { newEvent } = await import('#domain/events');
  const { eventItem } = await import('#store/events');
  const { batchWriteAll } = await import('#store/items');
  const merchantId = '32350000098';
  const big = 'x'.repeat(390_000);
  const items = Array.from({ length: 40 }, (_, i) =>
    eventItem(
      newEvent(
        { type: 'payor.updated', merchantId, objectId: newId(), sequence: 1, data: { note: big, i } },
        new Date(Date.now() - (40 - i) * 1000),
      ),
    ),
  );
  await batchWriteAll(
    table.db,
    table.tableName,
    items.map((Item) => ({ PutRequest: { Item } })),
    120_000,
  );
  let queries = 0;
  const name = `count-queries-${newId()}`;
  ddb().middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'QueryCommand') queries += 1;
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    await expect(listEvents(merchantId, { pageSize: '40' })).rejects.toThrow(
      /response limit: use a smaller pageSize/,
    );
  } finally {
    ddb().middlewareStack.remove(name);
  }
  // About 7 MB read (a Query per 1 MB), not 16.
  expect(queries).toBeLessThanOrEqual(9);
  const small = await listEvents(merchantId, { pageSize: '5' });
  expect(small.items).toHaveLength(5);
}, 120_000);

test('defect: an event past its 30 days was listed and read until the table TTL removed it (days late); neither shows it now', async () => {
  const { listEvents, getEvent } = await import('#core/events');
  const { newEvent } = await import('#domain/events');
  const { eventItem } = await import('#store/events');
  const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
  const objectId = newId();
  const stored = async (daysAgo: number) => {
    const at = new Date(Date.now() - daysAgo * 86_400_000);
    // Dated as written then (newEvent dates an event no earlier than the clock).
    const event = {
      ...newEvent(
        { type: 'payor.updated', merchantId: MID, objectId, sequence: 1, data: { payorId: objectId } },
        at,
      ),
      createdAt: at.toISOString(),
    };
    await table.db.send(new PutCommand({ TableName: table.tableName, Item: eventItem(event) }));
    return event;
  };
  const old = await stored(31);
  const recent = await stored(29);
  expect((await listEvents(MID, { objectId })).items.map((e) => e.id)).toEqual([recent.id]);
  // A `since` before the 30 days shows no more.
  const since = new Date(Date.now() - 40 * 86_400_000).toISOString();
  expect((await listEvents(MID, { objectId, since })).items.map((e) => e.id)).toEqual([recent.id]);
  await expect(getEvent(old.id, MID)).rejects.toMatchObject({ status: 404 });
  expect((await getEvent(recent.id, MID)).id).toBe(recent.id);
});
