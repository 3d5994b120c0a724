/**
 * Smoke test of a running stage: token, payor, group, trigger, wait for processed, void-or-refund,
 * one PASS/FAIL line per step (a step after a failure is SKIPped); exit status 1 on any failure.
 *
 *   npm run smoke                                   the local runtime (npm start): the address its
 *                                                   .data/runtime.json records (else 127.0.0.1:3000)
 *   npm run smoke -- --data-dir DIR                 the runtime started with DATA_DIR=DIR
 *   npm run smoke -- --base-url http://127.0.0.1:4000
 *   npm run smoke -- --outputs outputs.json [--stack ScheduledPayments-dev]
 *
 * With --outputs (the file `cdk deploy --outputs-file` writes) the API URL, token URL and client id
 * come from the stack's outputs and the client secret from SMOKE_CLIENT_SECRET or, when unset,
 * from `aws cognito-idp describe-user-pool-client`. The merchant (--mid, default 32350000001, in the
 * test range the trigger accepts) must be registered and granted to the client (docs/operating.md "Deploy").
 * The trigger exists outside prod only: the smoke test is for dev (and the local runtime).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sleep } from '../lambdas/shared/clock';

interface Target {
  readonly baseUrl: string;
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
}

const { values } = parseArgs({
  options: {
    outputs: { type: 'string' },
    stack: { type: 'string', default: 'ScheduledPayments-dev' },
    'base-url': { type: 'string' },
    'data-dir': { type: 'string' },
    'client-id': { type: 'string' },
    'client-secret': { type: 'string' },
    mid: { type: 'string', default: '32350000001' },
    'timeout-seconds': { type: 'string', default: '180' },
  },
});

function clientSecretOf(userPoolId: string, clientId: string): string {
  const fromEnv = process.env.SMOKE_CLIENT_SECRET ?? values['client-secret'];
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  return execFileSync(
    'aws',
    [
      'cognito-idp',
      'describe-user-pool-client',
      '--user-pool-id',
      userPoolId,
      '--client-id',
      clientId,
    ].concat(['--query', 'UserPoolClient.ClientSecret', '--output', 'text']),
    { encoding: 'utf8' },
  ).trim();
}

/** The local runtime's address as `npm start` recorded it (`<data dir>/runtime.json`), as `spay login` reads it. */
function recordedUrl(): string {
  const file = join(values['data-dir'] ?? process.env.DATA_DIR ?? '.data', 'runtime.json');
  if (!existsSync(file)) return 'http://127.0.0.1:3000';
  return (JSON.parse(readFileSync(file, 'utf8')) as { url?: string }).url ?? 'http://127.0.0.1:3000';
}

function target(): Target {
  if (values.outputs === undefined) {
    const baseUrl = (values['base-url'] ?? recordedUrl()).replace(/\/$/, '');
    return {
      baseUrl,
      tokenUrl: `${baseUrl}/oauth2/token`,
      clientId: values['client-id'] ?? 'local-tester',
      clientSecret: values['client-secret'] ?? 'local-tester-secret',
    };
  }
  const all = JSON.parse(readFileSync(values.outputs, 'utf8')) as Record<string, Record<string, string>>;
  const outputs = all[values.stack];
  if (outputs === undefined) throw new Error(`${values.outputs} has no outputs of ${values.stack}`);
  const need = (key: string): string => {
    const value = outputs[key];
    if (value === undefined) throw new Error(`${values.stack} has no output ${key}`);
    return value;
  };
  const clientId = values['client-id'] ?? need('ClientId');
  return {
    baseUrl: need('ApiUrl').replace(/\/$/, ''),
    tokenUrl: need('TokenUrl'),
    clientId,
    clientSecret: clientSecretOf(need('UserPoolId'), clientId),
  };
}

