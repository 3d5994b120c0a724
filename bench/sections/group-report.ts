/**
 * A group's report at its largest advertised size (issue 21: a 100,000-payment group's CSV within
 * the limits). One processed group of N payments (`--report-payments`, default 100,000) is written
 * straight to the runtime's table, as processing leaves it (approved, partial, declined in both
 * categories, failed, deleted; hostile order ids); then its CSV is read over HTTP page by page
 * (`Accept: text/csv`, the next page named by the `Link` header) and its JSON report once.
 *
 * Measured: pages, the largest page (its body, and the proxy result Lambda would return for it,
 * the body JSON-escaped: Lambda's 6 MB limit applies to that), time per page and in all, and that
 * every payment is in the CSV exactly once with the JSON report's counts.
 */
import { parse } from 'csv-parse/sync';
import { MAX_RESPONSE_BYTES, REPORT_PAGE_ROWS } from '../../contract/limits';
import { newGroup, newPayment, type Payment } from '../../lambdas/domain/groups';
import type { AuthResponse } from '../../lambdas/domain/processing';
import { newId } from '../../lambdas/shared/ids';
import { groupItem } from '../../lambdas/store/groups';
import { batchWriteAll } from '../../lambdas/store/items';
import { paymentItem } from '../../lambdas/store/payments';
import { MID, scheduleDate, type BenchContext } from '../support/context';
import { round } from '../support/load';
import type { CustomSection, Results } from './section';

/** Lambda's response limit: the whole proxy result, body included. */
const LAMBDA_LIMIT = 6 * 1024 * 1024;

interface GroupReportResult {
  payments: number;
  pages: number;
  rows: number;
  largestPageBytes: number;
  largestProxyResultBytes: number;
  csvSeconds: number;
  slowestPageSeconds: number;
  jsonSeconds: number;
  everyPaymentOnce: boolean;
  measuredAt: string;
}

/** A processor's answer (the bench imports nothing of test/: tests import the bench's model). */
const answer = (
  status: AuthResponse['status'],
  amount: number,
  approved: number,
  code: string,
  category?: '1' | '2',
): AuthResponse =>
  ({
    status,
    responseCode: code,
    responseMessage: status,
    isDuplicate: false,
    amount,
    approvedAmount: approved,
    processedAt: new Date().toISOString(),
    ...(category && { declineCategory: category }),
  }) as AuthResponse;

/** Payment `i` of the group: every tenth deleted, the others approved, partial, declined or failed. */
function nth(i: number, group: ReturnType<typeof newGroup>, now: Date): Payment {
  const orderIds = [`INV-${i}`, `=cmd|' /C calc'!A0 ${i}`, `a,"b"\n${i}`, `+${i}`, `naïve ☃ ${i}`];
  const amount = (1_000 + (i % 997)) / 100;
  const p = newPayment(
    { profileId: `payor-${i % 50}/method-${i % 7}`, amount, orderId: orderIds[i % 5] },
    group,
    newId(),
    now,
  );
  const kind = i % 10;
  if (kind === 9) return { ...p, deleted: true };
  const auth =
    kind < 5
      ? answer('Approved', amount, amount, '00')
      : kind === 5
        ? answer('Approved', amount, 5, '10')
        : kind === 6
          ? answer('Declined', amount, 0, '05', '1')
          : kind === 7
            ? answer('Declined', amount, 0, '51', '2')
            : answer('Failed', amount, 0, '96', '2');
  return { ...p, authResponse: auth };
}

