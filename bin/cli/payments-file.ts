/**
 * A group's payments from a file: JSON (an array of payments, or `{"payments": [...]}`) or CSV
 * with a header row naming the payment fields (profileId, amount, orderId, sendEmailReceipt,
 * sendPaymentScheduledNotification, description...). CSV fields may be double-quoted ("" is a
 * quote inside one); numbers and true/false become JSON numbers and booleans where the API wants
 * them, so the file reads as a spreadsheet export.
 */
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import type { RequestBody } from '../../client/index';

export type InlinePayment = NonNullable<RequestBody<'CreateGroup'>['payments']>[number];

const NUMBERS = new Set(['amount']);
const BOOLEANS = new Set(['sendEmailReceipt', 'sendPaymentScheduledNotification', 'allowPartial']);

/** One CSV line's fields. */
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

function fromCsv(text: string): InlinePayment[] {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  const header = fields(lines[0] ?? '');
  if (!header.includes('profileId') || !header.includes('amount'))
    throw new Error('the CSV header must name at least profileId and amount');
  return lines.slice(1).map((line, row) => {
    const values = fields(line);
    const payment: Record<string, unknown> = {};
    header.forEach((name, i) => {
      const value = values[i] ?? '';
      if (value === '') return;
      if (NUMBERS.has(name)) {
        const number = Number(value);
        if (Number.isNaN(number)) throw new Error(`line ${row + 2}: ${name} "${value}" is not a number`);
        payment[name] = number;
      } else if (BOOLEANS.has(name)) payment[name] = /^(true|yes|1)$/i.test(value);
      else payment[name] = value;
    });
    return payment as InlinePayment;
  });
}

export function readPayments(file: string): InlinePayment[] {
  const text = readFileSync(file, 'utf8');
  if (extname(file).toLowerCase() === '.csv') return fromCsv(text);
  const parsed = JSON.parse(text) as InlinePayment[] | { payments?: InlinePayment[] };
  const payments = Array.isArray(parsed) ? parsed : parsed.payments;
  if (!Array.isArray(payments))
    throw new Error(`${file}: expected an array of payments or {"payments": [...]}`);
  return payments;
}
