/**
 * The processors' own CPU per charge (issue 35: "the bench measures the adapter's CPU cost per
 * charge against the sandbox's"): the Stripe adapter (the official `stripe` package over HTTP) on
 * its stand-in answering at once, beside the sandbox (its ledger on the runtime's DynamoDB Local).
 * Each is driven through the processor port, one call at a time, in this bench process; what the
 * far side spends is left out: the stand-in runs in a process of its own
 * (bench/support/stripe-stand-in-process.ts), DynamoDB Local is the runtime's java process. So
 * `process.cpuUsage()` (user + system) over a run of calls is the adapter's own cost: building the
 * requests, its client library, the HTTP or SDK round trip on loopback, reading the answers.
 *
 * A tokenize vaults a new payor's card (the Stripe adapter: a customer, a PaymentMethod attached
 * to it); a sale charges one of those tokens under a new key (one PaymentIntent; the sandbox: its
 * ledger's write). The two processors alternate by rounds (A B, then B A), so that drift (the JIT,
 * the machine's other load) falls on both alike. The merchant's connected account is a fixed
 * mapping: the registry's look-up is the service's cost, not the adapter's.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { PaymentProcessor } from '../../lambdas/processor/processor';
import { SandboxProcessor } from '../../lambdas/processor/sandbox';
import { fixedAccounts } from '../../lambdas/processor/stripe/accounts';
import { stripeClient } from '../../lambdas/processor/stripe/client';
import { StripeProcessor } from '../../lambdas/processor/stripe/stripe-processor';
import { countingClient, MID, type BenchContext } from '../support/context';
import { round } from '../support/load';
import type { CustomSection, Results } from './section';

/** A test-mode key, which the stand-in alone accepts, and the merchant's account there. */
const STAND_IN_KEY = 'sk_test_bench0stand0in0key0not0a0real0key';
const ACCOUNT = 'acct_1BenchSpringfield';
const SCHEDULE = { periodSeconds: 3600, offsetSeconds: 1800 };
/** Calls of each kind per processor before measuring (the JIT, the connections), then per round. */
const WARM_UP = 50;
const ROUNDS = 8;
const PER_ROUND = 50;

type Kind = 'tokenize' | 'sale';
const KINDS: readonly Kind[] = ['tokenize', 'sale'];

interface ProcessorCpu {
  /** CPU (user + system) of the bench process per call, µs. */
  cpuUs: Record<Kind, number>;
  /** Of which user time, µs. */
  userUs: Record<Kind, number>;
  /** Wall time per call, ms (one call at a time; the far side's time included). */
  wallMs: Record<Kind, number>;
  /** What one call asks of the far side (DynamoDB commands; Stripe's requests), counted in the warm-up. */
  callsPerCall: Record<Kind, Record<string, number>>;
}

interface ProcessorCpuResult {
  callsPerKind: number;
  rounds: number;
  warmUp: number;
  sandbox: ProcessorCpu;
  stripe: ProcessorCpu;
  /** Stripe's CPU per call over the sandbox's. */
  ratio: Record<Kind, number>;
}

/** The stand-in in its own process, listening; `stop` ends it. */
async function startStandInProcess(): Promise<{ port: number; stop(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(__dirname, '..', 'support', 'stripe-stand-in-process.ts'),
      STAND_IN_KEY,
      ACCOUNT,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = once(child, 'exit');
  const lines = createInterface({ input: child.stdout });
  const [first] = (await Promise.race([
    once(lines, 'line'),
    exited.then(([code]) => {
      throw new Error(`the stand-in's process exited (${String(code)}) before listening`);
    }),
  ])) as [string];
  const { port } = JSON.parse(first) as { port: number };
  return {
    port,
    async stop() {
      lines.close();
      child.stdin.end();
      await exited;
    },
  };
}

/** One processor driven through the port: a new payor's card vaulted, or a sale of a vaulted card. */
function driver(processor: PaymentProcessor, run: string) {
  let n = 0;
  const tokens: string[] = [];
  const calls: Record<Kind, () => Promise<unknown>> = {
    async tokenize() {
      const { token } = await processor.tokenize({
        merchantId: MID,
        payorId: `bench-cpu-${run}-${++n}`,
        kind: 'card',
        number: '4242424242424242',
        expiryMonth: 12,
        expiryYear: 2034,
      });
      tokens.push(token);
    },
    async sale() {
      const result = await processor.sale({
        idempotencyKey: `sale:bench-cpu-${run}-${++n}`,
        keyFirstUsedAt: new Date().toISOString(),
        merchantId: MID,
        token: tokens[n % tokens.length]!,
        amountCents: 2500,
        allowPartial: false,
      });
      if (!result.approved) throw new Error(`processor-cpu: a sale declined ${result.responseCode}`);
    },
  };
  return calls;
}

type Totals = Record<Kind, { cpuUs: number; userUs: number; wallMs: number; calls: number }>;

/** `count` calls of `call`, one at a time, added to `totals`. */
async function measured(call: () => Promise<unknown>, count: number, total: Totals[Kind]): Promise<void> {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < count; i++) await call();
  const used = process.cpuUsage(cpu);
  total.cpuUs += used.user + used.system;
  total.userUs += used.user;
  total.wallMs += performance.now() - wall;
  total.calls += count;
}