async function call(url: string, init: RequestInit, expected: number[]): Promise<Record<string, unknown>> {
  const response = await fetch(url, init);
  const text = await response.text();
  if (!expected.includes(response.status))
    throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${text.slice(0, 300)}`);
  return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
}

async function main(): Promise<void> {
  const t = target();
  const mid = values.mid;
  const merchant = `${t.baseUrl}/rest/merchants/${mid}`;
  const state: { token?: string; profileId?: string; groupId?: string } = {};
  const json = (body?: unknown): RequestInit => ({
    method: 'POST',
    headers: { Authorization: `Bearer ${state.token}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

  const steps: [string, () => Promise<string>][] = [
    [
      'token',
      async () => {
        const basic = Buffer.from(`${t.clientId}:${t.clientSecret}`).toString('base64');
        const body = await call(
          t.tokenUrl,
          {
            method: 'POST',
            headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded' },
            body: 'grant_type=client_credentials',
          },
          [200],
        );
        state.token = String(body.access_token);
        return `client ${t.clientId}, expires in ${String(body.expires_in)} s`;
      },
    ],
    [
      'payor',
      async () => {
        const payor = await call(
          `${t.baseUrl}/v1/rest/merchants/${mid}/payors`,
          json({
            customerAccountId: `smoke-${randomUUID()}`,
            paymentMethod: {
              accountType: 'VISA',
              cardNumber: '4111111111111111',
              expiryMonth: 12,
              expiryYear: 2035,
              billingAddress: {
                line1: '1 Smoke Street',
                city: 'Springfield',
                state: 'OR',
                postalCode: '97475',
                country: 'US',
              },
            },
          }),
          [200, 201],
        );
        state.profileId = `${String(payor.payorId)}/${String(payor.defaultPaymentMethodId)}`;
        return `profile ${state.profileId}`;
      },
    ],
    [
      'group',
      async () => {
        const group = await call(
          `${merchant}/groups`,
          json({
            servicePayId: mid,
            scheduleDate: tomorrow,
            scheduleHour: 14,
            locationId: 1,
            payments: [{ profileId: state.profileId, amount: 1.23, orderId: 'SMOKE-1' }],
          }),
          [200, 201],
        );
        state.groupId = String(group.paymentGroupId);
        return `group ${state.groupId} for ${tomorrow} 14:00 UTC`;
      },
    ],
    [
      'trigger',
      async () => {
        const result = await call(`${merchant}/groups/${state.groupId}/process-payments`, json(), [200]);
        const [entry] = (result.triggeredGroups ?? []) as Record<string, unknown>[];
        if (entry === undefined || entry.error !== undefined)
          throw new Error(`not started: ${JSON.stringify(result)}`);
        return 'execution started';
      },
    ],
    [
      'wait for processed',
      async () => {
        const deadline = Date.now() + Number(values['timeout-seconds']) * 1000;
        for (;;) {
          const group = await call(
            `${merchant}/groups/${state.groupId}`,
            { ...json(), method: 'GET' },
            [200],
          );
          if (group.status === 'processed')
            return `processed: ${JSON.stringify(group.processingSummary ?? {})}`;
          if (Date.now() > deadline)
            throw new Error(`still ${String(group.status)} after ${values['timeout-seconds']} s`);
          await sleep(1000);
        }
      },
    ],
    [
      'void-or-refund',
      async () => {
        const result = await call(`${merchant}/groups/${state.groupId}/void-or-refund`, json(), [200, 202]);
        // A sale inside the void margin of its settlement cut-off is neither voided nor refunded
        // yet: its refund is scheduled for right after the cut-off, which reverses it too.
        const reversed =
          Number(result.voidedCount ?? 0) +
          Number(result.refundedCount ?? 0) +
          Number(result.refundScheduledCount ?? 0);
        if (reversed !== 1 && result.status !== 'accepted')
          throw new Error(`nothing reversed: ${JSON.stringify(result)}`);
        return `voided ${String(result.voidedCount)}, refunded ${String(result.refundedCount)}, refund scheduled ${String(result.refundScheduledCount ?? 0)}`;
      },
    ],
  ];

  let failed = false;
  let passed = 0;
  for (const [name, step] of steps) {
    if (failed) {
      console.log(`SKIP ${name}`);
      continue;
    }
    const started = Date.now();
    try {
      const detail = await step();
      passed += 1;
      console.log(`PASS ${name} (${Date.now() - started} ms): ${detail}`);
    } catch (error) {
      failed = true;
      console.log(
        `FAIL ${name} (${Date.now() - started} ms): ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  console.log(`smoke ${failed ? 'FAILED' : 'passed'}: ${passed}/${steps.length} steps against ${t.baseUrl}`);
  if (failed) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.log(`FAIL setup: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
