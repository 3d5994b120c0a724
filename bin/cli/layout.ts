/**
 * How the CLI's output fits the screen (80 columns when it is not a terminal): tables (cli-table3)
 * whose columns give way by wrapping or, for ids, keeping their ends; text broken between words;
 * progress bars as wide as the line allows. Nothing here knows what it shows (views.ts does).
 */
import Table from 'cli-table3';

export const table = (head: string[], rows: (string | number)[][], colWidths?: (number | null)[]): string => {
  // Colours on a terminal only: piped or captured output stays plain text.
  const colour = process.stdout.isTTY === true;
  const t = new Table({
    head,
    style: colour ? { head: ['cyan'] } : { head: [], border: [] },
    ...(colWidths && { colWidths }),
  });
  t.push(...rows);
  return t.toString();
};

/** The terminal's width (80 when the output is not a terminal, as a captured log is read). */
export const screenWidth = (): number => Math.max(60, process.stdout.columns || 80);

/** A cell's width: its widest line. */
const cellWidth = (cell: string | number): number =>
  Math.max(
    ...String(cell)
      .split('\n')
      .map((line) => [...line].length),
  );

/** Widest cell of each column, padding included (cli-table3 pads one space each side). */
function naturalWidths(head: string[], rows: (string | number)[][]): number[] {
  return head.map((h, i) => Math.max(cellWidth(h), ...rows.map((r) => cellWidth(r[i] ?? ''))) + 2);
}

/**
 * How a column gives way when its table is wider than the screen, down to `min` (padding
 * included): `wrap` breaks its text over lines, between words and inside a word longer than the
 * column, so nothing of it is lost (a decline reason, an order id); `end` keeps the text's last
 * characters after a `…` (a payment id, whose last characters tell payments apart).
 */
export interface Give {
  column: number;
  min: number;
  how: 'wrap' | 'end';
}

/**
 * Column widths that fit `width`: the columns in `give` (most willing first) give up width down
 * to their minimum.
 */
function fitWidths(
  head: string[],
  rows: (string | number)[][],
  give: readonly Pick<Give, 'column' | 'min'>[],
  width = screenWidth(),
): number[] {
  const widths = naturalWidths(head, rows);
  // Borders: one more than the columns.
  let over = widths.reduce((a, b) => a + b, 0) + head.length + 1 - width;
  for (const { column, min } of give) {
    if (over <= 0) break;
    const by = Math.min(over, Math.max(0, widths[column]! - min));
    widths[column]! -= by;
    over -= by;
  }
  return widths;
}

/** Where a word longer than a line breaks: after the last separator that fits, else at the edge. */
function breakAt(word: string[], width: number): number {
  for (let i = width; i > width / 2; i--) if ('/-.:,'.includes(word[i - 1]!)) return i;
  return width;
}

/**
 * `text` broken into lines of at most `width` characters: between words, and a word longer than
 * a line after a `/`, `-`, `.`, `:` or `,` where one fits (a time zone, an order id), else at the
 * edge. Nothing is dropped.
 */
export function wrapCell(text: string, width: number): string {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(' ')) {
      let rest = [...word];
      if (line !== '' && [...line].length + 1 + rest.length <= width) {
        line += ` ${word}`;
        continue;
      }
      if (line !== '') lines.push(line);
      while (rest.length > width) {
        const at = breakAt(rest, width);
        lines.push(rest.slice(0, at).join(''));
        rest = rest.slice(at);
      }
      line = rest.join('');
    }
    lines.push(line);
  }
  return lines.join('\n');
}

/**
 * A table within `width` columns: the columns in `give` give way as they say (Give), in that
 * order, so that only an `end` column is ever cut.
 */
export function fittedTable(
  head: string[],
  rows: (string | number)[][],
  give: readonly Give[],
  width = screenWidth(),
): string {
  const widths = fitWidths(head, rows, give, width);
  // The heading row too: a heading may be as long as its values (a time zone's name).
  const shown = [[...head], ...rows.map((row) => [...row])];
  for (const { column, how } of give) {
    const room = widths[column]! - 2;
    for (const row of shown) {
      const text = String(row[column] ?? '');
      if (cellWidth(text) <= room) continue;
      row[column] = how === 'wrap' ? wrapCell(text, room) : `…${[...text].slice(-(room - 1)).join('')}`;
    }
  }
  const [heading, ...body] = shown;
  return table(heading!.map(String), body, widths);
}

/** Prints text with its lines broken between words to fit the screen. */
export const print = (text: string): void => console.log(wrapLines(text));

/** Text with each line broken between words to fit `width`; a line's continuation indented. */
export function wrapLines(text: string, width = screenWidth()): string {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const indent = /^ */.exec(line)![0];
    let current = indent;
    for (const word of line.slice(indent.length).split(' ')) {
      if (current.trim() !== '' && current.length + 1 + word.length > width) {
        out.push(current);
        current = `${indent}  ${word}`;
      } else current = current.trim() === '' ? `${indent}${word}` : `${current} ${word}`;
    }
    out.push(current);
  }
  return out.join('\n');
}

/** A bar's width so that its line, with the counts as wide as `total`, fits the screen. */
export function barSize(format: string, total: number, width = screenWidth()): number {
  const digits = String(total).length;
  const text = format.replace(/\{bar\}/g, '').replace(/\{[a-z]+\}/g, '9'.repeat(digits));
  return Math.max(5, Math.min(40, width - text.length - 1));
}
