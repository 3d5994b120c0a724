/**
 * The walk-throughs of docs/integrating.md work as written: their bash blocks run, in order, and
 * every step succeeds. Each runs against a runtime of its own on free ports (never 3000 and 8005):
 * the curl walk-through reads every address from its first line, `B=...`, which alone is changed;
 * the tester CLI's logs in through the runtime's data directory. Their settlement cut-offs are far
 * apart, so that only the test clock (`settle-now`, `spay settle`) settles their sales and no
 * cut-off falls between a sale and its void. The curl walk-through runs on each processor: the
 * sandbox, and Stripe (`PROCESSOR=stripe`, the runtime on the Stripe stand-in with nothing else
 * set), the same script with the same answers.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { launchLocalRuntime } from '#lib/local/launcher';
import { localStripeAccounts } from '#lib/local/stripe-local';
import { farSettlementSeconds } from '#support/settlement-timing';
import { MID, TESTER } from '#support/api';
import { checkingInput } from '#support/fixtures/inputs';
import { until } from '#support/webhook-receiver';

const run = promisify(execFile);

const GUIDE = resolve(__dirname, '..', '..', 'docs', 'integrating.md');
const DEFAULT_ADDRESS = 'http://127.0.0.1:3000';

test.each(['sandbox', 'stripe'] as const)(
  'the curl walk-through runs start to finish on a runtime on other ports, every address from $B (PROCESSOR=%s)',
  async (processor) => {
    const guide = readFileSync(GUIDE, 'utf8');
    const section = guide.slice(
      guide.indexOf('## Walk-through (local)'),
      guide.indexOf('## TypeScript client'),
    );
    const blocks = [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    const script = ['set -euo pipefail', ...blocks].join('\n');
    // One address of the runtime, in one variable; the only other address is the webhook
    // receiver's (yours, on port 4000). No sleeping for a cut-off: the test clock settles.
    expect(script.match(/^B=(.*)$/gm)).toEqual([`B=${DEFAULT_ADDRESS}`]);
    expect(script.match(/https?:\/\/[^\s"'/]+/g)).toEqual([DEFAULT_ADDRESS, 'http://127.0.0.1:4000']);
    expect(script).not.toMatch(/\/\/localhost|:8005|sleep \$\(/);
    expect(script).toContain('/settle-now');

    const runtime = await launchLocalRuntime({
      dataDirPrefix: 'sps-e2e-walk-curl',
      env: {
        PROCESSOR: processor,
        SANDBOX_SETTLEMENT_SECONDS: farSettlementSeconds(),
        SETTLEMENT_POLL_SECONDS: '1',
        LOCAL_DUE_SWEEP_SECONDS: '0',
        LOCAL_NOTICES_TIMER: 'off',
      },
    });
    // The guide saves files (`-o report.xlsx`) where it runs: a directory of its own, not the checkout.
    const workDir = mkdtempSync(join(tmpdir(), 'spay-walk-curl-'));
    try {
      expect([runtime.port, runtime.sesPort]).not.toContain(3000);
      expect([runtime.port, runtime.sesPort]).not.toContain(8005);
      const { stdout } = await run(
        'bash',
        ['-c', script.replace(`B=${DEFAULT_ADDRESS}`, `B=${runtime.url}`)],
        { timeout: 100_000, cwd: workDir },
      );
      expect(stdout).toContain('"maskedAccountNumber": "************1111"');
      expect(stdout).toContain('"isDuplicate": true');
      // The first sale voided before its cut-off; the second refunded in part after the test clock.
      expect(stdout).toContain('"status": "Voided"');
      expect(stdout).toContain('"availableRefundAmount": 30');
      expect(stdout).toContain('"refundCount": 1');
      // The group: processed, its receipt sent (the test clock settled its sales), then refunded
      // (not voided, and so not before its receipt).
      expect(stdout).toContain('"status": "processed"');
      expect(stdout).toContain('Springfield Elementary: receipt for your payment of 45.50');
      expect(stdout).toContain('"refundedCount": 3');
      expect(stdout).not.toContain('4111111111111111');
      // Dates work with BSD (macOS) date too: GNU-only `date -d` only as the fallback after `||`.
      expect(section).not.toMatch(/^(?!.*\|\| date).*\bdate\b[^\n]* -d /m);
      if (processor === 'stripe') {
        // The sales were Stripe's: PaymentIntents on the first merchant's account at the stand-in.
        const { stripeApi } = JSON.parse(readFileSync(join(runtime.dataDir, 'runtime.json'), 'utf8')) as {
          stripeApi: string;
        };
        const key = readFileSync(join(runtime.dataDir, 'stripe-secret-key'), 'utf8');
        const listed = await fetch(`${stripeApi}/v1/payment_intents?limit=100`, {
          headers: { authorization: `Bearer ${key}`, 'stripe-account': localStripeAccounts['32350000001']! },
        });
        const intents = ((await listed.json()) as { data: { status: string }[] }).data;
        expect(intents.length).toBeGreaterThanOrEqual(4);
        expect(intents.every((i) => i.status === 'succeeded')).toBe(true);
        await moneyComesBackByStripeWebhook(runtime.url);
      }
    } finally {
      rmSync(workDir, { recursive: true, force: true });
      await runtime.stop();
    }
  },
  150_000,
);

/**
 * Stripe's webhooks reach the runtime's `POST /processor-events/stripe` (the notices backstop's
 * timer is off here: nothing else brings a notice): a debit of Stripe's R01 test account fails at
 * the stand-in moments later, which signs the event and sends it; the sale turns `Returned`. A
 * webhook that does not verify is 400, one over 256 KB 413, and neither changes anything.
 */
