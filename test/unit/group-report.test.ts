/**
 * The group report's rows and sums (domain/reports.ts) and its files (domain/report-files.ts):
 * CSV written by csv-stringify and read back by csv-parse, formula-like cells neutralised wherever
 * a spreadsheet could start a cell, and counts that agree with the processing summary.
 */
import { parse } from 'csv-parse/sync';
import { neutralise, reportCsv } from '#domain/report-files';
import { REPORT_COLUMNS } from '#contract/schemas/reports';
import { addToReport, emptyReport, reportRow, reportView, type ReportPayment } from '#domain/reports';
import type { Group } from '#domain/groups';
import { answer } from '#support/fixtures/records';
import { GROUP_REPORT_TIMEOUT_SECONDS } from '#contract/limits';
import { REPORT_JSON_BUDGET_MS, REPORT_PAGE_BUDGET_MS } from '#core/reports';

let n = 0;
const payment = (over: Partial<ReportPayment> = {}): ReportPayment => ({
  paymentId: `0193c2a4-5b1e-7c3d-8e4f-${String(++n).padStart(12, '0')}`,
  profileId: 'payor-1/method-1',
  amountCents: 10_000,
  deleted: false,
  authResponse: null,
  ...over,
});

const parsed = (csv: string): Record<string, string>[] =>
  parse(csv, { columns: true, record_delimiter: '\r\n', bom: true });

/** The report of a processed group of `p` and one approved payment of 100.00. */
function besideApproved(p: ReportPayment) {
  const totals = emptyReport();
  addToReport(totals, p);
  addToReport(totals, payment({ authResponse: answer('Approved', 100, 100) }));
  return reportView({ paymentGroupId: 'g', status: 'processed' } as Group, totals);
}

describe('neutralise', () => {
  it.each(['=SUM(A1:A9)', '+1', '-1', '@cmd', '\tx', '\rx'])('%j gets a leading quote', (cell) => {
    expect(neutralise(cell)).toBe(`'${cell}`);
  });
  it.each(['INV-1', '', '12.50', 'a=b', 'x@y', "'quoted"])('%j is left as it is', (cell) => {
    expect(neutralise(cell)).toBe(cell);
  });
});