const processorCpu = (t: Totals, callsPerCall: ProcessorCpu['callsPerCall']): ProcessorCpu => ({
  cpuUs: perKind(t, 'cpuUs', 0),
  userUs: perKind(t, 'userUs', 0),
  wallMs: perKind(t, 'wallMs', 2),
  callsPerCall,
});

/** Per call, rounded: a count or a time over the calls made. */
const perKind = (t: Totals, field: 'cpuUs' | 'userUs' | 'wallMs', digits: number) =>
  Object.fromEntries(KINDS.map((k) => [k, round(t[k][field] / t[k].calls, digits)])) as Record<Kind, number>;

/** Counts per call, rounded (a transaction's items left out). */
const per = (counts: Record<string, number>, calls: number) =>
  Object.fromEntries(
    Object.entries(counts)
      .filter(([k]) => !k.includes('.'))
      .map(([k, v]) => [k, round(v / calls, 2)]),
  );

/** A Stripe request as `POST /v1/payment_methods/{id}/attach` (its ids and query left out). */
const requestName = (method: string, path: string) =>
  `${method} ${path.replace(/\?.*$/, '').replace(/\/(pm|cus|pi|seti|re|ch)_\w+/g, '/{id}')}`;

async function run(ctx: BenchContext): Promise<Results> {
  const standIn = await startStandInProcess();
  try {
    const runId = Date.now().toString(36);
    // What each side asks of its far side, counted in the warm-up alone (counting costs CPU too).
    const counts = { sandbox: {} as Record<string, number>, stripe: {} as Record<string, number> };
    let counting = false;
    const client = stripeClient({
      secretKey: STAND_IN_KEY,
      api: { host: '127.0.0.1', port: standIn.port, protocol: 'http' },
    });
    client.on('request', (request: { method: string; path: string }) => {
      if (!counting) return;
      const name = requestName(request.method, request.path);
      counts.stripe[name] = (counts.stripe[name] ?? 0) + 1;
    });
    const stripe = new StripeProcessor({
      stripe: client,
      accounts: fixedAccounts({ [MID]: ACCOUNT }),
      schedule: SCHEDULE,
    });
    const sandbox = (db: typeof ctx.db) => new SandboxProcessor(db, ctx.runtime.tableName, SCHEDULE);
    const sides = {
      sandbox: driver(sandbox(ctx.db), `${runId}-sbx`),
      stripe: driver(stripe, `${runId}-str`),
    };
    const warmUps = {
      sandbox: driver(sandbox(countingClient(ctx.db, counts.sandbox)), `${runId}-sbx-warm`),
      stripe: driver(stripe, `${runId}-str-warm`),
    };
    const names = ['sandbox', 'stripe'] as const;
    const empty = (): Totals => ({
      tokenize: { cpuUs: 0, userUs: 0, wallMs: 0, calls: 0 },
      sale: { cpuUs: 0, userUs: 0, wallMs: 0, calls: 0 },
    });
    const totals = { sandbox: empty(), stripe: empty() };
    const calls = { sandbox: { tokenize: {}, sale: {} }, stripe: { tokenize: {}, sale: {} } } as Record<
      (typeof names)[number],
      ProcessorCpu['callsPerCall']
    >;
    console.log(
      `  processor-cpu: ${WARM_UP} calls of each kind per processor to warm up, then ${ROUNDS} rounds of ` +
        `${PER_ROUND}, one call at a time ...`,
    );
    for (const name of names)
      for (const kind of KINDS) {
        for (const key of Object.keys(counts[name])) delete counts[name][key];
        counting = true;
        await measured(warmUps[name][kind], WARM_UP, empty()[kind]);
        counting = false;
        calls[name][kind] = per(counts[name], WARM_UP);
      }
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? names : [...names].reverse();
      for (const name of order)
        for (const kind of KINDS) await measured(sides[name][kind], PER_ROUND, totals[name][kind]);
    }
    const result: ProcessorCpuResult = {
      callsPerKind: ROUNDS * PER_ROUND,
      rounds: ROUNDS,
      warmUp: WARM_UP,
      sandbox: processorCpu(totals.sandbox, calls.sandbox),
      stripe: processorCpu(totals.stripe, calls.stripe),
      ratio: { tokenize: 0, sale: 0 },
    };
    for (const kind of KINDS)
      result.ratio[kind] = round(result.stripe.cpuUs[kind] / result.sandbox.cpuUs[kind], 2);
    console.log(
      `  processor-cpu: CPU µs per tokenize / sale: sandbox ${result.sandbox.cpuUs.tokenize} / ` +
        `${result.sandbox.cpuUs.sale}, Stripe ${result.stripe.cpuUs.tokenize} / ${result.stripe.cpuUs.sale}`,
    );
    return { processorCpu: result };
  } finally {
    await standIn.stop();
  }
}

