/**
 * Races on one sale (issue 25, defects 1 and 3): parallel voids, refunds against voids, and a void
 * the processor approves after a concurrent refusal. DynamoDB Local with the sandbox processor;
 * every caller's answer is asserted, not only the sale's end state. A loser of a conditional write
 * re-reads and answers what happened; it never gives a reason that is not true.
 */
import { requireTransaction } from '#core/transactions';
import { refundSale, voidSale } from '#core/reversals';
import { runSale } from '#core/sale';
import type { Transaction } from '#domain/transactions';
import { useProcessor } from '#processor/index';
import type { ReversalRequest, ReversalResult } from '#processor/processor';
import { SandboxProcessor } from '#processor/sandbox';
import { reloadConfigForTests } from '#shared/config';
import { ddb } from '#shared/ddb';
import { BadRequestError } from '#shared/errors';
import { newId } from '#shared/ids';
import { transactionStore, useTransactionStore } from '#store/transactions';
import { createTestTable, type TestTable } from '#support/ddb';
import { FaultyProcessor } from '#support/processor-double';
import { saleRequest, storedProfile } from '#support/sales';

let table: TestTable;
let sandbox: SandboxProcessor;
let processor: FaultyProcessor;
const MERCHANT = '32350000001';
const T0 = Date.now();
/** Sales made now settle about 12 hours from now (a daily cut-off placed there). */
const SCHEDULE = { periodSeconds: 86_400, offsetSeconds: (Math.floor(T0 / 1000) + 43_200) % 86_400 };
const unsettled = () => new Date();
const settled = () => new Date(T0 + 13 * 3600_000);

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  reloadConfigForTests();
  sandbox = new SandboxProcessor(ddb(), table.tableName, SCHEDULE);
  processor = new FaultyProcessor(sandbox);
  useProcessor(processor);
});
afterEach(() => {
  processor.clear();
  useProcessor(processor);
  useTransactionStore(undefined);
});
afterAll(async () => {
  useProcessor(undefined);
  await table.drop();
});

