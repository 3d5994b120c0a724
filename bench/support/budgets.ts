/**
 * Each route's handler CPU per request against its budget (bench/budgets.json): the bench's
 * yardstick that does not move with DynamoDB Local (issue 36 item 5). The handler-cpu section
 * measures the figures (bench/sections/handler-cpu.ts); this compares them, apart from any I/O so
 * that a unit test can check it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One route's measurement: the interquartile mean of its requests' handler CPU, in µs (trimmedMean). */
export interface RouteCpu {
  us: number;
  /** Successful requests measured (failed ones are left out of `us`). */
  requests: number;
  /** Requests that did not answer the route's success status. */
  errors: number;
}

export type Verdict = 'within' | 'OVER' | 'no budget' | 'not measured';

export interface BudgetRow {
  routeId: string;
  us?: number;
  budgetUs?: number;
  verdict: Verdict;
}

interface Budgets {
  /** Why the numbers are what they are (the file's own note). */
  readonly comment?: string;
  /** Per route id (contract/routes), the most handler CPU per request it may use, in µs. */
  readonly handlerCpuUs: Readonly<Record<string, number>>;
}

const BUDGETS_JSON = join(__dirname, '..', 'budgets.json');

export const readBudgets = (file = BUDGETS_JSON): Budgets =>
  JSON.parse(readFileSync(file, 'utf8')) as Budgets;

/**
 * Every route of `routeIds` (the route table, in its order) with its figure, budget and verdict:
 * over its budget, within it, without one (a new route: give it one), or not measured (the section
 * failed to measure it: a failure too). Budgets of routes no longer in the table are ignored.
 */
export function checkBudgets(
  routeIds: readonly string[],
  figures: Readonly<Record<string, RouteCpu | undefined>>,
  budgets: Readonly<Record<string, number>>,
): BudgetRow[] {
  return routeIds.map((routeId) => {
    const figure = figures[routeId];
    const budgetUs = budgets[routeId];
    const base = { routeId, ...(figure && { us: figure.us }), ...(budgetUs !== undefined && { budgetUs }) };
    if (!figure || figure.requests === 0) return { ...base, verdict: 'not measured' };
    if (budgetUs === undefined) return { ...base, verdict: 'no budget' };
    return { ...base, verdict: figure.us > budgetUs ? 'OVER' : 'within' };
  });
}

/** The rows that fail the yardstick: over budget, without one, or not measured. */
export const failures = (rows: readonly BudgetRow[]): BudgetRow[] =>
  rows.filter((r) => r.verdict !== 'within');

/**
 * The mean of the middle of `samples` (by default a quarter left off at each end: the interquartile
 * mean): a request that a garbage collection or the runtime's background work (its stream reader)
 * happened to land in does not move the figure, nor does an unusually quick one.
 */
export function trimmedMean(samples: readonly number[], trim = 0.25): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const cut = Math.floor(sorted.length * trim);
  const kept = sorted.slice(cut, sorted.length - cut);
  return kept.reduce((sum, x) => sum + x, 0) / kept.length;
}