describe('reportCsv', () => {
  it('quotes commas, quotes and line breaks and reads back to the same text', () => {
    const texts = ['a,b', 'say "hi"', 'two\nlines', 'cr\r\nlf', 'plain', 'naïve ☃'];
    const rows = texts.map((orderId) => reportRow(payment({ orderId })));
    const csv = reportCsv(rows);
    expect(csv.split('\r\n')[0]).toBe(`\uFEFF${REPORT_COLUMNS.join(',')}`);
    expect(csv).toContain('"a,b"');
    expect(csv).toContain('"say ""hi"""');
    expect(csv).toContain('"two\nlines"');
    expect(csv).toContain('"cr\r\nlf"');
    expect(parsed(csv).map((r) => r.orderId)).toEqual(texts);
  });

  it('neutralises a formula in any cell, and the parsed cell keeps the leading quote', () => {
    const rows = ['=HYPERLINK("http://x","y")', '+SUM(1)', '-2+3', '@A1'].map((orderId) =>
      reportRow(payment({ orderId })),
    );
    const back = parsed(reportCsv(rows)).map((r) => r.orderId);
    expect(back).toEqual([`'=HYPERLINK("http://x","y")`, `'+SUM(1)`, `'-2+3`, `'@A1`]);
    for (const cell of back) expect(cell).toMatch(/^'/);
  });

  it('writes an empty page as the byte-order mark and the header row alone', () => {
    expect(parsed(reportCsv([]))).toEqual([]);
    expect(reportCsv([])).toBe(`\uFEFF${REPORT_COLUMNS.join(',')}\r\n`);
  });
});

describe('report rows and sums', () => {
  const payments: ReportPayment[] = [
    payment({ authResponse: answer('Approved', 100, 100), attempts: [{}, {}] as ReportPayment['attempts'] }),
    payment({ amountCents: 5_000, authResponse: answer('Approved', 50, 20.25) }),
    payment({ authResponse: answer('Declined', 100, 0, '05', '1') }),
    payment({ amountCents: 7_000, authResponse: answer('Declined', 70, 0, '51', '2') }),
    payment({ amountCents: 3_333, authResponse: answer('Failed', 33.33, 0, '96', '2') }),
    payment({ deleted: true, amountCents: 999 }),
    payment({
      authResponse: answer('Approved', 100, 100),
      voidOrRefundResponses: [
        { type: 'Void', transactionId: 't', status: 'Voided', amount: 100, date: '2030-06-03T15:00:00.000Z' },
      ],
    }),
    payment({
      amountCents: 4_000,
      authResponse: answer('Approved', 40, 40),
      voidOrRefundResponses: [
        {
          type: 'Refund',
          transactionId: 'r1',
          status: 'Completed',
          amount: 15.5,
          date: '2030-06-04T15:00:00.000Z',
        },
        {
          type: 'Refund',
          transactionId: 'r2',
          status: 'Failed',
          amount: 24.5,
          date: '2030-06-04T16:00:00.000Z',
        },
      ],
    }),
    payment({ amountCents: 1_234 }),
  ];

  it('rows name each outcome', () => {
    const rows = payments.map((p) => reportRow(p));
    expect(rows.map((r) => r.status)).toEqual([
      'approved',
      'partial',
      'declined',
      'declined',
      'failed',
      'deleted',
      'approved',
      'approved',
      'scheduled',
    ]);
    expect(rows[0]).toMatchObject({
      amount: '100.00',
      approvedAmount: '100.00',
      attempts: '2',
      responseCode: '00',
    });
    expect(rows[1]).toMatchObject({ amount: '50.00', approvedAmount: '20.25', declineCategory: '' });
    expect(rows[2]).toMatchObject({ responseCode: '05', declineCategory: '1', approvedAmount: '0.00' });
    expect(rows[3]).toMatchObject({ declineCategory: '2', attempts: '1' });
    expect(rows[5]).toMatchObject({ status: 'deleted', attempts: '0', responseCode: '', voided: 'false' });
    expect(rows[6]).toMatchObject({ voided: 'true', refundedAmount: '0.00' });
    expect(rows[7]).toMatchObject({ voided: 'false', refundedAmount: '15.50' });
  });

  it('sums add up: payments, scheduled amount, outcomes and the CSV read back', () => {
    const totals = emptyReport();
    for (const p of payments) addToReport(totals, p);
    const group = { paymentGroupId: 'g', status: 'processed' } as Group;
    const view = reportView(group, totals);
    expect(view.counts).toEqual({
      payments: 8,
      deleted: 1,
      approved: 4,
      partial: 1,
      declined: 2,
      declinedCategory1: 1,
      declinedCategory2: 1,
      failed: 1,
      voided: 1,
      refunded: 1,
      retryScheduled: 0,
      recovered: 0,
      returned: 0,
      disputed: 0,
    });
    expect(view.amounts).toEqual({
      scheduled: 505.67,
      approved: 100 + 20.25 + 100 + 40,
      declined: 170,
      failed: 33.33,
      voided: 100,
      refunded: 15.5,
      returned: 0,
      disputed: 0,
    });
    const { counts } = view;
    expect(counts.approved + counts.declined + counts.failed + 1).toBe(counts.payments); // 1 scheduled

    const back = parsed(reportCsv(payments.map((p) => reportRow(p))));
    const live = back.filter((r) => r.status !== 'deleted');
    const cents = (rows: typeof back, column: string) =>
      rows.reduce((sum, r) => sum + Math.round(Number(r[column]) * 100), 0);
    expect(live).toHaveLength(counts.payments);
    expect(cents(live, 'amount')).toBe(Math.round(view.amounts.scheduled * 100));
    expect(cents(live, 'approvedAmount')).toBe(Math.round(view.amounts.approved * 100));
    expect(cents(live, 'refundedAmount')).toBe(Math.round(view.amounts.refunded * 100));
    expect(live.filter((r) => r.voided === 'true')).toHaveLength(counts.voided);
  });
});

describe('a returned bank debit in the report', () => {
  const R01 = {
    code: 'R01',
    reason: 'Insufficient funds',
    category: 'nsf' as const,
    returnedAt: '2030-06-06T18:00:00.000Z',
  };
  const returned = (over: Partial<ReportPayment> = {}) =>
    payment({
      amountCents: 5_000,
      authResponse: {
        ...answer('Approved', 50, 50),
        transactionId: 't-ret',
        status: 'Returned',
        return: R01,
      },
      ...over,
    });

  it('its row says returned with the return code, nothing approved, no decline category', () => {
    const row = reportRow(returned());
    expect(row).toMatchObject({
      status: 'returned',
      returnCode: 'R01',
      approvedAmount: '0.00',
      declineCategory: '',
    });
    expect(reportRow(payment({ authResponse: answer('Approved', 100, 100) })).returnCode).toBe('');
    expect(parsed(reportCsv([row]))[0]).toMatchObject({ status: 'returned', returnCode: 'R01' });
  });

  it('counts as returned (count and amount), no longer approved, whether or not the summary moved it yet', () => {
    for (const p of [returned(), returned({ returnCounted: 't-ret' } as Partial<ReportPayment>)]) {
      const view = besideApproved(p);
      expect(view.counts).toMatchObject({ payments: 2, approved: 1, returned: 1, declined: 0 });
      expect(view.amounts).toMatchObject({ approved: 100, returned: 50 });
    }
  });
});

describe('disputed charges in the report', () => {
  const disputed = (status: 'needs_response' | 'won' | 'lost', over: Partial<ReportPayment> = {}) =>
    payment({
      amountCents: 4_000,
      authResponse: { ...answer('Approved', 40, 40), transactionId: 't-dis' },
      dispute: {
        disputeId: 'd-1',
        transactionId: 't-dis',
        status,
        reason: 'fraudulent',
        amount: 40,
        openedAt: '2030-06-05T15:00:00.000Z',
      },
      ...over,
    });

  it('its row keeps approved and says the dispute’s status; a dispute of an earlier sale is not this one', () => {
    const row = reportRow(disputed('needs_response'));
    expect(row).toMatchObject({
      status: 'approved',
      approvedAmount: '40.00',
      disputeStatus: 'needs_response',
    });
    expect(parsed(reportCsv([row]))[0]).toMatchObject({ disputeStatus: 'needs_response' });
    expect(reportRow(payment({ authResponse: answer('Approved', 100, 100) })).disputeStatus).toBe('');
    const earlier = disputed('lost', {
      authResponse: { ...answer('Approved', 40, 40), transactionId: 't-2' },
    });
    expect(reportRow(earlier).disputeStatus).toBe('');
  });

  it('counts as disputed (count and amount) and approved still, whatever its status and whether or not the summary moved it yet', () => {
    for (const p of [
      disputed('needs_response'),
      disputed('won'),
      disputed('lost', { disputeCounted: 'd-1' } as Partial<ReportPayment>),
    ]) {
      const view = besideApproved(p);
      expect(view.counts).toMatchObject({ payments: 2, approved: 2, disputed: 1, returned: 0 });
      expect(view.amounts).toMatchObject({ approved: 140, disputed: 40 });
    }
  });
});

describe('the report function’s time', () => {
  it('reads within a budget under its timeout, itself under API Gateway’s 29 s', () => {
    expect(GROUP_REPORT_TIMEOUT_SECONDS).toBeLessThan(29);
    expect(REPORT_JSON_BUDGET_MS + 5_000).toBeLessThanOrEqual(GROUP_REPORT_TIMEOUT_SECONDS * 1000);
    expect(REPORT_PAGE_BUDGET_MS + 5_000).toBeLessThanOrEqual(GROUP_REPORT_TIMEOUT_SECONDS * 1000);
  });
});
