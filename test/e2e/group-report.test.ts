/**
 * Issue 21 item 4: a group's report on the local runtime. A group processed for real with the
 * sandbox's test cards (approved, partial, declined of category 1 and 2, the processor's
 * communication error), a payment whose every charge fails until processing gives it up (the local
 * fault `failCharges`: the batch's retries run out and FailBatch answers it Failed), a deleted
 * payment, one payment voided and one refunded: its JSON report
 * adds up with the group's totals and processing summary, and its CSV, read back with csv-parse,
 * gives the same numbers. Free text with commas, quotes and a leading `=` comes back intact (the
 * formula neutralised with a `'`, after a `;` too). The CSV starts with a UTF-8 byte-order mark and
 * carries the payor's customerAccountId, processedAt and responseMessage; the same page as an
 * .xlsx workbook, read back with exceljs, keeps codes and order ids as text (`05`, `0042`).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { XLSX_MEDIA_TYPE } from '#contract/media-types';
import { REPORT_COLUMNS } from '#contract/schemas/reports';
import { sleep } from '#shared/clock';
import { baseUrl, call, tokenFor } from '#support/api';
import { createPayor } from '#support/fixtures/e2e-resources';
import { cardInput } from '#support/fixtures/inputs';
import {
  createGroup,
  getGroup,
  groupPath,
  payments,
  trigger,
  waitForStatus,
  type Json,
} from '#support/processing';
import { localToolCommand } from '#lib/local/runtime-bundle';

const ROOT = resolve(__dirname, '..', '..');
const run = promisify(execFile);

/** `spay` as a tester runs it, logged in to this tier's runtime in a home of its own. */
async function spay(home: string, ...args: string[]): Promise<string> {
  const [command, commandArgs] = localToolCommand('spay', args);
  const { stdout } = await run(command, commandArgs, {
    cwd: ROOT,
    env: { ...process.env, SPAY_HOME: home },
    timeout: 30_000,
  });
  return stdout;
}

const SETTLEMENT_MS = Number(process.env.SANDBOX_SETTLEMENT_SECONDS ?? '8') * 1000;
const cents = (amount: string | number): number => Math.round(Number(amount) * 100);

/** The sandbox's cards: approved, partial, declined of category 1 and 2, communication error. */
const CARDS = [
  '4111111111111111',
  '4000000000000077',
  '4000000000000002',
  '4000000000009995',
  '4000000000000960',
] as const;

/** This run's customerAccountIds: unique per merchant, with the leading zeros offices use. */
const RUN = String(Date.now() % 1_000_000).padStart(6, '0');
const accountOf = (cardNumber: string) => `0${RUN}-${cardNumber.slice(-4)}`;

async function profile(cardNumber: string): Promise<string> {
  const payor = await createPayor({
    paymentMethod: cardInput({ cardNumber }),
    customerAccountId: accountOf(cardNumber),
  });
  return `${payor.payorId}/${payor.defaultPaymentMethodId}`;
}

