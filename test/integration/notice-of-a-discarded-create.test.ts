/**
 * Defect "a payment-scheduled notice of a discarded create is sent": a large group
 * create writes its payments and their notices in parallel batches (store/items.ts batchWriteAll,
 * 8 at once). A writer that dies (a Lambda killed at its timeout, no clean-up runs) while one
 * payment batch is still being written (unprocessed items retried) but after the notice batches
 * landed leaves notices whose payments were never written. The client's retry with the same key,
 * once the write-ahead's lease is over, discards the create (write-ahead.ts discardCreate: it
 * removes the payments it finds and *their* notices only) and creates the group again under the
 * same id with new payment ids and new notices. The orphan notices stay pending; the notifier
 * finds their group committed, reads their payment (undefined), and sends them anyway
 * (core/outbox.ts: a missing payment is not "gone"): the payor gets a notice for a payment that
 * does not exist, on top of the notice of the payment that replaced it.
 *
 * Against DynamoDB Local, through core/groups.ts createGroup and core/outbox.ts deliver; SES
 * replaced by a recording mailer.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createGroup } from '#core/groups';
import { deliver } from '#core/outbox';
import { useClock } from '#shared/clock';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { newId } from '#shared/ids';
import { useMailer } from '#shared/mailer';
import type { Merchant } from '#store/merchants';
import { paymentStore } from '#store/payments';
import { DynamoPayorStore } from '#store/payors';
import { CREATE_LEASE_MS } from '#store/write-ahead';
import { createTestTable, type TestTable } from '#support/ddb';
import { injectPause } from '#support/ddb-faults';
import { makePayor } from '#support/fixtures/index';
import { groupInput } from '#support/fixtures/inputs';

let table: TestTable;
const MERCHANT: Merchant = { merchantId: '32350000001', shortId: '23500001', name: 'Springfield Elementary' };
const MID = MERCHANT.merchantId;
/** Past 99: the written-ahead path (10 batches of payments and uses, then 5 of notices). */
const SIZE = 120;
const pauses: { remove(): void }[] = [];
const sent: { to: string; subject: string; text: string }[] = [];

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  process.env.EMAIL_SEND_RATE = '1000';
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  reloadConfigForTests();
  useMailer({
    send: async (to, email) => {
      sent.push({ to, subject: email.subject, text: email.text });
      return { messageId: `ses-${sent.length}` };
    },
  });
});
afterEach(() => {
  for (const p of pauses.splice(0)) p.remove();
  useClock(undefined);
});
afterAll(async () => {
  useMailer(undefined);
  await table.drop();
});

/** The group's outbox items (notices), as stored. */
async function noticesOf(groupId: string): Promise<{ outboxId: string; paymentId: string }[]> {
  const { Items = [] } = await table.db.send(
    new ScanCommand({
      TableName: table.tableName,
      FilterExpression: 'entity = :outbox AND paymentGroupId = :g',
      ExpressionAttributeValues: { ':outbox': 'outbox', ':g': groupId },
      ConsistentRead: true,
    }),
  );
  return Items.map((i) => ({ outboxId: String(i.outboxId), paymentId: String(i.data.paymentId) }));
}

test('defect: after a create died mid-write and its keyed retry created the group again, a notice of a payment that was never written is still sent to the payor', async () => {
  const email = `payor-${newId()}@example.com`;
  const { payor, method } = makePayor(MID, { email });
  await new DynamoPayorStore(table.db, table.tableName).create(payor, method);
  const profileId = `${payor.payorId}/${method.savedPaymentMethodId}`;
  const scheduleDate = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
  const body = groupInput({
    servicePayId: MID,
    scheduleDate,
    payments: Array.from({ length: SIZE }, (_, i) => ({
      profileId,
      amount: i + 1,
      sendPaymentScheduledNotification: true,
    })),
  }) as never;
  const groupId = newId();

  // The first attempt: one of its payment batches never lands (its writer dies while it is being
  // written: held here for good), while the other workers write the notice batches.
  let held = false;
  let release: () => void = () => undefined;
  const hold = new Promise<void>((ok) => (release = ok));
  pauses.push(
    injectPause(
      ddb(),
      'BatchWriteItemCommand',
      (input) => {
        const json = JSON.stringify(input.RequestItems ?? {});
        if (held || !json.includes('"PutRequest"') || !json.includes('"entity":"payment"')) return false;
        held = true;
        return true;
      },
      () => hold,
    ),
  );
  const first = createGroup(body, MERCHANT, new Date(), { resourceId: groupId, resumed: false }).catch(
    (error: unknown) => error,
  );
  // Every notice of the first attempt is written (the held batch's payments included).
  for (let i = 0; i < 200 && (await noticesOf(groupId)).length < SIZE; i++)
    await new Promise((ok) => setTimeout(ok, 50));
  expect(await noticesOf(groupId)).toHaveLength(SIZE);

  // The writer is gone (killed at its timeout). The client's retry with the same key, once the
  // write-ahead's lease is over, discards the create and makes the group again.
  const ahead = CREATE_LEASE_MS + 1000;
  useClock({ nowMs: () => Date.now() + ahead, sleep: (ms) => new Promise((ok) => setTimeout(ok, ms)) });
  const { payments } = await createGroup(body, MERCHANT, new Date(Date.now() + ahead), {
    resourceId: groupId,
    resumed: true,
  });
  expect(payments).toHaveLength(SIZE);
  const stored = new Set((await paymentStore().listPayments(groupId)).map((p) => p.paymentId));
  expect(stored.size).toBe(SIZE);

  // Notices whose payment is not in the group: left by the dead writer, never removed.
  const orphans = (await noticesOf(groupId)).filter((n) => !stored.has(n.paymentId));
  expect(orphans.length).toBeGreaterThan(0);

  // The notifier takes them (the stream enqueued them when they were written).
  for (const { outboxId } of orphans) await deliver({ outboxId, notReady: 0 });

  release();
  await first;
  // None may reach the payor: their payments do not exist (the group's own notices, one per
  // payment, tell the payor what is scheduled).
  expect(sent.filter((s) => s.to === email).map((s) => s.subject)).toEqual([]);
}, 60_000);
