/**
 * Issue 10, item 6: e-mail keeps up with bursts without losing any. 300 receipts of one group
 * go out through a throttling SES (the local `sesRateLimit` fault: at most 50 sends in any one
 * second, fewer than the notifier's EMAIL_SEND_RATE of 75 here; and the first 100 sends throttled
 * outright, so that throttles happen however slow the machine), and every one is delivered once:
 * throttles are retried, never counted as attempts, and no item ends `failed` or `stuck`
 * (docs/decisions.md, "E-mail pacing").
 *
 * The fault and the rate are runtime-wide, so this file runs a runtime of its own.
 */
import { spawnSync } from 'node:child_process';
import { launchLocalRuntime, type LocalRuntimeProcess } from '#lib/local/launcher';
import { listOutbox } from '#store/outbox';
import type { OutboxItem } from '#domain/notifications';
import { call, futureDate, MID } from '#support/api';
import { createPayor, groupBody } from '#support/fixtures/e2e-resources';
import {
  closeLocalTable,
  localTable,
  sesEmails,
  setSesFaults,
  uniqueAddress,
  waitForDrained,
  type Json,
} from '#support/notifications';
import { localToolCommand } from '#lib/local/runtime-bundle';
import { sleep } from '#shared/clock';

/**
 * Receipts of the group: 6 s of sending at SES's limit, throttled throughout (the notifier asks for
 * half as much again as SES allows); throughput at 10,000 is `npm run bench`'s receipts section.
 */
const PAYMENTS = 300;
const PAYORS = 20;
const SEND_RATE = 75;
const SES_RATE_LIMIT = 50;
const THROTTLED_FIRST = 100;
const groupsPath = `/rest/merchants/${MID}/groups`;
/** No receipt for this long (and the group processed): the rest are lost. */
const STALL_MS = 60_000;

let runtime: LocalRuntimeProcess | undefined;
const shared: Record<string, string | undefined> = {};
const SHARED_VARIABLES = ['E2E_BASE_URL', 'E2E_DATA_DIR', 'E2E_SES_URL'];

beforeAll(async () => {
  runtime = await launchLocalRuntime({
    dataDirPrefix: 'sps-e2e-burst',
    env: {
      EMAIL_SEND_RATE: String(SEND_RATE),
      SANDBOX_SETTLEMENT_SECONDS: '4',
      SETTLEMENT_POLL_SECONDS: '1',
      AUTHZ_CACHE_SECONDS: '0',
      LOCAL_DUE_SWEEP_SECONDS: '0',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    },
  });
  // The helpers reach the runtime through these: this file's own, until it ends.
  for (const name of SHARED_VARIABLES) shared[name] = process.env[name];
  Object.assign(process.env, {
    E2E_BASE_URL: runtime.url,
    E2E_DATA_DIR: runtime.dataDir,
    E2E_SES_URL: runtime.sesUrl,
  });
}, 120_000);
afterAll(async () => {
  closeLocalTable();
  for (const name of SHARED_VARIABLES) process.env[name] = shared[name];
  await runtime?.stop();
});

/** The group's outbox items of each status (the runbook's view, `npm run admin -- outbox`). */
async function receiptsByStatus(paymentIds: Set<string>): Promise<Map<string, OutboxItem[]>> {
  const { doc, tableName } = localTable();
  const byStatus = new Map<string, OutboxItem[]>();
  for (const status of ['pending', 'sending', 'sent', 'failed', 'stuck'] as const) {
    const items = (await listOutbox(doc, tableName, status)).filter(
      (i) => i.kind === 'receipt' && paymentIds.has(i.data.paymentId),
    );
    byStatus.set(status, items);
  }
  return byStatus;
}

