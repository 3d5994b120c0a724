/**
 * Void-or-refund of a large group runs in the background (docs/decisions.md "Background
 * void-or-refund"): a group over the threshold, processed, answers 202 with an executionArn; a
 * repeat while it runs names the same execution; the group's voidOrRefundSummary reaches done with
 * counts that add up; every payment shows its reversal, once, also after a repeat once done. Named
 * payments (paymentIds) stay within the request: 200.
 *
 * The threshold is 1,000 payments unless VOID_OR_REFUND_BACKGROUND_ABOVE lowers it: this file's
 * runtime sets 150, so that 300 payments (two ReverseBatch tasks of 250) take the background path.
 * With the default, 1,200 payments took about a tenth of the e2e tier's CPU.
 */
import { launchLocalRuntime, type LocalRuntimeProcess } from '#lib/local/launcher';
import { call } from '#support/api';
import { sleep } from '#shared/clock';
import {
  createGroup,
  groupPath,
  trigger,
  waitForStatusWhileAnswered,
  WHILE_ANSWERED_TIMEOUT_MS,
  type Json,
} from '#support/processing';
import { aProfile } from '#support/fixtures/e2e-resources';

const BACKGROUND_ABOVE = 150;
const COUNT = 300;
let groupId: string;
let runtime: LocalRuntimeProcess | undefined;
const shared: Record<string, string | undefined> = {};
let paymentIds: string[];

async function allPayments(): Promise<Json[]> {
  const found: Json[] = [];
  for (let page = 1; found.length < COUNT; page++) {
    const res = await call('GET', `${groupPath(groupId)}/payments?pageNumber=${page}&pageSize=500`);
    expect(res.status).toBe(200);
    if (res.body.items.length === 0) break;
    found.push(...(res.body.items as Json[]));
  }
  return found;
}

/** Polls the group until its voidOrRefundSummary is done (bounded); returns the summary. */
async function summaryWhenDone(timeoutMs = 120_000): Promise<Json> {
  const until = Date.now() + timeoutMs;
  let group: Json = {};
  while (Date.now() < until) {
    group = (await call('GET', groupPath(groupId))).body;
    if (group.voidOrRefundSummary?.status === 'done') return group.voidOrRefundSummary;
    await sleep(250);
  }
  throw new Error(`void-or-refund not done in ${timeoutMs} ms: ${JSON.stringify(group.voidOrRefundSummary)}`);
}

const voidOrRefund = (body?: object) => call('POST', `${groupPath(groupId)}/void-or-refund`, body);

beforeAll(async () => {
  runtime = await launchLocalRuntime({
    dataDirPrefix: 'sps-e2e-vor',
    env: {
      VOID_OR_REFUND_BACKGROUND_ABOVE: String(BACKGROUND_ABOVE),
      AUTHZ_CACHE_SECONDS: '0',
      SANDBOX_SETTLEMENT_SECONDS: '8',
      LOCAL_DUE_SWEEP_SECONDS: '0',
    },
  });
  // The helpers call the runtime at E2E_BASE_URL: this file's own, until it ends.
  for (const name of ['E2E_BASE_URL', 'E2E_DATA_DIR']) shared[name] = process.env[name];
  Object.assign(process.env, { E2E_BASE_URL: runtime.url, E2E_DATA_DIR: runtime.dataDir });
  const profileId = await aProfile();
  // Distinct amounts: the duplicate check declines a second payment of one method and amount.
  const amount = (i: number) => (100 + i) / 100;
  const group = await createGroup({
    payments: Array.from({ length: COUNT }, (_, i) => ({ profileId, amount: amount(i) })),
  });
  groupId = group.paymentGroupId;
  expect((await trigger(groupId)).status).toBe(200);
  // While its payments keep being answered, not a fixed time (a loaded machine's pace).
  const processed = await waitForStatusWhileAnswered(groupId, 'processed');
  expect(processed).toMatchObject({ paymentCount: COUNT });
  expect(processed.processingSummary.approvedCount).toBe(COUNT);
  paymentIds = (await allPayments()).map((p) => p.paymentId as string);
  expect(paymentIds).toHaveLength(COUNT);
}, WHILE_ANSWERED_TIMEOUT_MS);
afterAll(async () => {
  for (const [name, value] of Object.entries(shared))
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  await runtime?.stop();
});

test('named payments of a large group stay within the request: 200', async () => {
  const res = await voidOrRefund({ paymentIds: [paymentIds[0]] });
  expect(res.status).toBe(200);
  // Void, refund or (inside the void margin just before a cut-off) refund scheduled, depending on
  // where the local settlement cut-off falls.
  expect(res.body).toMatchObject({ skippedCount: 0, failedCount: 0 });
  expect(res.body.voidedCount + res.body.refundedCount + res.body.refundScheduledCount).toBe(1);
});

test('the whole group: 202, the same executionArn while it runs, a summary that adds up', async () => {
  const first = await voidOrRefund();
  expect(first.status).toBe(202);
  expect(first.body).toEqual({
    paymentGroupId: groupId,
    status: 'accepted',
    executionArn: expect.stringMatching(/:execution:.*void-or-refund:vr-/),
  });
  const repeat = await voidOrRefund();
  expect(repeat.status).toBe(202);
  expect(repeat.body.executionArn).toBe(first.body.executionArn);
  const running = (await call('GET', groupPath(groupId))).body.voidOrRefundSummary;
  expect(running).toMatchObject({ executionArn: first.body.executionArn });

  const summary = await summaryWhenDone();
  // The payment reversed by the request above counts as skipped: this run did not reverse it.
  expect(summary).toMatchObject({
    status: 'done',
    skippedCount: 1,
    failedCount: 0,
    executionArn: first.body.executionArn,
  });
  // A payment reached inside the void margin of a cut-off is a refund scheduled for right after it.
  expect(summary.voidedCount + summary.refundedCount + summary.refundScheduledCount).toBe(COUNT - 1);
  const payments = await allPayments();
  expect(payments).toHaveLength(COUNT);
  for (const payment of payments) {
    expect(payment.voidOrRefundResponses).toHaveLength(1);
    expect(payment.voidOrRefundResponses[0].status).not.toBe('Failed');
  }
}, 180_000);

test('a repeat once done is a new run that reverses nothing twice', async () => {
  const res = await voidOrRefund();
  expect(res.status).toBe(202);
  const summary = await summaryWhenDone();
  expect(summary).toMatchObject({ executionArn: res.body.executionArn, voidedCount: 0, skippedCount: COUNT });
  expect(
    summary.voidedCount +
      summary.refundedCount +
      summary.refundScheduledCount +
      summary.skippedCount +
      summary.failedCount,
  ).toBe(COUNT);
  for (const payment of await allPayments()) expect(payment.voidOrRefundResponses).toHaveLength(1);
}, 180_000);
