/**
 * The reconciliation function (lambdas/scheduled/reconcile.ts) logs its report as ONE log line, and
 * the alarm's metric
 * (`ReconciliationUnhealed`, lib/cdk/reconciliation.ts) is a metric filter reading `$.unhealed`
 * from that line's JSON; its alarm treats missing data as not breaching (lib/cdk/alarms.ts). A
 * CloudWatch Logs event is at most 256 KB (Lambda truncates a longer line), so a run with many
 * differences (a processed group of thousands of unanswered payments, a day of stale Pending sales)
 * logs a line that is no JSON any more: no metric, no alarm, exactly when there is most to heal. The
 * same report is the function's answer to `npm run admin -- reconcile` (a synchronous invocation,
 * at most Lambda's 6 MB).
 */
import '#support/handlers/env';
import type { Context } from 'aws-lambda';
import type { ReconcileDeps } from '#core/reconcile';
import type { Payment } from '#domain/groups';
import { logger } from '#shared/logger';
import { newId } from '#shared/ids';
import { payment } from '#support/fixtures/index';

/** What the service's stores read for the window: `mockUnanswered` payments without an answer. */
let mockUnanswered: Payment[] = [];
jest.mock('#core/reconcile', () => {
  const actual = jest.requireActual<typeof import('#core/reconcile')>('#core/reconcile');
  const deps = {
    records: {
      salesBetween: () => Promise.resolve([]),
      refundsBetween: () => Promise.resolve([]),
      sale: () => Promise.resolve(undefined),
      unansweredPayments: () => Promise.resolve(mockUnanswered),
    },
    processor: { listActivity: () => Promise.resolve([]) },
    sweep: () => Promise.resolve(undefined),
  } as unknown as ReconcileDeps;
  return {
    ...actual,
    reconcile: (options: Parameters<typeof actual.reconcile>[0]) => actual.reconcile(options, deps),
  };
});

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { handler } = require('#lambdas/scheduled/reconcile') as typeof import('#lambdas/scheduled/reconcile');

const CLOUDWATCH_LOG_EVENT_BYTES = 256 * 1024;
const LAMBDA_RESPONSE_BYTES = 6 * 1024 * 1024;

const context = {
  functionName: 'reconcile',
  awsRequestId: 'r',
  getRemainingTimeInMillis: () => 900_000,
} as unknown as Context;

/** The day's run with `n` unanswered payments (one processed group's): its log line and its answer. */
async function run(n: number) {
  const groupId = newId();
  mockUnanswered = Array.from({ length: n }, () =>
    payment({ paymentGroupId: groupId, paymentId: newId(), authResponse: null }),
  );
  const lines: string[] = [];
  jest.spyOn(logger, 'info').mockImplementation((message: unknown, ...extra: unknown[]) => {
    // The line as the logger writes it: the message and the attributes in one JSON object.
    lines.push(JSON.stringify(Object.assign({ level: 'INFO', message }, ...(extra as object[]))));
  });
  const report = await handler({ time: '2026-11-26T02:15:00Z' }, context);
  const line = lines.find((l) => l.includes('"reconciliation report"'))!;
  return {
    report,
    logged: JSON.parse(line) as { unhealed: number; report: { differencesNotListed?: number } },
    lineBytes: Buffer.byteLength(line),
    answerBytes: Buffer.byteLength(JSON.stringify(report)),
  };
}

afterEach(() => jest.restoreAllMocks());

test("defect: the reconciliation report's log line, which the unhealed alarm reads, listed every difference: with 5,000 it passed a CloudWatch Logs event (no metric, no alarm); it lists some, counts all", async () => {
  const { report, logged, lineBytes } = await run(5_000);
  expect(report.unhealed).toBe(5_000);
  expect(lineBytes).toBeLessThanOrEqual(CLOUDWATCH_LOG_EVENT_BYTES);
  expect(logged.unhealed).toBe(5_000);
  expect(logged.report.differencesNotListed).toBe(5_000 - 200);
});

test("defect: the reconciliation function's answer (admin reconcile --stage) listed every difference: with 30,000 it passed Lambda's 6 MB; it lists 10,000, unhealed first, and counts all", async () => {
  const { report, answerBytes } = await run(30_000);
  expect(report.unhealed).toBe(30_000);
  expect(answerBytes).toBeLessThanOrEqual(LAMBDA_RESPONSE_BYTES);
  expect(report.differences).toHaveLength(10_000);
  expect(report.differencesNotListed).toBe(20_000);
});

test('a report lists its unhealed differences before its healed ones when it cannot list them all', async () => {
  const { listedDifferences } = jest.requireActual<typeof import('#core/reconcile')>('#core/reconcile');
  const { report } = await run(3);
  const healed = report.differences.map((d) => ({ ...d, healed: true }));
  const mixed = { ...report, differences: [...healed, report.differences[0]!] };
  const listed = listedDifferences(mixed, 2);
  expect(listed.differences.map((d) => d.healed)).toEqual([false, true]);
  expect(listed.differencesNotListed).toBe(2);
  expect(listed.counts).toEqual(report.counts);
  expect(listedDifferences(report, 3)).toBe(report);
});
