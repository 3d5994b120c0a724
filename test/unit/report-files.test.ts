/**
 * The group report's files (domain/report-files.ts): a formula neutralised wherever a spreadsheet
 * may start a cell, not only at a cell's start; the CSV's byte-order mark and the office's columns;
 * the .xlsx workbook read back by exceljs (a parser other than the writer), its codes and order
 * ids text; and pages that fit Lambda's answer whatever their rows hold.
 */
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import fc from 'fast-check';
import {
  MAX_RESPONSE_BYTES,
  REPORT_MESSAGE_CHARS,
  REPORT_PAGE_BYTES,
  REPORT_PAGE_ROWS,
} from '#contract/limits';
import { REPORT_COLUMNS } from '#contract/schemas/reports';
import { csvPage, CSV_HEADER, neutralise, reportCsv, reportSheet, sheetPage } from '#domain/report-files';
import { reportMessage, reportRow, type ReportPayment, type ReportRow } from '#domain/reports';
import { answer } from '#support/fixtures/records';

let n = 0;
const payment = (over: Partial<ReportPayment> = {}): ReportPayment => ({
  paymentId: `0193c2a4-5b1e-7c3d-8e4f-${String(++n).padStart(12, '0')}`,
  profileId: 'payor-1/method-1',
  amountCents: 10_000,
  deleted: false,
  authResponse: null,
  ...over,
});

/** Every cell a reader gets when it splits each line on `separator`, ignoring quotes. */
const naiveCells = (csv: string, separator: string): string[] =>
  csv.split(/\r\n|\r|\n/).flatMap((line) => line.split(separator));

/** A cell a spreadsheet would run: a formula character first, once spaces and quotes are trimmed. */
const live = (cell: string): boolean => /^[\s"]*[=+\-@]/.test(cell);

describe('formulas after a separator', () => {
  it('defect: a formula after a ";" inside a cell reaches a spreadsheet that splits on ";" as a live formula', () => {
    const csv = reportCsv([reportRow(payment({ orderId: 'x;=1+1;' }))]);
    // A spreadsheet whose list separator is `;` (most of Europe) reads our comma-separated file so.
    const cells = (
      parse(csv, { delimiter: ';', bom: true, relax_quotes: true, relax_column_count: true }) as string[][]
    ).flat();
    expect(cells.filter(live)).toEqual([]);
    expect(cells).toContain("'=1+1");
  });

  it.each([
    ['a;=1', "a;'=1"],
    ['a,+1', "a,'+1"],
    ['a; -1', "a; '-1"],
    ['a;"@x', `a;"'@x`],
    ['a\t=1', "a\t'=1"],
    ['two\n=lines', "two\n'=lines"],
    ['cr\r\n=lf', "cr\r\n'=lf"],
    ['=1;=2', "'=1;'=2"],
    [' =1', " '=1"],
    ['\t=1', "'\t'=1"],
  ])('%j is written %j', (cell, written) => {
    expect(neutralise(cell)).toBe(written);
  });

  it.each([
    ['＝1+1', "'＝1+1"],
    ['＋1', "'＋1"],
    ['a;－1', "a;'－1"],
    ['＠SUM(A1)', "'＠SUM(A1)"],
  ])(
    'defect: a full-width formula character first (%j), which a spreadsheet with East Asian input settings may read as its ASCII form, was left live: written %j',
    (cell, written) => {
      expect(neutralise(cell)).toBe(written);
    },
  );

  it.each(['a;b', 'INV-1', 'x@y.z', 'a=b', 'Smith; Jones', '2030-06-03', '12.50', "'quoted"])(
    '%j is left as it is',
    (cell) => {
      expect(neutralise(cell)).toBe(cell);
    },
  );

  it('leaves no live formula to a reader that splits on a comma, a semicolon, a tab or a line break', () => {
    const alphabet = [',', ';', '\t', '\r', '\n', ' ', '"', "'", '=', '+', '-', '@', 'a', '1'];
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...alphabet), maxLength: 30 }), (orderId) => {
        const csv = reportCsv([reportRow(payment({ orderId }))]);
        for (const separator of [',', ';', '\t'])
          expect(naiveCells(csv.slice(1), separator).filter(live)).toEqual([]);
        // A reader that honours the quoting gets the text back, a `'` before each formula start.
        const [row] = parse(csv, { columns: true, bom: true }) as Record<string, string>[];
        expect(row!.orderId).toBe(neutralise(orderId));
        expect(row!.orderId!.replace(/'/g, '')).toBe(orderId.replace(/'/g, ''));
      }),
      { numRuns: 500 },
    );
  });
});