async function run(ctx: BenchContext): Promise<Results> {
  const count = ctx.config.reportPayments;
  const now = new Date();
  const group = newGroup(
    { servicePayId: MID, scheduleDate: scheduleDate(), scheduleHour: 9, locationId: 1 },
    MID,
    newId(),
    now,
  );
  const payments = Array.from({ length: count }, (_, i) => nth(i, group, now));
  const live = payments.filter((p) => !p.deleted);
  console.log(`  group-report: writing ${count} payments ...`);
  await batchWriteAll(ctx.db, ctx.runtime.tableName, [
    {
      PutRequest: {
        Item: groupItem({
          ...group,
          status: 'processed',
          paymentCount: live.length,
          totalCents: live.reduce((sum, p) => sum + p.amountCents, 0),
        }),
      },
    },
  ]);
  const items = payments.map((p) => ({ PutRequest: { Item: paymentItem(p) } }));
  const quarter = Math.ceil(items.length / 4);
  await Promise.all(
    [0, 1, 2, 3].map((q) =>
      batchWriteAll(ctx.db, ctx.runtime.tableName, items.slice(q * quarter, (q + 1) * quarter), 15 * 60_000),
    ),
  );

  const path = `/rest/merchants/${MID}/groups/${group.paymentGroupId}/report`;
  const seen = new Map<string, number>();
  let cursor: string | undefined;
  let pages = 0;
  let largestPageBytes = 0;
  let largestProxyResultBytes = 0;
  let slowest = 0;
  const started = Date.now();
  do {
    const pageStarted = Date.now();
    const reply = await ctx.api.send(
      'GET',
      cursor === undefined ? path : `${path}?cursor=${cursor}`,
      undefined,
      {
        accept: 'text/csv',
      },
    );
    if (reply.status !== 200)
      throw new Error(`report page ${pages + 1}: ${reply.status} ${reply.text.slice(0, 300)}`);
    slowest = Math.max(slowest, (Date.now() - pageStarted) / 1000);
    largestPageBytes = Math.max(largestPageBytes, Buffer.byteLength(reply.text));
    const proxy = {
      statusCode: 200,
      headers: { 'content-type': 'text/csv; charset=utf-8' },
      body: reply.text,
    };
    largestProxyResultBytes = Math.max(largestProxyResultBytes, Buffer.byteLength(JSON.stringify(proxy)));
    for (const row of parse(reply.text, { columns: true, bom: true }) as { paymentId: string }[])
      seen.set(row.paymentId, (seen.get(row.paymentId) ?? 0) + 1);
    const link = reply.headers.link;
    cursor = typeof link === 'string' ? /cursor=([A-Za-z0-9_.-]+)/.exec(link)?.[1] : undefined;
    pages++;
  } while (cursor !== undefined && pages < 10 * Math.ceil(count / REPORT_PAGE_ROWS));
  const csvSeconds = (Date.now() - started) / 1000;

  const jsonStarted = Date.now();
  await ctx.api.json('GET', path, undefined, 200);
  const jsonSeconds = (Date.now() - jsonStarted) / 1000;

  const result: GroupReportResult = {
    payments: count,
    pages,
    rows: [...seen.values()].reduce((a, b) => a + b, 0),
    largestPageBytes,
    largestProxyResultBytes,
    csvSeconds: round(csvSeconds, 2),
    slowestPageSeconds: round(slowest, 2),
    jsonSeconds: round(jsonSeconds, 2),
    everyPaymentOnce: seen.size === count && [...seen.values()].every((n) => n === 1),
    measuredAt: new Date().toISOString(),
  };
  if (largestProxyResultBytes >= LAMBDA_LIMIT || largestProxyResultBytes >= MAX_RESPONSE_BYTES)
    throw new Error(`a report page's proxy result is ${largestProxyResultBytes} bytes: over the limit`);
  return { groupReport: result };
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

function report(results: Results) {
  const r = results.groupReport as GroupReportResult | undefined;
  if (!r) return undefined;
  const text =
    `report of a ${r.payments}-payment group: CSV in ${r.pages} pages (${r.rows} rows, every payment once: ` +
    `${r.everyPaymentOnce}) in ${r.csvSeconds} s, slowest page ${r.slowestPageSeconds} s; largest page ` +
    `${mb(r.largestPageBytes)} (proxy result ${mb(r.largestProxyResultBytes)}, limit 6 MB); JSON report ${r.jsonSeconds} s`;
  const markdown = [
    `Measured on ${r.measuredAt.slice(0, 10)}. One processed group of ${r.payments.toLocaleString('en-US')} payments ` +
      '(approved, partial, declined in both categories, failed, every tenth deleted; order ids with commas, quotes, ' +
      'new lines and formula characters) written to the table as processing leaves it, then its CSV read over HTTP ' +
      `page by page (at most ${REPORT_PAGE_ROWS.toLocaleString('en-US')} rows a page, the next named by \`Link\`) and ` +
      "parsed with csv-parse, and its JSON report read once. Lambda's limit applies to the proxy result (the page " +
      'JSON-escaped in its `body`): 6 MB.',
    '',
    '| payments | CSV pages | rows (every payment once) | largest page | its proxy result | CSV in all | slowest page | JSON report |',
    '|---|---|---|---|---|---|---|---|',
    `| ${r.payments} | ${r.pages} | ${r.rows} (${r.everyPaymentOnce ? 'yes' : 'NO'}) | ${mb(r.largestPageBytes)} | ` +
      `${mb(r.largestProxyResultBytes)} | ${r.csvSeconds} s | ${r.slowestPageSeconds} s | ${r.jsonSeconds} s |`,
  ].join('\n');
  return { console: text, markdown };
}

export const groupReport: CustomSection = {
  kind: 'custom',
  name: 'group-report',
  title: "A group's report at 100,000 payments",
  run,
  report,
};
