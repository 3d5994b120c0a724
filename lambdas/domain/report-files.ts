/**
 * A page of a group report's rows as a file (docs/decisions.md "Group report files"): CSV (RFC
 * 4180, UTF-8 with a byte-order mark, formulas neutralised) or an .xlsx workbook, whose text cells
 * are strings (`05` and `0042` stay text) and never formulas. A page holds as many of the rows
 * read as its answer has room for: Lambda answers at most 6 MB, the body JSON-escaped (CSV) or
 * base64 (.xlsx) in it.
 */
import { stringify } from 'csv-stringify/sync';
import writeXlsxFile, { type Cell, type Row } from 'write-excel-file/node';
import { REPORT_COLUMNS } from '#contract/schemas/reports';
import type { ReportRow } from './reports';

type Column = (typeof REPORT_COLUMNS)[number];

/**
 * Where a spreadsheet may begin a cell: at the start of ours, or inside it after a field separator
 * it may split on (`,`; `;` where the list separator is `;`; tab) or a line break (a reader that
 * ignores quoting starts a row there), past spaces and double quotes (an import may trim spaces, a
 * quote may open a quoted cell), right before a formula's first character (`=`, `+`, `-`, `@`, or
 * its full-width form `＝`, `＋`, `－`, `＠`, which a spreadsheet with East Asian input settings may
 * read as the ASCII one).
 */
const CELL_START = /(^|[,;\t\r\n])([\s"]*)(?=[=+\-@\uFF1D\uFF0B\uFF0D\uFF20])/g;

/** OWASP's list of a cell's dangerous first characters, tab and CR included, and the full-width forms. */
const FORMULA_FIRST = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/**
 * The cell as a CSV holds it (OWASP "CSV injection"): a `'` before every formula character a
 * spreadsheet could read as a cell's first (CELL_START), and before a cell that starts with one of
 * OWASP's characters; spreadsheets show `'=…` as text. The text changes (a reader sees the `'`)
 * rather than losing what the merchant typed.
 */
export function neutralise(cell: string): string {
  const inside = cell.replace(CELL_START, "$1$2'");
  return FORMULA_FIRST.test(inside) ? `'${inside}` : inside;
}

/** Every CSV page starts so: the byte-order mark (Excel then reads UTF-8: accents), then the header row. */
export const CSV_HEADER = `\uFEFF${REPORT_COLUMNS.join(',')}\r\n`;

/**
 * One row as an RFC 4180 line: CRLF line end, a cell with a comma, quote, CR or LF in double quotes
 * with its quotes doubled (csv-stringify; `quoted_match` quotes a lone CR or LF too, which it
 * otherwise leaves bare under a CRLF record delimiter), each cell neutralised.
 */
const csvLine = (row: ReportRow): string =>
  stringify([REPORT_COLUMNS.map((c) => neutralise(row[c]))], {
    record_delimiter: 'windows',
    quoted_match: /[\r\n]/,
  });

/** A whole CSV file of the rows: byte-order mark, header row, one line each. */
export const reportCsv = (rows: readonly ReportRow[]): string => CSV_HEADER + rows.map(csvLine).join('');

/** What a text adds to the proxy result that carries it: its JSON-escaped UTF-8 bytes. */
const carriedBytes = (text: string): number => Buffer.byteLength(JSON.stringify(text)) - 2;

/**
 * The CSV of the first rows whose answer carries at most `maxBytes` (at least one row: a row is a
 * few KB at most), and how many rows it holds.
 */
export function csvPage(rows: readonly ReportRow[], maxBytes: number): { text: string; rows: number } {
  let bytes = carriedBytes(CSV_HEADER);
  const lines: string[] = [];
  for (const row of rows) {
    const line = csvLine(row);
    const size = carriedBytes(line);
    if (lines.length > 0 && bytes + size > maxBytes) break;
    bytes += size;
    lines.push(line);
  }
  return { text: CSV_HEADER + lines.join(''), rows: lines.length };
}

/** Columns that are numbers in the workbook (amounts with two decimals shown); the rest are text. */
const NUMBER_FORMATS: Partial<Record<Column, string>> = {
  amount: '0.00',
  approvedAmount: '0.00',
  refundedAmount: '0.00',
  attempts: '0',
};

/** Column widths in characters, so that ids and times show whole when the file opens. */
const WIDTHS: Partial<Record<Column, number>> = {
  paymentId: 38,
  orderId: 24,
  profileId: 30,
  customerAccountId: 20,
  processedAt: 26,
  responseMessage: 40,
  disputeStatus: 16,
};

function sheetCell(column: Column, text: string): Cell {
  if (text === '') return null;
  const format = NUMBER_FORMATS[column];
  if (format !== undefined) return { value: Number(text), type: Number, format };
  if (column === 'voided') return { value: text === 'true', type: Boolean };
  // Typed String: a shared string, never a number or a formula, whatever it looks like.
  return { value: text, type: String };
}

/** The rows as an .xlsx workbook: one sheet, `Payments`, its header row bold and kept in view. */
export async function reportSheet(rows: readonly ReportRow[]): Promise<Buffer> {
  const header: Row = REPORT_COLUMNS.map((c) => ({ value: c, type: String, fontWeight: 'bold' }));
  const data: Row[] = rows.map((row) => REPORT_COLUMNS.map((c) => sheetCell(c, row[c])));
  return writeXlsxFile([header, ...data], {
    sheet: 'Payments',
    stickyRowsCount: 1,
    columns: REPORT_COLUMNS.map((c) => ({ width: WIDTHS[c] ?? 14 })),
  }).toBuffer();
}

/** The length of `bytes` as base64, which the proxy result carries. */
const base64Length = (bytes: number): number => 4 * Math.ceil(bytes / 3);

/**
 * A row's share of a workbook at most, as a first guess: its text as UTF-8 (text that does not
 * compress, long random ids, keeps that size) and 100 bytes for the markup around it, which
 * compresses about ten-fold.
 */
const rowEstimate = (row: ReportRow): number =>
  REPORT_COLUMNS.reduce((sum, c) => sum + Buffer.byteLength(row[c]), 100);

/**
 * The workbook of the first rows whose answer (base64) carries at most `maxBytes`, and how many
 * rows it holds. A workbook is compressed: its size is known once it is written. The rows are
 * first taken by their estimate (rowEstimate: typical rows fill a page, which is then a tenth of
 * the budget); a workbook still too large is written again with fewer rows, in proportion (a
 * tenth to spare), then by halves, so the work stays within a few times the first workbook's.
 */
export async function sheetPage(
  rows: readonly ReportRow[],
  maxBytes: number,
): Promise<{ bytes: Buffer; rows: number }> {
  let count = 0;
  let estimate = 0;
  for (const row of rows) {
    estimate += rowEstimate(row);
    if (count > 0 && base64Length(estimate) > maxBytes) break;
    count++;
  }
  for (let attempt = 1; ; attempt++) {
    const bytes = await reportSheet(rows.slice(0, count));
    const carried = base64Length(bytes.length);
    if (carried <= maxBytes || count <= 1) return { bytes, rows: count };
    count = Math.max(
      1,
      attempt === 1 ? Math.floor(count * (maxBytes / carried) * 0.9) : Math.floor(count / 2),
    );
  }
}