async function approvedSale(amountCents: number): Promise<Transaction> {
  const profileId = await storedProfile(table, MERCHANT);
  const txn = await runSale(saleRequest(MERCHANT, profileId, amountCents), unsettled());
  expect(txn.status).toBe('Approved');
  return txn;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every caller's outcome: the value, or the error's message (a 400's words are its reason). */
async function outcomes<T>(calls: (() => Promise<T>)[], staggerMs = 0.5): Promise<PromiseSettledResult<T>[]> {
  return Promise.allSettled(
    calls.map(async (call, i) => {
      await pause(i * staggerMs);
      return call();
    }),
  );
}

const message = (r: PromiseSettledResult<unknown>): string =>
  r.status === 'rejected' ? String((r.reason as Error).message) : '';

describe('parallel voids of one sale', () => {
  test('a concurrent void never answers a false refusal: 16 parallel voids of each of 10 sales all answer the voided sale', async () => {
    const sales = await Promise.all(Array.from({ length: 10 }, (_, i) => approvedSale(1000 + i)));
    const results = await Promise.all(
      sales.map((txn) =>
        outcomes(
          Array.from({ length: 16 }, () => () => voidSale(MERCHANT, txn.transactionId, unsettled())),
          1.5,
        ),
      ),
    );
    for (const [i, perSale] of results.entries()) {
      const refusals = perSale.filter((r) => r.status === 'rejected').map(message);
      expect(refusals).toEqual([]);
      const answers = perSale.map((r) => (r as PromiseFulfilledResult<Transaction>).value);
      expect(answers.every((t) => t.status === 'Voided')).toBe(true);
      expect(new Set(answers.map((t) => t.voidedAt)).size).toBe(1);
      // One void moved the money: the processor's ledger holds one approved void for the sale.
      const entry = await sandbox.ledger('VOID', `void:${sales[i]!.transactionId}`);
      expect(entry?.result).toMatchObject({ approved: true });
    }
  });

  test('a void that read the sale before a concurrent void marked it Voided, and reserves after, answers the voided sale', async () => {
    const txn = await approvedSale(1500);
    const real = transactionStore();
    const gate = new Gate();
    let reads = 0;
    let reservations = 0;
    // Both callers read the sale Approved (the first reserves only once both have read: a read
    // answered after its reservation saw the void under way, and the test its 1 reservation); the
    // second reserves only once the first marked it Voided.
    useTransactionStore({
      ...bind(real),
      findForMerchant: async (id, merchantId) => {
        const found = await real.findForMerchant(id, merchantId);
        if (++reads === 2) gate.open('both read');
        return found;
      },
      reserveVoid: async (id, at) => {
        const reservation = ++reservations;
        if (reservation === 1) await gate.wait('both read');
        if (reservation === 2) await gate.wait('voided');
        return real.reserveVoid(id, at);
      },
      markVoided: async (id, at) => {
        await real.markVoided(id, at);
        gate.open('voided');
      },
    });
    const answers = await Promise.all([
      voidSale(MERCHANT, txn.transactionId, unsettled()),
      voidSale(MERCHANT, txn.transactionId, unsettled()),
    ]);
    expect(reservations).toBe(2);
    expect(answers.map((t) => t.status)).toEqual(['Voided', 'Voided']);
    expect(answers[0]!.voidedAt).toBe(answers[1]!.voidedAt);
  });
});

describe('a refund racing a void', () => {
  test('a refund that loses to a concurrently reserved void answers that the sale is being voided, not an exceeded amount', async () => {
    const txn = await approvedSale(3200);
    const real = transactionStore();
    // The void is reserved between the refund's read and its reservation.
    useTransactionStore({
      ...bind(real),
      reserveRefund: async (sale, refund) => {
        expect(await real.reserveVoid(sale.transactionId, new Date().toISOString())).toBe(true);
        return real.reserveRefund(sale, refund);
      },
    });
    const refused = refundSale(MERCHANT, txn.transactionId, 3200, newId(), settled());
    await expect(refused).rejects.toBeInstanceOf(BadRequestError);
    await expect(refused).rejects.toThrow(
      `transaction ${txn.transactionId} is being voided; nothing to refund`,
    );
  });

  test('8 voids and 8 refunds of each of 8 sales in parallel: one kind wins, and every loser names the true reason', async () => {
    const sales = await Promise.all(Array.from({ length: 8 }, (_, i) => approvedSale(2000 + i)));
    for (const txn of sales) {
      const calls = Array.from({ length: 16 }, (_, i) =>
        i % 2 === 0
          ? () => voidSale(MERCHANT, txn.transactionId, unsettled())
          : () => refundSale(MERCHANT, txn.transactionId, txn.approvedCents, newId(), settled()),
      );
      const results = await outcomes<unknown>(calls);
      const { transaction: end, refunds } = await requireTransaction(txn.transactionId, MERCHANT);
      const voids = results.filter((_, i) => i % 2 === 0);
      const refundsAsked = results.filter((_, i) => i % 2 === 1);
      if (end.status === 'Voided') {
        expect(refunds).toEqual([]);
        expect(voids.every((r) => r.status === 'fulfilled')).toBe(true);
        for (const r of refundsAsked) {
          expect(r.status).toBe('rejected');
          expect(message(r)).toMatch(/is being voided; nothing to refund|is Voided; nothing to refund/);
        }
      } else {
        // A refund of the whole amount won: exactly one refund, every void refused for it.
        expect(end.status).toBe('Approved');
        expect(refunds).toHaveLength(1);
        expect(refundsAsked.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        for (const r of voids) expect(message(r)).toMatch(/has refunds; it cannot be voided/);
        for (const r of refundsAsked.filter((x) => x.status === 'rejected'))
          expect(message(r)).toMatch(/exceeds availableRefundAmount 0\.00/);
      }
    }
  });
});

describe('a void the processor approves after a concurrent refusal', () => {
  test('an approved void racing a released reservation is recorded: the sale ends Voided, not Approved and refundable', async () => {
    const txn = await approvedSale(4100);
    const gate = new Gate();
    let calls = 0;
    let firstDone: Promise<unknown> = Promise.resolve();
    let second: Promise<Transaction> | undefined;
    // Call 1 (caller A, who reserved) starts caller B, waits for B's call, and is refused: A
    // releases the reservation. Call 2 (caller B, who read the reservation) is approved after that.
    useProcessor({
      ...bindProcessor(processor),
      void: async (request: ReversalRequest): Promise<ReversalResult> => {
        calls++;
        if (calls === 1) {
          second = voidSale(MERCHANT, txn.transactionId, unsettled());
          await gate.wait('second-call');
          return { ...refused(), processedAt: new Date().toISOString() };
        }
        gate.open('second-call');
        await firstDone.catch(() => undefined);
        return sandbox.void(request);
      },
    });
    const first = voidSale(MERCHANT, txn.transactionId, unsettled());
    firstDone = first;
    await expect(first).rejects.toThrow('the processor refused the void');
    const answer = await second!;
    expect(answer.status).toBe('Voided');
    const { transaction: end } = await requireTransaction(txn.transactionId, MERCHANT);
    expect(end.status).toBe('Voided');
    // Voided means nothing is left to refund.
    await expect(refundSale(MERCHANT, txn.transactionId, 100, newId(), settled())).rejects.toThrow(
      'is Voided; nothing to refund',
    );
  });
});

/** Named gates: `wait` resolves once `open` was called with the same name. */
class Gate {
  private readonly opened = new Map<string, () => void>();
  private readonly waits = new Map<string, Promise<void>>();
  private entry(name: string): Promise<void> {
    let waiting = this.waits.get(name);
    if (!waiting) {
      waiting = new Promise<void>((resolve) => this.opened.set(name, resolve));
      this.waits.set(name, waiting);
    }
    return waiting;
  }
  wait(name: string): Promise<void> {
    return this.entry(name);
  }
  open(name: string): void {
    void this.entry(name);
    this.opened.get(name)!();
  }
}

const refused = (): Omit<ReversalResult, 'processedAt'> => ({
  approved: false,
  processorTransactionId: 'declined',
  responseCode: '12',
  responseMessage: 'Invalid transaction',
});

/** An object's methods bound to it, as plain properties (to override one in a spread). */
function bind<T extends object>(target: T): { [K in keyof T]: T[K] } {
  const out: Record<string, unknown> = {};
  let proto: object | null = target;
  while (proto && proto !== Object.prototype) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const value = (target as Record<string, unknown>)[name];
      if (name !== 'constructor' && typeof value === 'function' && !(name in out))
        out[name] = (value as (...a: unknown[]) => unknown).bind(target);
    }
    proto = Object.getPrototypeOf(proto);
  }
  return out as { [K in keyof T]: T[K] };
}
const bindProcessor = bind;
