/**
 * `POST .../retry-payments` (retry-now) says why it started nothing. On a runtime of this file's
 * own whose settlement cut-offs are hours away (only the test clock settles), so that a processed
 * group that approved payments and scheduled a retry stays in the state the answer must explain:
 * its run waits for the settlement cut-off to send the receipts before its retry round can start.
 */
import { ScheduledPaymentsClient, type Schemas } from '../../client/index';
import { launchLocalRuntime, type LocalRuntimeProcess } from '#lib/local/launcher';
import { cardInput } from '#support/fixtures/inputs';
import { farSettlementSeconds } from '#support/settlement-timing';
import { sleep } from '#shared/clock';

const MID = '32350000001';
let runtime: LocalRuntimeProcess | undefined;
let api: ScheduledPaymentsClient;

beforeAll(async () => {
  runtime = await launchLocalRuntime({
    dataDirPrefix: 'sps-e2e-retry-now',
    env: {
      SANDBOX_SETTLEMENT_SECONDS: farSettlementSeconds(),
      SETTLEMENT_POLL_SECONDS: '1',
      LOCAL_DUE_SWEEP_SECONDS: '0',
    },
  });
  api = new ScheduledPaymentsClient({
    baseUrl: runtime.url,
    tokenUrl: `${runtime.url}/oauth2/token`,
    clientId: 'local-tester',
    clientSecret: 'local-tester-secret',
  });
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
});

const tomorrow = () => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

async function profile(cardNumber: string): Promise<string> {
  const payor = await api.createPayor(MID, {
    paymentMethod: { ...cardInput({ cardNumber }), accountType: 'VISA' },
  });
  return `${payor.payorId}/${payor.defaultPaymentMethodId}`;
}

/** Polls `read` every 250 ms until `done` holds (at most `ms`); answers every value read. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 30_000): Promise<T[]> {
  const seen: T[] = [];
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    seen.push(value);
    if (done(value)) return seen;
    if (Date.now() > end) throw new Error(`not reached in ${ms} ms; last: ${JSON.stringify(value)}`);
    await sleep(250);
  }
}

type RetryResult = Schemas['RetryResult'];

test('defect: retry-payments answered {"totalTriggered": 0} with no reason while the last run waited for settlement', async () => {
  // Nothing scheduled yet: said so.
  expect(await api.retryMerchant(MID)).toEqual({
    triggeredGroups: [],
    totalTriggered: 0,
    totalFailed: 0,
    reason: 'no_retries_scheduled',
    message: 'no group of the merchant has a retry scheduled',
  });

  // 4000000000000341 declines 51 (category 2) once, then approves; 4111... approves at once.
  const [recovers, approves] = [await profile('4000000000000341'), await profile('4111111111111111')];
  const group = await api.createGroup(MID, {
    servicePayId: MID,
    scheduleDate: tomorrow(),
    scheduleHour: 14,
    locationId: 1,
    retryPolicy: { maxRetries: 1 },
    payments: [
      { profileId: recovers, amount: 20 },
      { profileId: approves, amount: 30 },
    ],
  });
  const groupId = group.paymentGroupId;
  await api.processGroup(MID, groupId);
  const [processed] = (
    await until(
      () => api.getGroup(MID, groupId),
      (g) => g.status === 'processed',
    )
  ).slice(-1);
  expect(processed!.processingSummary).toMatchObject({ approvedCount: 1, retriesScheduled: 1 });

  // The run waits for its cut-off (hours away) to send the receipt: the retry cannot start yet.
  const waiting = await api.retryMerchant(MID);
  expect(waiting).toEqual({
    triggeredGroups: [],
    totalTriggered: 0,
    totalFailed: 0,
    reason: 'awaiting_settlement',
    message: expect.stringContaining(`1 group with retries scheduled waits for the settlement cut-off`),
    settlesAt: expect.any(String),
  });
  // The approved sale's cut-off: later than now (hours away on this runtime).
  const settlesAt = waiting.settlesAt!;
  expect(Date.parse(settlesAt)).toBeGreaterThan(Date.now());
  expect(waiting.message).toContain(`the earliest at ${settlesAt}`);
  expect(waiting.message).toContain('settle-now');

  // Settled now (the test clock): the run sends the receipt and the round can start.
  await api.settleNow(MID);
  const answers = await until<RetryResult>(
    () => api.retryMerchant(MID),
    (a) => a.totalTriggered === 1,
  );
  const started = answers.at(-1)!;
  expect(started.triggeredGroups).toEqual([{ paymentGroupId: groupId, executionArn: expect.any(String) }]);
  expect(started).not.toHaveProperty('reason');
  expect(started).not.toHaveProperty('message');
  // Before it could, every answer said why.
  for (const before of answers.slice(0, -1)) expect(before.reason).toBe('awaiting_settlement');

  // The round recovers the payment: nothing more is scheduled, and the answer says so (while the
  // round runs, that it runs).
  const after = await until<RetryResult>(
    () => api.retryMerchant(MID),
    (a) => a.reason === 'no_retries_scheduled',
  );
  for (const answer of after) {
    expect(answer.totalTriggered).toBe(0);
    expect(['round_running', 'no_retries_scheduled']).toContain(answer.reason);
  }
  const payments = await api.listPayments(MID, groupId);
  const retried = (Array.isArray(payments) ? payments : payments.items).find((p) => p.profileId === recovers);
  expect(retried?.retry?.status).toBe('succeeded');
}, 120_000);
