/**
 * A group's payments from a file: JSON (an array of payments, or `{"payments": [...]}`) or CSV
 * with a header row naming the payment fields (profileId, amount, orderId, sendEmailReceipt,
 * sendPaymentScheduledNotification, description...). CSV fields may be double-quoted ("" is a
 * quote inside one); numbers and true/false become JSON numbers and booleans where the API wants
 * them, so the file reads as a spreadsheet export.
 */
import { readFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { ApiError, type RequestBody } from '../../client/index';

type InlinePayment = NonNullable<RequestBody<'CreateGroup'>['payments']>[number];

const NUMBERS = new Set(['amount']);
const BOOLEANS = new Set([
  'sendEmailReceipt',
  'sendPaymentScheduledNotification',
  'sendDeclineNotification',
  'recurring',
  'allowPartial',
]);

/** One CSV record's fields. */
function fields(line: string): string[] {
  const out: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i]!;
    if (quoted && c === '"' && line[i + 1] === '"') {
      field += '"';
      i += 1;
    } else if (c === '"') {
      quoted = !quoted;
    } else if (c === ',' && !quoted) {
      out.push(field);
      field = '';
    } else {
      field += c;
    }
  }
  out.push(field);
  return out.map((f) => f.trim());
}

/** A file's payments, with the file's line of each (CSV: its row; JSON: none). */
interface PaymentsFile {
  readonly file: string;
  readonly payments: InlinePayment[];
  /** `lines[i]`: the 1-based line of the file that holds payments[i]. */
  readonly lines?: number[];
}

/**
 * The file's records, each with the line it starts on: a line break inside a quoted field (a
 * spreadsheet's two-line cell, RFC 4180) belongs to its record. Blank lines are skipped, not
 * renumbered.
 */
function records(text: string): { line: string; number: number }[] {
  const out: { line: string; number: number }[] = [];
  let start = 0;
  let startLine = 1;
  let line = 1;
  let quoted = false;
  const end = (at: number, next: number) => {
    const record = text.slice(start, at);
    if (record.trim() !== '') out.push({ line: record, number: startLine });
    start = next;
    startLine = line;
  };
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (c === '"') quoted = !quoted;
    else if (c === '\n') {
      line += 1;
      if (!quoted) end(i > 0 && text[i - 1] === '\r' ? i - 1 : i, i + 1);
    }
  }
  end(text.length, text.length);
  return out;
}

function fromCsv(file: string, text: string): PaymentsFile {
  const lines = records(text);
  const header = fields(lines[0]?.line ?? '');
  if (!header.includes('profileId') || !header.includes('amount'))
    throw new Error(`${file}: the CSV header must name at least profileId and amount`);
  const rows = lines.slice(1);
  const payments = rows.map(({ line, number }) => {
    const values = fields(line);
    const payment: Record<string, unknown> = {};
    header.forEach((name, i) => {
      const value = values[i] ?? '';
      if (value === '') return;
      if (NUMBERS.has(name)) {
        const amount = Number(value);
        if (Number.isNaN(amount))
          throw new Error(`${file} line ${number}: ${name} "${value}" is not a number`);
        payment[name] = amount;
      } else if (BOOLEANS.has(name)) payment[name] = /^(true|yes|1)$/i.test(value);
      else payment[name] = value;
    });
    return payment as InlinePayment;
  });
  return { file, payments, lines: rows.map((r) => r.number) };
}

/** The payments of a .csv or .json file, with each one's line of a CSV file. */
export function readPaymentsFile(file: string): PaymentsFile {
  const text = readFileSync(file, 'utf8');
  if (extname(file).toLowerCase() === '.csv') return fromCsv(file, text);
  const parsed = JSON.parse(text) as InlinePayment[] | { payments?: InlinePayment[] };
  const payments = Array.isArray(parsed) ? parsed : parsed.payments;
  if (!Array.isArray(payments))
    throw new Error(`${file}: expected an array of payments or {"payments": [...]}`);
  return { file, payments };
}

export const readPayments = (file: string): InlinePayment[] => readPaymentsFile(file).payments;

/**
 * Where in the file a sentence's `payments[i]` is: ` (payments.csv line 4)` for each payment it
 * names, so that a refusal of the API points at the CSV row to fix. Empty for a JSON file.
 */
function fileLinesOf(source: PaymentsFile, sentence: string): string {
  if (!source.lines) return '';
  const numbers = [...sentence.matchAll(/payments\[(\d+)\]/g)]
    .map((m) => source.lines![Number(m[1])])
    .filter((n): n is number => n !== undefined);
  const distinct = [...new Set(numbers)];
  if (distinct.length === 0) return '';
  return ` (${basename(source.file)} line${distinct.length > 1 ? 's' : ''} ${distinct.join(', ')})`;
}

/**
 * Runs a request that sends the file's payments; an API refusal that names `payments[i]` comes
 * back naming the file's line too (its message and each field's problem).
 */
export async function sendingFile<T>(source: PaymentsFile, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (
      !(error instanceof ApiError) ||
      !source.lines ||
      !/payments\[\d+\]/.test(JSON.stringify([error.message, error.errors]))
    )
      throw error;
    const errors = error.errors.map((e) => ({
      field: e.field,
      message: `${e.message}${fileLinesOf(source, `${e.field} ${e.message}`)}`,
    }));
    throw new ApiError(
      `${error.message}${fileLinesOf(source, error.message)}`,
      error.status,
      errors,
      error.attempts,
      error.cause,
      error.idempotencyKey,
      error.responseCode,
    );
  }
}