/** A report page's bytes as sent (fetch's text() would drop a byte-order mark). */
async function reportBytes(groupId: string, accept: string) {
  const res = await fetch(`${baseUrl()}${groupPath(groupId)}/report`, {
    headers: { authorization: `Bearer ${await tokenFor()}`, accept },
  });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

const voidOrRefund = (groupId: string, paymentId: string) =>
  call<Json>('POST', `${groupPath(groupId)}/void-or-refund`, { paymentIds: [paymentId] });

test('the report of a processed group adds up, and its CSV reads back to the same numbers', async () => {
  const [ok, partial, category1, category2, communication] = await Promise.all(CARDS.map(profile));
  const orders = {
    voided: '=HYPERLINK("http://example.com","open")',
    refunded: 'INV-7, "spring" term',
    approved: '+1 555 0100;=2+2',
    partial: '@tuition',
  };
  const group = await createGroup({
    allowPartial: false,
    payments: [
      { profileId: ok, amount: 10.5, orderId: orders.voided },
      { profileId: ok, amount: 20.25, orderId: orders.refunded },
      { profileId: ok, amount: 30, orderId: orders.approved },
      { profileId: partial, amount: 60, allowPartial: true, orderId: orders.partial },
      { profileId: category1, amount: 41, orderId: '0042' },
      { profileId: category2, amount: 42, orderId: 'declined-2' },
      { profileId: communication, amount: 43, orderId: 'communication-error' },
      { profileId: ok, amount: 99.99, orderId: 'deleted' },
      { profileId: ok, amount: 44, orderId: 'failed' },
    ],
  });
  const groupId = group.paymentGroupId as string;
  const byOrder = (list: Json[]) => new Map(list.map((p) => [p.orderId as string, p]));
  const created = byOrder(group.payments as Json[]);
  expect(
    (await call('DELETE', `${groupPath(groupId)}/payments/${created.get('deleted')!.paymentId}`)).status,
  ).toBe(204);

  const faults = await fetch(`${baseUrl()}/__local/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ failCharges: [created.get('failed')!.paymentId] }),
  });
  expect(faults.status).toBe(200);

  // Processed just after a local settlement cut-off, and voided as soon as it is answered, so that
  // the void comes before the next cut-off (the failing payment holds the group in processing
  // through its batch's retries, up to half a minute).
  await sleep(SETTLEMENT_MS - (Date.now() % SETTLEMENT_MS) + 100);
  expect((await trigger(groupId)).status).toBe(200);
  const toVoid = created.get(orders.voided)!.paymentId as string;
  for (let until = Date.now() + 5_000; Date.now() < until; await sleep(100)) {
    if ((await payments(groupId)).find((p) => p.paymentId === toVoid)?.authResponse) break;
  }
  const voided = await voidOrRefund(groupId, toVoid);
  expect(voided.body).toMatchObject({ voidedCount: 1 });
  await waitForStatus(groupId, 'processed', 90_000);
  // The refund: once the sale has settled at its cut-off.
  const charged = byOrder(await payments(groupId));
  const refundedSale = charged.get(orders.refunded)!;
  await sleep(Math.max(0, Date.parse(refundedSale.authResponse.settlementTime) - Date.now()) + 300);
  const refunded = await voidOrRefund(groupId, refundedSale.paymentId);
  expect(refunded.body).toMatchObject({ refundedCount: 1 });

  const processed = await getGroup(groupId);
  const report = await call<Json>('GET', `${groupPath(groupId)}/report`);
  expect(report.status).toBe(200);
  expect(report.headers.get('content-type')).toMatch(/^application\/json/);
  expect(report.body).toEqual({
    paymentGroupId: groupId,
    status: 'processed',
    executionArn: processed.executionArn,
    startedAt: expect.any(String),
    completedAt: processed.processingSummary.processedAt,
    counts: {
      payments: 8,
      deleted: 1,
      approved: 4,
      partial: 1,
      declined: 3,
      declinedCategory1: 1,
      declinedCategory2: 2,
      failed: 1,
      voided: 1,
      refunded: 1,
      retryScheduled: 0,
      recovered: 0,
      // No bank debit here: nothing to come back; no card disputed.
      returned: 0,
      disputed: 0,
    },
    amounts: {
      scheduled: 290.75,
      approved: 110.75,
      declined: 126,
      failed: 44,
      voided: 10.5,
      refunded: 20.25,
      returned: 0,
      disputed: 0,
    },
  });
  // It adds up with the group's own totals and processing summary.
  const { counts, amounts } = report.body;
  const summary = processed.processingSummary;
  expect(counts.payments).toBe(processed.paymentCount);
  expect(amounts.scheduled).toBe(processed.totalAmount);
  expect(counts.approved + counts.declined + counts.failed + counts.returned).toBe(counts.payments);
  expect(counts.declinedCategory1 + counts.declinedCategory2).toBe(counts.declined);
  expect(counts).toMatchObject({
    approved: summary.approvedCount,
    partial: summary.partialCount,
    declined: summary.declinedCount,
    failed: summary.failedCount,
    deleted: summary.skippedCount,
    returned: summary.returnedCount,
    disputed: summary.disputedCount,
  });
  expect(amounts.approved).toBe(summary.approvedAmount);
  expect(cents(amounts.approved) + cents(amounts.declined) + cents(amounts.failed)).toBe(
    cents(amounts.scheduled) - (60 - 50) * 100, // the partial approval's unapproved 10.00
  );

  const csv = await reportBytes(groupId, 'text/csv');
  expect(csv.res.status).toBe(200);
  expect(csv.res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  expect(csv.res.headers.get('link')).toBeNull(); // one page
  // The UTF-8 byte-order mark, so that Excel reads the accents right.
  expect([...csv.bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const rows = parse(csv.bytes, { columns: true, bom: true }) as Record<string, string>[];
  expect(Object.keys(rows[0]!)).toEqual([
    'paymentId',
    'orderId',
    'profileId',
    'amount',
    'status',
    'responseCode',
    'declineCategory',
    'attempts',
    'approvedAmount',
    'refundedAmount',
    'voided',
    'customerAccountId',
    'processedAt',
    'responseMessage',
    'returnCode',
    'disputeStatus',
    'sponsorKey',
  ]);
  expect(rows).toHaveLength(9);
  const row = new Map(rows.map((r) => [r.paymentId!, r]));
  const of = (orderId: string) => row.get(created.get(orderId)!.paymentId)!;
  // The office's columns: the payor's customerAccountId, when the latest attempt was made, its message.
  const cardOf = new Map(
    [ok, partial, category1, category2, communication].map((profileId, i) => [profileId, CARDS[i]!]),
  );
  for (const [orderId, p] of created) {
    const deleted = orderId === 'deleted';
    const sale = charged.get(orderId);
    expect(of(orderId)).toMatchObject({
      customerAccountId: accountOf(cardOf.get(p.profileId as string)!),
      processedAt: deleted ? '' : sale!.authResponse.processedAt,
      responseMessage: deleted ? '' : sale!.authResponse.responseMessage,
    });
  }
  expect(of('0042').responseMessage).not.toBe('');
  expect(of(orders.voided)).toMatchObject({
    orderId: `'${orders.voided}`,
    status: 'approved',
    voided: 'true',
  });
  expect(of(orders.refunded)).toMatchObject({
    orderId: orders.refunded,
    refundedAmount: '20.25',
    voided: 'false',
  });
  // A formula after a `;`, where a spreadsheet with `;` as its list separator starts a cell.
  expect(of(orders.approved).orderId).toBe(`'+1 555 0100;'=2+2`);
  expect(of(orders.partial)).toMatchObject({
    orderId: `'${orders.partial}`,
    status: 'partial',
    amount: '60.00',
    approvedAmount: '50.00',
    responseCode: '10',
  });
  expect(of('0042')).toMatchObject({ status: 'declined', responseCode: '05', declineCategory: '1' });
  expect(of('declined-2')).toMatchObject({ status: 'declined', responseCode: '51', declineCategory: '2' });
  expect(of('communication-error')).toMatchObject({ responseCode: '96', declineCategory: '2' });
  expect(of('failed')).toMatchObject({ status: 'failed', approvedAmount: '0.00' });
  expect(of('deleted')).toMatchObject({ status: 'deleted', attempts: '0', approvedAmount: '0.00' });

  // The CSV's numbers are the report's.
  const live = rows.filter((r) => r.status !== 'deleted');
  const sum = (list: typeof rows, column: string) => list.reduce((total, r) => total + cents(r[column]!), 0);
  const having = (status: string) => live.filter((r) => r.status === status);
  expect(live).toHaveLength(counts.payments);
  expect(rows.length - live.length).toBe(counts.deleted);
  expect(having('approved').length + having('partial').length).toBe(counts.approved);
  expect(having('partial')).toHaveLength(counts.partial);
  expect(having('declined')).toHaveLength(counts.declined);
  expect(having('declined').filter((r) => r.declineCategory === '1')).toHaveLength(counts.declinedCategory1);
  expect(having('failed')).toHaveLength(counts.failed);
  expect(live.filter((r) => r.voided === 'true')).toHaveLength(counts.voided);
  expect(live.filter((r) => cents(r.refundedAmount!) > 0)).toHaveLength(counts.refunded);
  expect(sum(live, 'amount')).toBe(cents(amounts.scheduled));
  expect(sum(live, 'approvedAmount')).toBe(cents(amounts.approved));
  expect(sum(having('declined'), 'amount')).toBe(cents(amounts.declined));
  expect(sum(having('failed'), 'amount')).toBe(cents(amounts.failed));
  expect(sum(live, 'refundedAmount')).toBe(cents(amounts.refunded));
  expect(
    sum(
      live.filter((r) => r.voided === 'true'),
      'approvedAmount',
    ),
  ).toBe(cents(amounts.voided));

  // The same page as a workbook: every row, its codes and order ids text, its free text as typed.
  const xlsx = await reportBytes(groupId, XLSX_MEDIA_TYPE);
  expect(xlsx.res.status).toBe(200);
  expect(xlsx.res.headers.get('content-type')).toBe(XLSX_MEDIA_TYPE);
  expect(xlsx.res.headers.get('content-disposition')).toBe(
    `attachment; filename="group-${groupId}-report.xlsx"`,
  );
  expect(xlsx.res.headers.get('link')).toBeNull();
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(xlsx.bytes as unknown as ArrayBuffer);
  const sheet = workbook.getWorksheet('Payments')!;
  expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual([...REPORT_COLUMNS]);
  expect(sheet.rowCount).toBe(rows.length + 1);
  const cells = new Map<string, Map<string, ExcelJS.Cell>>();
  sheet.eachRow((r, n) => {
    if (n > 1)
      cells.set(String(r.getCell(1).value), new Map(REPORT_COLUMNS.map((c, i) => [c, r.getCell(i + 1)])));
  });
  const cell = (orderId: string, column: string) => cells.get(created.get(orderId)!.paymentId)!.get(column)!;
  for (const [column, value] of [
    ['orderId', '0042'],
    ['responseCode', '05'],
    ['declineCategory', '1'],
    ['customerAccountId', accountOf('4000000000000002')],
  ]) {
    expect(cell('0042', column!)).toMatchObject({ type: ExcelJS.ValueType.String, value });
  }
  expect(cell('0042', 'amount')).toMatchObject({ type: ExcelJS.ValueType.Number, value: 41 });
  expect(cell(orders.voided, 'orderId')).toMatchObject({
    type: ExcelJS.ValueType.String,
    value: orders.voided,
  });
  expect(cell(orders.voided, 'voided').value).toBe(true);
  expect(cell(orders.partial, 'approvedAmount').value).toBe(50);

  // `spay group report --csv` writes the same file; without --csv, the counts and amounts.
  const home = mkdtempSync(join(tmpdir(), 'spay-report-'));
  try {
    await spay(home, 'login', '--data-dir', process.env.E2E_DATA_DIR!);
    expect(
      parse(await spay(home, 'group', 'report', groupId, '--csv'), { columns: true, bom: true }),
    ).toEqual(rows);
    const summaryTable = await spay(home, 'group', 'report', groupId);
    expect(summaryTable).toContain(`Group ${groupId}: processed`);
    expect(summaryTable).toMatch(/Approved\s+│ 4\s+│ 110\.75/);
    expect(summaryTable).toMatch(/Declined\s+│ 3\s+│ 126\.00/);
    expect(summaryTable).toMatch(/category 1 \/ 2\s+│ 1 \/ 2/);
    expect(summaryTable).toMatch(/Failed\s+│ 1\s+│ 44\.00/);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}, 180_000);

test('a cursor that is not one, or a cursor on a JSON request, is 400; an unknown group 404', async () => {
  const group = await createGroup({});
  const path = `${groupPath(group.paymentGroupId)}/report`;
  const csv = { headers: { accept: 'text/csv' } };
  expect(await call('GET', `${path}?cursor=abc.def`, undefined, csv)).toMatchObject({
    status: 400,
    body: { responseCode: 400, message: 'cursor is not the cursor of a report page of this group' },
  });
  expect(await call('GET', `${path}?cursor=abc.def`)).toMatchObject({
    status: 400,
    body: {
      message: `cursor is for the CSV and spreadsheet pages only (send Accept: text/csv or ${XLSX_MEDIA_TYPE})`,
    },
  });
  const pending = await call<Json>('GET', path);
  expect(pending.body).toMatchObject({ status: 'pending', counts: { payments: group.paymentCount } });
  expect(pending.body).not.toHaveProperty('executionArn');
  const unknown = groupPath('0193c2a4-5b1e-7c3d-8e4f-000000000000');
  expect((await call('GET', `${unknown}/report`, undefined, csv)).status).toBe(404);
});
