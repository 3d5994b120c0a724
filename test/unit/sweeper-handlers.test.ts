/**
 * The sweeper's entry point (issue 13): the scheduled handler scheduled/settle-stale-work (staleness bound,
 * report); and GetTransaction, which only reads (issue 25, defect 5): a stale Pending sale is
 * answered as stored, the sweeper settles it. The sweep itself is proven on DynamoDB Local
 * (test/integration/money-safety-core.test.ts); here it is a mock.
 */
import '#support/handlers/env';
import { SWEEP_BUDGET_SECONDS, SWEEP_TIMEOUT_SECONDS } from '#contract/processing';
import type { Transaction } from '#domain/transactions';
import { voidMarginSeconds } from '#domain/transactions';
import { invoke, lambdaContext, MID, resetDb } from '#support/handlers/invoke';
import { transaction, TXN_ID } from '#support/fixtures/index';

const sweep = jest.fn();
const sweepSale = jest.fn();
const stored = new Map<string, Transaction>();
const requireSale = jest.fn(async (id: string) => ({ transaction: stored.get(id)!, refunds: [] }));

const sweepAbandonedCreates = jest.fn();
const sweepDeletions = jest.fn();

jest.doMock('#core/sweeper', () => ({ staleAfterSeconds: () => 15, sweep, sweepSale }));
jest.doMock('#core/groups', () => ({ sweepAbandonedCreates }));
jest.doMock('#core/method-deletion', () => ({ sweepDeletions }));
jest.doMock('#store/transactions', () => ({ transactionStore: () => ({ findForMerchant: requireSale }) }));

type Handler = (input: unknown, context: unknown) => Promise<unknown>;
let sweepHandler: Handler;
let getTransaction: unknown;
beforeAll(async () => {
  sweepHandler = (await import('#lambdas/scheduled/settle-stale-work')).handler as Handler;
  getTransaction = (await import('#lambdas/transactions/get-transaction')).handler;
});
beforeEach(() => {
  resetDb();
  sweep.mockReset();
  sweepSale.mockReset();
  sweepAbandonedCreates.mockReset().mockResolvedValue([]);
  sweepDeletions.mockReset().mockResolvedValue([]);
  requireSale.mockClear();
  stored.clear();
});

const EMPTY = { settled: [], reversed: [], unsettled: [], deferred: 0 };
const NOTHING_ABANDONED = { abandonedCreates: [], deletions: [] };

describe('scheduled/settle-stale-work (the scheduled sweeper)', () => {
  test('sweeps work older than the staleness bound by default and returns the report', async () => {
    sweep.mockResolvedValue(EMPTY);
    const before = Date.now();
    await expect(sweepHandler({ time: new Date().toISOString() }, lambdaContext)).resolves.toEqual({
      ...EMPTY,
      ...NOTHING_ABANDONED,
    });
    expect(sweep).toHaveBeenCalledWith(expect.any(Date), {
      olderThanSeconds: 15,
      deadline: expect.any(Number),
    });
    const [now, { deadline }] = sweep.mock.calls[0] as [Date, { deadline: number }];
    expect(now.getTime()).toBeGreaterThanOrEqual(before);
    // Bounded work: no item is started after the budget, which ends well before the timeout.
    expect(deadline - now.getTime()).toBe(SWEEP_BUDGET_SECONDS * 1000);
    expect(SWEEP_BUDGET_SECONDS).toBeLessThanOrEqual(SWEEP_TIMEOUT_SECONDS - 60);
  });

  test('takes olderThanSeconds from the event (the local route: 0 sweeps everything)', async () => {
    const report = {
      ...EMPTY,
      unsettled: [{ kind: 'sale', merchantId: MID, transactionId: TXN_ID, result: 'processor unavailable' }],
    };
    sweep.mockResolvedValue(report);
    await expect(sweepHandler({ olderThanSeconds: 0 }, lambdaContext)).resolves.toEqual({
      ...report,
      ...NOTHING_ABANDONED,
    });
    expect(sweep).toHaveBeenCalledWith(expect.any(Date), {
      olderThanSeconds: 0,
      deadline: expect.any(Number),
    });
  });

  test('removes group creates abandoned half-way, and says which', async () => {
    sweep.mockResolvedValue(EMPTY);
    sweepAbandonedCreates.mockResolvedValue(['g-1', 'g-2']);
    await expect(sweepHandler({}, lambdaContext)).resolves.toEqual({
      ...EMPTY,
      abandonedCreates: ['g-1', 'g-2'],
      deletions: [],
    });
    expect(sweepAbandonedCreates).toHaveBeenCalledWith(expect.any(Date), expect.any(Number));
  });

  test('takes over method deletions whose request died: a minute after they began, or as the event says', async () => {
    sweep.mockResolvedValue(EMPTY);
    const taken = [{ payorId: 'p-1', methodIds: ['m-1'], result: 'deleted' }];
    sweepDeletions.mockResolvedValue(taken);
    await expect(sweepHandler({}, lambdaContext)).resolves.toEqual({
      ...EMPTY,
      abandonedCreates: [],
      deletions: taken,
    });
    // Its own default (DELETION_SWEEP_AFTER_SECONDS) unless the event names one.
    expect(sweepDeletions).toHaveBeenLastCalledWith(expect.any(Date), { deadline: expect.any(Number) });
    await sweepHandler({ olderThanSeconds: 0 }, lambdaContext);
    expect(sweepDeletions).toHaveBeenLastCalledWith(expect.any(Date), {
      deadline: expect.any(Number),
      olderThanSeconds: 0,
    });
  });

  test('a failed sweep fails the invocation (the sweeper-errors alarm counts it)', async () => {
    sweep.mockRejectedValue(new Error('table unavailable'));
    await expect(sweepHandler({}, lambdaContext)).rejects.toThrow('table unavailable');
  });
});

describe('GetTransaction only reads (issue 25, defect 5)', () => {
  const get = () =>
    invoke(getTransaction, {
      method: 'GET',
      path: `/v1/rest/merchants/${MID}/transactions/${TXN_ID}`,
      pathParameters: { MID, TransactionID: TXN_ID },
    });
  const pending = (ageSeconds: number) =>
    transaction({
      status: 'Pending',
      responseCode: 'PD',
      responseMessage: 'Pending',
      approvedCents: 0,
      processedAt: new Date(Date.now() - ageSeconds * 1000).toISOString(),
      processorKey: `sale:${TXN_ID}`,
    });

  test('a Pending sale older than the sweep bound is answered Pending, and nothing settles it on the GET', async () => {
    stored.set(TXN_ID, pending(20));
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ transactionId: TXN_ID, status: 'Pending', responseCode: 'PD' });
    expect(sweepSale).not.toHaveBeenCalled();
  });

  test('a settled sale is answered as stored', async () => {
    stored.set(TXN_ID, transaction());
    expect((await get()).body).toMatchObject({ status: 'Approved' });
    expect(sweepSale).not.toHaveBeenCalled();
  });
});

describe('the void safety margin', () => {
  test.each([
    [86_400, 120],
    [3600, 36],
    [300, 3],
    [8, 0.08],
  ])('settlement every %i s: no void within %d s of the cut-off', (period, margin) => {
    expect(voidMarginSeconds(period)).toBe(margin);
  });
});