function report(results: Results) {
  const r = results.processorCpu as ProcessorCpuResult | undefined;
  if (!r) return undefined;
  const line = (name: string, p: ProcessorCpu) =>
    `  ${name}: ${p.cpuUs.tokenize} µs per tokenize, ${p.cpuUs.sale} µs per sale ` +
    `(wall ${p.wallMs.tokenize} / ${p.wallMs.sale} ms)`;
  const text = [
    `processors' own CPU per call (${r.callsPerKind} calls of each kind, one at a time): ` +
      `Stripe / sandbox ${r.ratio.tokenize}× per tokenize, ${r.ratio.sale}× per sale`,
    line('sandbox (DynamoDB Local)', r.sandbox),
    line('Stripe adapter (stand-in)', r.stripe),
  ].join('\n');
  const callsOf = (c: Record<string, number>) =>
    Object.entries(c)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}×${v}`)
      .join(', ') || 'none';
  const row = (name: string, p: ProcessorCpu) =>
    `| ${name} | ${p.cpuUs.tokenize} (${p.userUs.tokenize} user) | ${p.cpuUs.sale} (${p.userUs.sale} user) | ` +
    `${p.wallMs.tokenize} / ${p.wallMs.sale} | ${callsOf(p.callsPerCall.tokenize)} | ${callsOf(p.callsPerCall.sale)} |`;
  const markdown = [
    `Each processor driven through the processor port in the bench process, one call at a time: ` +
      `${r.warmUp} calls of each kind to warm up (its calls to the far side counted there), then ${r.rounds} ` +
      `rounds of ${r.callsPerKind / r.rounds}, the two processors alternating (A B, B A). CPU is the bench ` +
      `process's own (\`process.cpuUsage()\`, user + system): the adapter and its client library, never the far ` +
      `side's (the Stripe stand-in runs in a process of its own and answers at once; DynamoDB Local is the ` +
      `runtime's). A tokenize vaults a new payor's card (the sandbox makes no call: its token carries the card's ` +
      `test profile); a sale charges a vaulted card under a new key.`,
    '',
    '| processor | CPU µs per tokenize | CPU µs per sale | wall ms per tokenize / sale | calls per tokenize | calls per sale |',
    '|---|---|---|---|---|---|',
    row('sandbox (its ledger on DynamoDB Local)', r.sandbox),
    row('Stripe adapter (`stripe` package, stand-in)', r.stripe),
    `| Stripe / sandbox, by CPU | ${r.ratio.tokenize}× | ${r.ratio.sale}× | | | |`,
  ].join('\n');
  return { console: text, markdown };
}

export const processorCpuSection: CustomSection = {
  kind: 'custom',
  name: 'processor-cpu',
  title: "The processors' own CPU per call: the Stripe adapter beside the sandbox",
  run,
  report,
};
