/** The people's table of a reconciliation report: counts by kind, one aligned line per difference. */
import type { ReconcileReport } from '#core/reconcile';
import { DIFFERENCE_KINDS } from '#core/reconcile-compare';
import { alignColumns, renderReport } from '#core/reconcile-table';

const zero = () =>
  Object.fromEntries(
    DIFFERENCE_KINDS.map((k) => [k, { healed: 0, unhealed: 0 }]),
  ) as ReconcileReport['counts'];

const report = (over: Partial<ReconcileReport> = {}): ReconcileReport => ({
  since: '2026-05-10T00:00:00.000Z',
  until: '2026-05-11T00:00:00.000Z',
  generatedAt: '2026-05-11T00:05:00.000Z',
  staleMinutes: 30,
  counts: zero(),
  healed: 0,
  unhealed: 0,
  differences: [],
  returns: { count: 0, cents: 0 },
  ...over,
});

describe('alignColumns', () => {
  it('pads every column but the last to its widest cell', () => {
    expect(
      alignColumns([
        ['a', 'bb', 'c'],
        ['ccc', 'd', 'eeee'],
      ]),
    ).toBe('a    bb  c\nccc  d   eeee');
  });
});

describe('renderReport', () => {
  it('a clean report: the title and every kind counted zero, no difference lines', () => {
    const text = renderReport(report());
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe(
      'reconciliation 2026-05-10T00:00:00.000Z .. 2026-05-11T00:00:00.000Z: 0 unhealed, 0 healed',
    );
    expect(lines[2]).toBe('kind                   healed  unhealed');
    expect(lines.slice(3)).toEqual(DIFFERENCE_KINDS.map((k) => `${k.padEnd(21)}  0       0`));
  });

  it('one line per difference with amounts, ids and whether the sweeper healed it', () => {
    const counts = zero();
    counts['amount-mismatch'].unhealed = 1;
    counts['stale-pending'].healed = 1;
    const text = renderReport(
      report({
        counts,
        healed: 1,
        unhealed: 1,
        differences: [
          {
            kind: 'amount-mismatch',
            merchantId: '32350000001',
            transactionId: 't-1',
            processorKey: 'sale:t-1',
            recordCents: 1500,
            processorCents: 1000,
            detail: 'charged amount differs',
            healed: false,
          },
          {
            kind: 'stale-pending',
            merchantId: '32350000001',
            transactionId: 't-2',
            refundId: 'r-1',
            recordCents: 500,
            detail: 'refund Pending since 2026-05-10T10:00:00.000Z',
            healed: true,
          },
        ],
      }),
    );
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toContain(': 1 unhealed, 1 healed');
    expect(lines.slice(-3)).toEqual([
      'kind             healed  merchant     record  processor  ids                  detail',
      'amount-mismatch  no      32350000001  15.00   10.00      txn t-1              charged amount differs',
      'stale-pending    yes     32350000001  5.00    -          refund r-1, txn t-2  refund Pending since 2026-05-10T10:00:00.000Z',
    ]);
  });
});
