/**
 * Issue 13, defect 6 (a group can stay `processing` forever, silently) against the local runtime:
 * an execution stopped in the middle of its group is re-driven by the next hourly tick under the
 * next attempt's execution name, and the group ends processed with every payment answered once.
 *
 * The runtime is shared with the other e2e files, so the stopped group is moved to a slot in 2001
 * (as a group whose tick was missed long ago) and the tick is delivered for that slot: no other
 * file's group is due then.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { baseUrl } from '#support/api';
import { aProfile } from '#support/fixtures/e2e-resources';
import {
  closeLocalTable,
  createGroup,
  executionsNamed,
  farFutureDate,
  getGroup,
  hourlyTick,
  localTable,
  payments,
  scan,
  trigger,
  waitForStatusWhileAnswered,
  WHILE_ANSWERED_TIMEOUT_MS,
  type Json,
} from '#support/processing';
import { keys } from '#store/keys';
import { slotOf } from '#domain/groups';
import { sleep } from '#shared/clock';

afterAll(() => closeLocalTable());

const PAST = { scheduleDate: '2001-01-01', scheduleHour: 5 };

async function stopExecution(executionArn: string): Promise<Json> {
  const res = await fetch(`${baseUrl()}/__local/executions/stop`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ executionArn }),
  });
  if (res.status !== 200) throw new Error(`stop failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as Json;
}

/** Moves a group to an old slot directly in the table (its due-index entry follows). */
async function moveToPastSlot(groupId: string): Promise<void> {
  const slot = slotOf(PAST.scheduleDate, PAST.scheduleHour);
  const { client, tableName } = localTable();
  await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.group(groupId),
      UpdateExpression: 'SET scheduleDate = :d, scheduleHour = :h, gsi1sk = :g1, gsi2sk = :g2',
      ConditionExpression: 'attribute_exists(gsi2sk)',
      ExpressionAttributeValues: {
        ':d': PAST.scheduleDate,
        ':h': PAST.scheduleHour,
        ':g1': keys.merchantGroupSort(slot, groupId),
        ':g2': keys.dueSort(slot, groupId),
      },
    }),
  );
}

const countBy = (values: string[]) => {
  const counts: Record<string, number> = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
};
const once = (ids: Set<string>) => Object.fromEntries([...ids].map((id) => [id, 1]));

const answered = (list: Json[]) => list.filter((p) => p.authResponse != null).length;

/**
 * Enough payments that the first execution is still charging them when it is stopped: a quiet
 * machine answers about 90 a second, and the stop follows the first answer within a poll (25 ms)
 * and a listing. No more: each payment costs the e2e tier about 70 ms of CPU.
 */
const COUNT = 300;

/**
 * A group of COUNT payments triggered, and its first execution stopped as soon as its first
 * payments are answered: the state a crash leaves, the group processing mid-group.
 */
async function stoppedMidGroup(slot: { scheduleDate: string; scheduleHour: number }, cents: number) {
  const profileId = await aProfile();
  const list = Array.from({ length: COUNT }, (_, i) => ({ profileId, amount: (cents + i) / 100 }));
  const group = await createGroup({ ...slot, payments: list });
  const id = group.paymentGroupId as string;
  expect((await trigger(id)).body.totalTriggered).toBe(1);
  const first = await getGroup(id);
  expect(first.executionArn).toMatch(new RegExp(`:pg-${id}-1$`));
  for (let i = 0; i < 400 && answered(await payments(id)) === 0; i++) await sleep(25);
  expect((await stopExecution(first.executionArn as string)).status).toBe('ABORTED');
  // A batch under way when the execution stopped still finishes its writes (as a Lambda does).
  await sleep(1_000);
  const midway = answered(await payments(id));
  expect(midway).toBeGreaterThan(0);
  expect(midway).toBeLessThan(COUNT);
  expect((await getGroup(id)).status).toBe('processing');
  return { id, group };
}