test('300 receipts through a throttling SES: all delivered once, none failed or stuck, throttles not counted as attempts', async () => {
  const faults = await setSesFaults({ sesRateLimit: SES_RATE_LIMIT, sesFailures: THROTTLED_FIRST });
  expect(faults).toMatchObject({
    sesRateLimit: SES_RATE_LIMIT,
    sesFailures: THROTTLED_FIRST,
    sesThrottled: 0,
  });

  const payors = await Promise.all(
    Array.from({ length: PAYORS }, async (_, i) => {
      const address = uniqueAddress(`burst-${i}`);
      const created = await createPayor({ email: address });
      return { address, profileId: `${created.payorId}/${created.defaultPaymentMethodId}` };
    }),
  );
  // Distinct amounts: no payment looks like a duplicate of another.
  const payments = Array.from({ length: PAYMENTS }, (_, i) => ({
    profileId: payors[i % PAYORS]!.profileId,
    amount: (100 + i) / 100,
    sendEmailReceipt: true,
  }));
  const created = await call<Json>('POST', groupsPath, groupBody({ scheduleDate: futureDate(4), payments }));
  expect([created.status, created.status === 201 ? '' : created.text]).toEqual([201, '']);
  const groupId = created.body.paymentGroupId as string;
  const paymentIds = new Set<string>((created.body.payments as Json[]).map((p) => p.paymentId as string));
  expect(paymentIds.size).toBe(PAYMENTS);

  const started = Date.now();
  const triggered = await call<Json>('POST', `${groupsPath}/${groupId}/process-payments`);
  expect(triggered.status).toBe(200);

  // Every payor's receipts arrive: waited for while they keep arriving (a receipt lost for good
  // stops the count), however slowly a busy machine sends them.
  const addresses = new Set(payors.map((p) => p.address));
  let delivered = 0;
  let first = 0;
  let processed = 0;
  let movedAt = Date.now();
  while (Date.now() - movedAt < STALL_MS) {
    const now = (await sesEmails()).filter((e) => e.destination.to.some((to) => addresses.has(to))).length;
    if (now > delivered) [delivered, movedAt] = [now, Date.now()];
    if (delivered > 0 && first === 0) first = Date.now() - started;
    if (processed === 0) {
      const group = await call<Json>('GET', `${groupsPath}/${groupId}`);
      if (group.body.status === 'processed') processed = Date.now() - started;
      // Processing and the settlement cut-off before the first receipt count as progress.
      else movedAt = Date.now();
    }
    if (delivered >= PAYMENTS) break;
    await sleep(1_000);
  }
  expect(delivered).toBe(PAYMENTS);
  const elapsed = Date.now() - started;

  // SES throttled many sends; none of them counted as an attempt.
  const after = await setSesFaults({ sesRateLimit: 0 });
  expect(after.sesFailures).toBe(0);
  const byStatus = await receiptsByStatus(paymentIds);
  expect([...byStatus].map(([status, items]) => [status, items.length])).toEqual([
    ['pending', 0],
    ['sending', 0],
    ['sent', PAYMENTS],
    ['failed', 0],
    ['stuck', 0],
  ]);
  const sent = byStatus.get('sent')!;
  expect(sent.filter((i) => i.attempts !== 1)).toEqual([]);
  const throttles = sent.reduce((sum, i) => sum + (i.throttles ?? 0), 0);
  expect(throttles).toBe(THROTTLED_FIRST + after.sesThrottled);

  // Each payor got exactly its 15 receipts: nothing lost, nothing sent twice (once the pipeline
  // has done all it could for them: no message of theirs left, the stream read past them).
  await waitForDrained([...paymentIds].map((id) => `receipt:${id}`));
  const emails = await sesEmails();
  for (const { address } of payors)
    expect([address, emails.filter((e) => e.destination.to.includes(address)).length]).toEqual([
      address,
      PAYMENTS / PAYORS,
    ]);

  // The runbook's command finds no failed e-mail either.
  const admin = spawnSync(...localToolCommand('admin', ['outbox', '--status', 'failed']), {
    env: { ...process.env, DATA_DIR: runtime!.dataDir },
    encoding: 'utf8',
  });
  expect(admin.stderr).toBe('');
  expect(admin.stdout).toMatch(/^0 failed e-mail\(s\) in local runtime/);
  console.log(
    `${PAYMENTS} receipts in ${(elapsed / 1000).toFixed(1)} s after the trigger (processed after ${(processed / 1000).toFixed(1)} s, the first after ${(first / 1000).toFixed(1)} s), ${throttles} sends throttled`,
  );
}, 600_000);
