/**
 * A code Stripe sent, looked up in one of the adapter's tables: only the table's own entries
 * answer. A plain object's index would also answer `constructor`, `toString` or `__proto__` with
 * what every object inherits, and a sale would be recorded with a function for its response code;
 * such a code is unknown, like any other the table does not name.
 */
export const lookup = <V>(
  table: Readonly<Record<string, V>>,
  code: string | null | undefined,
): V | undefined => (typeof code === 'string' && Object.hasOwn(table, code) ? table[code] : undefined);