/** One processor charge (a SALE of the sandbox's ledger) per payment of `ids`. */
async function expectOneChargeEach(ids: Set<string>): Promise<void> {
  const charges = (
    await scan(
      '#e = :e AND #k = :k',
      { ':e': 'sandbox-ledger', ':k': 'SALE' },
      { '#e': 'entity', '#k': 'kind' },
    )
  ).filter((l) => ids.has(String(l.idempotencyKey).replace('payment:', '')));
  expect(countBy(charges.map((l) => l.idempotencyKey as string))).toEqual(
    once(new Set([...ids].map((p) => `payment:${p}`))),
  );
}

describe('issue 13, defect 6: a group can stay processing forever, silently', () => {
  test(
    'an execution stopped mid-group is re-driven by the tick (a new name) and every payment is answered once',
    async () => {
      const { id } = await stoppedMidGroup({ scheduleDate: farFutureDate(150), scheduleHour: 3 }, 200);

      await moveToPastSlot(id);
      const tick = await hourlyTick(`${PAST.scheduleDate}T0${PAST.scheduleHour}:00:00Z`);
      const resumed = (tick.resumed as Json[]).filter((o) => o.paymentGroupId === id);
      expect(resumed).toEqual([{ paymentGroupId: id, executionArn: expect.stringMatching(`:pg-${id}-2$`) }]);

      const done = await waitForStatusWhileAnswered(id, 'processed');
      expect(done.executionArn).toBe(resumed[0]!.executionArn);
      expect(done.processingSummary).toMatchObject({ approvedCount: COUNT, failedCount: 0 });
      const all = await payments(id);
      expect(all.filter((p) => (p.authResponse as Json | null)?.status === 'Approved')).toHaveLength(COUNT);
      // One sale record and one processor charge per payment (one scan each).
      const ids = new Set(all.map((p) => p.paymentId as string));
      const sales = (await scan('#e = :t', { ':t': 'transaction' }, { '#e': 'entity' })).filter((t) =>
        ids.has(t.paymentId as string),
      );
      expect(countBy(sales.map((t) => t.paymentId as string))).toEqual(once(ids));
      await expectOneChargeEach(ids);

      // Two attempts, two names; a later tick leaves the group alone (no third name).
      expect((await executionsNamed(`pg-${id}-1`)).map((e) => e.status)).toEqual(['ABORTED']);
      expect(await executionsNamed(`pg-${id}-2`)).toHaveLength(1);
      const again = await hourlyTick(`${PAST.scheduleDate}T0${PAST.scheduleHour}:00:00Z`);
      expect((again.resumed as Json[]).filter((o) => o.paymentGroupId === id)).toEqual([]);
      expect(await executionsNamed(`pg-${id}-3`)).toEqual([]);
    },
    WHILE_ANSWERED_TIMEOUT_MS,
  );
});

describe('issue 25, defect 7: a group triggered before its slot and then interrupted stays processing until its slot, unseen', () => {
  test(
    'a group triggered two days ahead of its slot and stopped mid-group is re-driven by the tick of the current hour, every payment answered once',
    async () => {
      // Two days ahead, as a tester triggers a group long before its slot.
      const { id, group } = await stoppedMidGroup({ scheduleDate: farFutureDate(2), scheduleHour: 12 }, 900);

      // The tick of the current hour (the group's slot is two days ahead) supervises it.
      const tick = await hourlyTick(`${new Date().toISOString().slice(0, 13)}:00:00Z`);
      const resumed = (tick.resumed as Json[]).filter((o) => o.paymentGroupId === id);
      expect(resumed).toEqual([{ paymentGroupId: id, executionArn: expect.stringMatching(`:pg-${id}-2$`) }]);

      const done = await waitForStatusWhileAnswered(id, 'processed');
      expect(done).toMatchObject({ scheduleDate: group.scheduleDate, scheduleHour: 12 });
      expect(done.processingSummary).toMatchObject({ approvedCount: COUNT, failedCount: 0 });
      const all = await payments(id);
      expect(all.filter((p) => (p.authResponse as Json | null)?.status === 'Approved')).toHaveLength(COUNT);
      const ids = new Set(all.map((p) => p.paymentId as string));
      await expectOneChargeEach(ids);
    },
    WHILE_ANSWERED_TIMEOUT_MS,
  );
});
