/**
 * The notices' items against DynamoDB Local (lambdas/store/notices.ts): a mark is written once
 * whatever the number of callers at once; a held notice is kept with its first time, counted
 * tries and found when due; follow-up work is found until done; the backstop's cursor moves only
 * from what a run read.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { processorKeys } from '#domain/processor-keys';
import type { ProcessorNotice } from '#processor/processor';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { noticeStore } from '#store/notices';
import { createTestTable, type TestTable } from '#support/ddb';

let table: TestTable;
beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  reloadConfigForTests();
});
afterAll(() => table.drop());

const notice = (id: string): ProcessorNotice => ({
  noticeId: id,
  kind: 'cleared',
  merchantId: '32350000001',
  objectId: `sbx_${id}`,
  sequence: 2,
  occurredAt: '2030-01-01T10:30:00.000Z',
  charge: { processorTransactionId: `sbx_${id}`, idempotencyKey: processorKeys.sale(id) },
  clearedAt: '2030-01-01T10:30:00.000Z',
});

it('a notice is marked once: of 8 callers at once, one transaction holds', async () => {
  const n = notice('mark-once');
  const now = new Date();
  const results = await Promise.all(
    Array.from({ length: 8 }, () =>
      ddb()
        .send(
          new TransactWriteCommand({ TransactItems: [noticeStore().markPut(n, 'applied', now)] as never }),
        )
        .then(
          () => 'won',
          () => 'lost',
        ),
    ),
  );
  expect(results.filter((r) => r === 'won')).toHaveLength(1);
  expect(await noticeStore().isMarked('mark-once')).toBe(true);
  expect(await noticeStore().markOnly(n, 'stale', now)).toBe(false);
});

it('a held notice keeps its first time, counts its tries and is found once due', async () => {
  const n = notice('held-1');
  const t0 = new Date('2030-01-01T10:00:00.000Z');
  await noticeStore().hold(n, 'the sale is Pending', t0, '2030-01-01T10:00:30.000Z');
  const again = await noticeStore().hold(
    n,
    'still Pending',
    new Date('2030-01-01T10:01:00.000Z'),
    '2030-01-01T10:02:00.000Z',
  );
  expect(again).toMatchObject({ heldAt: t0.toISOString(), tries: 2, reason: 'still Pending', notice: n });
  expect(await noticeStore().dueHolds('2030-01-01T10:01:59.000Z', 10)).toEqual([]);
  const due = await noticeStore().dueHolds('2030-01-01T10:02:00.000Z', 10);
  expect(due.map((h) => h.notice.noticeId)).toEqual(['held-1']);
  await noticeStore().dropHold('held-1');
  expect(await noticeStore().held('held-1')).toBeUndefined();
});

it('follow-up work is found until done', async () => {
  const now = new Date('2030-01-02T00:00:00.000Z');
  const work = {
    kind: 'refunds' as const,
    merchantId: '32350000001',
    transactionId: 't-1',
    refundIds: ['r-1'],
  };
  await ddb().send(
    new TransactWriteCommand({ TransactItems: [noticeStore().followUpPut('fx-1', work, now)] as never }),
  );
  expect((await noticeStore().dueFollowUps('2030-01-02T00:00:01.000Z', 10)).map((f) => f.work)).toEqual([
    work,
  ]);
  expect(await noticeStore().followUp('fx-1')).toMatchObject({ work });
  await noticeStore().followUpDone('fx-1');
  expect(await noticeStore().dueFollowUps('2030-01-02T00:00:01.000Z', 10)).toEqual([]);
});

it('follow-up work put off is due again only from its new time, its tries counted; done work is not put off', async () => {
  const now = new Date('2030-01-03T00:00:00.000Z');
  const work = {
    kind: 'refunds' as const,
    merchantId: '32350000001',
    transactionId: 't-2',
    refundIds: ['r-2'],
  };
  await ddb().send(
    new TransactWriteCommand({ TransactItems: [noticeStore().followUpPut('fx-2', work, now)] as never }),
  );
  const due = (at: string) =>
    noticeStore()
      .dueFollowUps(at, 100)
      .then((items) => items.filter((f) => f.noticeId === 'fx-2'));
  expect(await noticeStore().followUpLater('fx-2', '2030-01-03T00:01:00.000Z')).toBe(true);
  expect(await due('2030-01-03T00:00:59.000Z')).toEqual([]);
  expect(await due('2030-01-03T00:01:01.000Z')).toEqual([
    expect.objectContaining({ dueAt: '2030-01-03T00:01:00.000Z', tries: 1 }),
  ]);
  expect(await noticeStore().followUpLater('fx-2', '2030-01-03T00:03:00.000Z')).toBe(true);
  expect((await noticeStore().followUp('fx-2'))?.tries).toBe(2);
  await noticeStore().followUpDone('fx-2');
  expect(await noticeStore().followUpLater('fx-2', '2030-01-03T00:05:00.000Z')).toBe(false);
  expect(await noticeStore().followUp('fx-2')).toBeUndefined();
});

it('the cursor moves only from the value a run read: of two runs from the same cursor, one moves it', async () => {
  expect(await noticeStore().cursor('sandbox')).toBeUndefined();
  expect(await noticeStore().advanceCursor('sandbox', undefined, 'c1')).toBe(true);
  const [a, b] = await Promise.all([
    noticeStore().advanceCursor('sandbox', 'c1', 'c2a'),
    noticeStore().advanceCursor('sandbox', 'c1', 'c2b'),
  ]);
  expect([a, b].filter(Boolean)).toHaveLength(1);
  expect(['c2a', 'c2b']).toContain(await noticeStore().cursor('sandbox'));
});