async function moneyComesBackByStripeWebhook(url: string): Promise<void> {
  const tokenAnswer = await fetch(`${url}/oauth2/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${TESTER.id}:${TESTER.secret}`).toString('base64')}`,
    },
    body: 'grant_type=client_credentials',
  });
  const { access_token } = (await tokenAnswer.json()) as { access_token: string };
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}/v1/rest/merchants/${MID}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${access_token}`,
        ...(body !== undefined && { 'content-type': 'application/json', 'idempotency-key': randomUUID() }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const payor = await api('POST', '/payors', {
    paymentMethod: {
      ...checkingInput({ accountNumber: '000222222227' }),
      mandate: { acceptedAt: new Date(Date.now() - 60_000).toISOString(), method: 'paper' },
    },
  });
  expect(payor.status).toBe(201);
  const sold = await api('POST', '/transactions', {
    profileId: `${payor.body.payorId}/${payor.body.defaultPaymentMethodId}`,
    amount: 40,
  });
  expect(sold).toMatchObject({ status: 201, body: { status: 'Approved', cleared: false } });
  const transactionId = sold.body.transactionId as string;
  const returned = await until('the return delivered by Stripe’s webhook', async () => {
    const got = await api('GET', `/transactions/${transactionId}`);
    return got.body.status === 'Returned' && got.body;
  });
  expect(returned).toMatchObject({ return: { code: 'R01', category: 'nsf' } });

  const forged = await fetch(`${url}/processor-events/stripe`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' },
    body: JSON.stringify({ id: 'evt_forged', type: 'payment_intent.payment_failed' }),
  });
  expect(forged.status).toBe(400);
  expect(await forged.json()).toMatchObject({
    responseCode: 400,
    message: expect.stringContaining('Stripe-Signature'),
  });
  const huge = await fetch(`${url}/processor-events/stripe`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' },
    body: JSON.stringify({ pad: 'x'.repeat(300 * 1024) }),
  });
  expect(huge.status).toBe(413);
}

const WALK_THROUGH_MID = '32350000077';

test("the tester CLI's walk-through runs start to finish", async () => {
  const guide = readFileSync(GUIDE, 'utf8');
  const section = guide.slice(guide.indexOf('## Tester CLI'), guide.indexOf('### Test clock'));
  const blocks = [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]!);
  expect(blocks).toHaveLength(1);
  // A merchant of its own: its `settle` must not settle the sales other files of the tier void.
  const ROOT = resolve(__dirname, '..', '..');
  const admin = (...args: string[]) =>
    run('npm', ['run', '-s', 'admin', '--', ...args], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir },
    });
  const runtime = await launchLocalRuntime({
    dataDirPrefix: 'sps-e2e-walk-cli',
    // Not an hour: an hour's cut-off between the charges and `spay settle` would leave nothing to settle.
    env: {
      SANDBOX_SETTLEMENT_SECONDS: farSettlementSeconds(),
      SETTLEMENT_POLL_SECONDS: '2',
      LOCAL_DUE_SWEEP_SECONDS: '0',
    },
  });
  const dataDir = runtime.dataDir;
  await admin('register-merchant', '--mid', WALK_THROUGH_MID, '--name', 'Ogdenville Middle');
  await admin('grant', '--client', 'local-tester', '--mid', WALK_THROUGH_MID);
  const script = ['set -euo pipefail', ...blocks]
    .join('\n')
    // This tier's runtime instead of `npm start`'s: its data directory names its ports.
    .replaceAll('cli -- login', `cli -- login --data-dir ${dataDir} --mid ${WALK_THROUGH_MID}`);
  const home = mkdtempSync(join(tmpdir(), 'spay-walk-through-'));
  try {
    const { stdout } = await run('bash', ['-c', script], {
      timeout: 90_000,
      cwd: ROOT,
      env: { ...process.env, SPAY_HOME: home },
    });
    expect(stdout).toMatch(
      /Logged in to local \(http:\/\/127\.0\.0\.1:\d+\)\nas local-tester, merchant 32350000077/,
    );
    expect(stdout).toContain('Group processed: 3/3 answered: 2 approved, 1 declined, 0 failed');
    expect(stdout).toMatch(/│ INV-3 │ 9\.99\s+│ Declined 05 │ Do not honor/);
    expect(stdout).toMatch(/Settled 2 sales of 32350000077/);
    expect(stdout).toContain('receipt for your payment of 45.50');
    expect(stdout).toContain('3 e-mails');
    expect(stdout).toContain('Voided 0, refunded 2, skipped 1, failed 0');
    expect(stdout).toMatch(/│ QueueReceipts\s+│ Map/);
  } finally {
    rmSync(home, { recursive: true, force: true });
    await runtime.stop();
  }
}, 180_000);