describe('the CSV an office opens', () => {
  it('defect: the CSV has no UTF-8 byte-order mark, so Excel shows its accents garbled', () => {
    const csv = reportCsv([reportRow(payment({ orderId: 'Éléonore, naïve ☃' }))]);
    expect([...Buffer.from(csv, 'utf8').subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const [row] = parse(csv, { columns: true, bom: true }) as Record<string, string>[];
    expect(Object.keys(row!)[0]).toBe('paymentId');
    expect(row!.orderId).toBe('Éléonore, naïve ☃');
    expect(CSV_HEADER.startsWith('\uFEFF')).toBe(true);
  });

  it("defect: the rows lack the office's columns: the payor's customerAccountId, when it was charged, the decline's message", () => {
    expect(REPORT_COLUMNS).toEqual([
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
    const declined = payment({
      authResponse: { ...answer('Declined', 100, 0, '05', '1'), responseMessage: 'Do not honor' },
    });
    const csv = reportCsv([
      reportRow(declined, 'FAM-0042'),
      reportRow(payment(), 'FAM-7'),
      reportRow(payment({ deleted: true, authResponse: answer('Approved', 100, 100) })),
    ]);
    const rows = parse(csv, { columns: true, bom: true }) as Record<string, string>[];
    expect(rows[0]).toMatchObject({
      status: 'declined',
      responseCode: '05',
      customerAccountId: 'FAM-0042',
      processedAt: '2030-06-03T14:00:05.000Z',
      responseMessage: 'Do not honor',
    });
    expect(rows[1]).toMatchObject({ status: 'scheduled', customerAccountId: 'FAM-7', processedAt: '' });
    expect(rows[2]).toMatchObject({ status: 'deleted', processedAt: '', responseMessage: '' });
  });

  it("keeps a processor's message one line of at most REPORT_MESSAGE_CHARS characters", () => {
    expect(reportMessage('Do not\r\nhonor\t(05)')).toBe('Do not  honor (05)');
    expect(reportMessage('lone \ud800 half')).toBe('lone \uFFFD half');
    const long = reportMessage('☃'.repeat(500));
    expect([...long]).toHaveLength(REPORT_MESSAGE_CHARS);
    expect(long.endsWith('…')).toBe(true);
  });
});

/** The workbook's rows as exceljs reads them: each cell's value, and whether it is a string cell. */
async function readSheet(bytes: Buffer) {
  const workbook = new ExcelJS.Workbook();
  // exceljs's typings predate Node's generic Buffer.
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  const sheet = workbook.getWorksheet('Payments')!;
  const rows: ExcelJS.Row[] = [];
  sheet.eachRow({ includeEmpty: true }, (row) => void rows.push(row));
  return { sheet, rows };
}

describe('the report as a spreadsheet', () => {
  it('defect: the report has no spreadsheet form, where codes and order ids stay text (05, 0042)', async () => {
    const declined = payment({
      orderId: '0042',
      amountCents: 6_000,
      authResponse: { ...answer('Declined', 60, 0, '05', '1'), responseMessage: 'Do not honor' },
    });
    const approved = payment({ orderId: '=1+1', authResponse: answer('Approved', 100, 100) });
    const bytes = await reportSheet([reportRow(declined, '00017'), reportRow(approved, '+33 1')]);
    const { rows } = await readSheet(bytes);
    expect(rows).toHaveLength(3);
    expect((rows[0]!.values as unknown[]).slice(1)).toEqual([...REPORT_COLUMNS]);
    const col = (name: string) => REPORT_COLUMNS.indexOf(name as never) + 1;
    const cell = (row: number, name: string) => rows[row]!.getCell(col(name));
    for (const [name, value] of [
      ['orderId', '0042'],
      ['responseCode', '05'],
      ['customerAccountId', '00017'],
      ['declineCategory', '1'],
      ['responseMessage', 'Do not honor'],
      ['processedAt', '2030-06-03T14:00:05.000Z'],
    ]) {
      expect(cell(1, name!).type).toBe(ExcelJS.ValueType.String);
      expect(cell(1, name!).value).toBe(value);
    }
    expect(cell(1, 'amount')).toMatchObject({ type: ExcelJS.ValueType.Number, value: 60, numFmt: '0.00' });
    expect(cell(1, 'approvedAmount').value).toBe(0);
    expect(cell(1, 'attempts').value).toBe(1);
    expect(cell(1, 'voided')).toMatchObject({ type: ExcelJS.ValueType.Boolean, value: false });
    // Text cells are never formulas: the workbook keeps the text as typed, without the CSV's `'`.
    expect(cell(2, 'orderId')).toMatchObject({ type: ExcelJS.ValueType.String, value: '=1+1' });
    expect(cell(2, 'customerAccountId').value).toBe('+33 1');
    expect(cell(2, 'declineCategory').type).toBe(ExcelJS.ValueType.Null);
  });
});

describe('pages that fit the answer', () => {
  /** The largest rows allowed, in the characters that cost most once carried. */
  const costly = (i: number, char: string): ReportRow => ({
    ...reportRow(
      payment({ orderId: char.repeat(100), authResponse: answer('Declined', 100, 0, '05', '1') }),
      char.repeat(50),
    ),
    paymentId: `0193c2a4-5b1e-7c3d-8e4f-${String(i).padStart(12, '0')}`,
    responseMessage: char.repeat(REPORT_MESSAGE_CHARS),
  });
  const typical = (i: number): ReportRow =>
    reportRow(
      payment({ orderId: `INV-2030-${i}`, authResponse: answer('Approved', 100, 100) }),
      `FAM-${10_000 + i}`,
    );

  it('a CSV page of the costliest rows holds fewer of them, within the budget; typical rows fill a page', () => {
    const rows = Array.from({ length: REPORT_PAGE_ROWS }, (_, i) => costly(i, '"'));
    const first = csvPage(rows, REPORT_PAGE_BYTES);
    expect(first.rows).toBeLessThan(REPORT_PAGE_ROWS);
    const result = { statusCode: 200, headers: { 'content-type': 'text/csv' }, body: first.text };
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(REPORT_PAGE_BYTES + 100);
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThan(MAX_RESPONSE_BYTES);
    const back = parse(first.text, { columns: true, bom: true }) as Record<string, string>[];
    expect(back.map((r) => r.paymentId)).toEqual(rows.slice(0, first.rows).map((r) => r.paymentId));
    // The rest makes the next page.
    expect(csvPage(rows.slice(first.rows), REPORT_PAGE_BYTES).rows).toBe(REPORT_PAGE_ROWS - first.rows);

    const full = csvPage(
      Array.from({ length: REPORT_PAGE_ROWS }, (_, i) => typical(i)),
      REPORT_PAGE_BYTES,
    );
    expect(full.rows).toBe(REPORT_PAGE_ROWS);
  });

  it('a workbook of text that does not compress holds fewer rows, within the budget; typical rows fill a page', async () => {
    // Seeded astral characters from a wide range, which deflate cannot shrink much. A pool of
    // strings, each row's own by its number in front: repeats lie far beyond deflate's 32 KB window.
    let seed = 42;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const noise = (length: number) =>
      Array.from({ length }, () => String.fromCodePoint(0x20000 + Math.floor(random() * 0xa000))).join('');
    const pool = Array.from({ length: 300 }, () => noise(REPORT_MESSAGE_CHARS));
    const text = (i: number, length: number) =>
      [...`${i}${pool[i % pool.length]!}`].slice(0, length).join('');
    const base = costly(0, 'x');
    const rows = Array.from({ length: REPORT_PAGE_ROWS }, (_, i) => ({
      ...base,
      paymentId: `0193c2a4-5b1e-7c3d-8e4f-${String(i).padStart(12, '0')}`,
      orderId: text(i, 100),
      customerAccountId: text(i + 1, 50),
      responseMessage: text(i + 2, REPORT_MESSAGE_CHARS),
    }));
    const page = await sheetPage(rows, REPORT_PAGE_BYTES);
    expect(page.rows).toBeLessThan(REPORT_PAGE_ROWS);
    expect(page.rows).toBeGreaterThan(REPORT_PAGE_ROWS / 4);
    expect(page.bytes.toString('base64').length).toBeLessThanOrEqual(REPORT_PAGE_BYTES);
    const { rows: back } = await readSheet(page.bytes);
    expect(back).toHaveLength(page.rows + 1);
    expect(back[page.rows]!.getCell(1).value).toBe(rows[page.rows - 1]!.paymentId);
    expect(back[page.rows]!.getCell(2).value).toBe(rows[page.rows - 1]!.orderId);

    const full = await sheetPage(
      Array.from({ length: REPORT_PAGE_ROWS }, (_, i) => typical(i)),
      REPORT_PAGE_BYTES,
    );
    expect(full.rows).toBe(REPORT_PAGE_ROWS);
    console.info(`a workbook of ${REPORT_PAGE_ROWS} typical rows: ${full.bytes.length} bytes`);
  }, 60_000);

  it.each([300, 1_000, 5_000])(
    'a workbook larger than its first estimate is written again with fewer rows (%d bytes over one row)',
    async (over) => {
      // Small budgets, where the workbook's fixed parts (styles, sheet settings) outweigh the rows.
      const rows = Array.from({ length: 100 }, (_, i) => typical(i));
      const maxBytes = (await reportSheet(rows.slice(0, 1))).toString('base64').length + over;
      const page = await sheetPage(rows, maxBytes);
      expect(page.rows).toBeGreaterThan(1);
      expect(page.rows).toBeLessThan(rows.length);
      expect(page.bytes.toString('base64').length).toBeLessThanOrEqual(maxBytes);
      const { rows: back } = await readSheet(page.bytes);
      expect(back.map((r) => r.getCell(1).value)).toEqual([
        'paymentId',
        ...rows.slice(0, page.rows).map((r) => r.paymentId),
      ]);
    },
  );
});
