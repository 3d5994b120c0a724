/**
 * The bench's handler CPU budgets (bench/support/budgets.ts, issue 36 item 5): each route of the
 * table is within its budget, over it, without one or not measured, and bench/budgets.json gives
 * every route of the table a budget. No timing: the figures here are made up.
 */
import { routeList } from '#contract/routes/index';
import { checkBudgets, failures, readBudgets, trimmedMean } from '../../bench/support/budgets';

const figure = (us: number, requests = 30) => ({ us, requests, errors: 0 });

describe('checkBudgets', () => {
  test('a route at its budget is within it, one a microsecond over is over', () => {
    const rows = checkBudgets(['A', 'B'], { A: figure(1000), B: figure(1001) }, { A: 1000, B: 1000 });
    expect(rows).toEqual([
      { routeId: 'A', us: 1000, budgetUs: 1000, verdict: 'within' },
      { routeId: 'B', us: 1001, budgetUs: 1000, verdict: 'OVER' },
    ]);
    expect(failures(rows).map((r) => r.routeId)).toEqual(['B']);
  });

  test('a route without a budget, or not measured, fails; a budget of a route no longer in the table is ignored', () => {
    const rows = checkBudgets(
      ['New', 'Broken', 'Failed'],
      { New: figure(500), Failed: figure(NaN, 0) },
      { Broken: 900, Failed: 900, Removed: 100 },
    );
    expect(rows.map((r) => [r.routeId, r.verdict])).toEqual([
      ['New', 'no budget'],
      ['Broken', 'not measured'],
      ['Failed', 'not measured'],
    ]);
    expect(failures(rows)).toHaveLength(3);
  });

  test('rows come in the order of the route ids given (the table order)', () => {
    const rows = checkBudgets(['Z', 'A'], { A: figure(1), Z: figure(1) }, { A: 2, Z: 2 });
    expect(rows.map((r) => r.routeId)).toEqual(['Z', 'A']);
  });
});

describe('trimmedMean', () => {
  test('leaves a quarter off each end before averaging (the interquartile mean), or the share given', () => {
    expect(trimmedMean([10, 20, 30, 40, 1000, 0, 25, 35])).toBe(27.5);
    expect(trimmedMean([1, 2, 3, 4, 100], 0.2)).toBe(3);
  });

  test('keeps everything when the share rounds to no sample, and is NaN without samples', () => {
    expect(trimmedMean([2, 4])).toBe(3);
    expect(trimmedMean([])).toBeNaN();
  });
});

test('bench/budgets.json gives every route of the table a positive budget, and none to a route not in it', () => {
  const budgets = readBudgets().handlerCpuUs;
  const ids = routeList.map((r) => r.id);
  expect(ids.filter((id) => !(budgets[id]! > 0))).toEqual([]);
  expect(Object.keys(budgets).filter((id) => !ids.includes(id))).toEqual([]);
});
