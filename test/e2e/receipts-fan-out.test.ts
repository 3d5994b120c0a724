/**
 * Issue 25, defect 8 ("receipts for a large group take half an hour") against the local runtime:
 * the state machine queues a processed group's receipts over its key ranges at once (the Map
 * QueueReceipts, then ReceiptsQueued), not one page after another, and every receipt due goes out
 * once. A 600-payment group (three key ranges) whose payors but two have no e-mail address, so that
 * every range is paged through while the shared runtime's SES sends two e-mails only; the two are
 * in the first and the last range.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { baseUrl } from '#support/api';
import { uniqueAddress, waitForEmails } from '#support/notifications';
import {
  closeLocalTable,
  createGroup,
  farFutureDate,
  localTable,
  trigger,
  waitForStatusWhileAnswered,
  WHILE_ANSWERED_TIMEOUT_MS,
  type Json,
} from '#support/processing';
import { createPayor } from '#support/fixtures/e2e-resources';
import { keys } from '#store/keys';
import { sleep } from '#shared/clock';

afterAll(() => closeLocalTable());

const COUNT = 600;

async function profileOf(email?: string): Promise<string> {
  const payor = await createPayor(email === undefined ? {} : { email });
  return `${payor.payorId}/${payor.defaultPaymentMethodId}`;
}

async function stepsOf(executionArn: string): Promise<Json> {
  const res = await fetch(
    `${baseUrl()}/__local/executions/steps?executionArn=${encodeURIComponent(executionArn)}`,
  );
  if (res.status !== 200) throw new Error(`steps: ${res.status} ${await res.text()}`);
  return (await res.json()) as Json;
}

test(
  'defect 8: a processed group’s receipts are queued over its key ranges at once, and each goes out once',
  async () => {
    const [first, last] = [uniqueAddress('receipts-first'), uniqueAddress('receipts-last')];
    const [withFirst, withLast, without] = await Promise.all([
      profileOf(first),
      profileOf(last),
      profileOf(undefined),
    ]);
    const payments = Array.from({ length: COUNT }, (_, i) => ({
      profileId: i === 0 ? withFirst : i === COUNT - 1 ? withLast : without,
      amount: (1000 + i) / 100,
      sendEmailReceipt: true,
    }));
    const group = await createGroup({ scheduleDate: farFutureDate(3), scheduleHour: 9, payments });
    const id = group.paymentGroupId as string;
    expect((await trigger(id)).body.totalTriggered).toBe(1);
    // While its payments keep being answered, not a fixed minute (a loaded machine's pace).
    const processed = await waitForStatusWhileAnswered(id, 'processed');
    expect(processed.processingSummary).toMatchObject({ approvedCount: COUNT });

    // The execution waits for the settlement cut-off (8 s apart in the e2e runtime), then the receipts.
    let execution: Json = {};
    for (let i = 0; i < 240; i++) {
      execution = await stepsOf(processed.executionArn as string);
      if (execution.status !== 'RUNNING') break;
      await sleep(250);
    }
    expect(execution.status).toBe('SUCCEEDED');
    const names = (execution.steps as Json[]).map((s) => s.name as string);
    // The Map over the ranges and the final step; no receipts page as a top-level step.
    expect(names.filter((n) => n === 'QueueReceipts')).toHaveLength(1);
    expect(names.filter((n) => n === 'ReceiptsQueued')).toHaveLength(1);
    expect(names).not.toContain('EmitReceipts');
    expect(JSON.parse(execution.output as string)).toMatchObject({ receiptsQueued: 2, receiptRanges: [] });

    const emails = await waitForEmails([first, last], 1, 60_000);
    expect(emails.get(first)).toHaveLength(1);
    expect(emails.get(last)).toHaveLength(1);
    // Every receipt queued: the group has left the due index.
    const { client, tableName } = localTable();
    const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: keys.group(id) }));
    expect(Item).toMatchObject({ status: 'processed', receiptsQueuedAt: expect.any(String) });
    expect(Item).not.toHaveProperty('gsi2pk');
  },
  WHILE_ANSWERED_TIMEOUT_MS,
);
