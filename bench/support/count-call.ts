/**
 * How the bench counts a DynamoDB call, the same way in the runtime (ddb-census.ts) and in the
 * raw client: one per command, plus the items a transaction or batch carries, so that a changed
 * write (say, an outbox item added to a payment's transaction) shows up as `TransactWrite.items`.
 *
 * Each write is also counted by where it lands, so that the peak model can cost it by partition:
 * `write.<class>` for a plain write and `write.<class>.tx` for one inside a transaction (DynamoDB
 * charges those twice), the class being the partition key's first part (`GROUP` for a group's item
 * and its payments, `EVENT`, `TXN`...); and `index.<class>@<item class>` for an index entry a Put
 * or an Update sets (`index.EVENTS@EVENT`: an event item's entry in its merchant's events on GSI1).
 */
export function countCall(counts: Record<string, number>, command: object, prefix = ''): void {
  const name = prefix + command.constructor.name.replace(/Command$/, '');
  counts[name] = (counts[name] ?? 0) + 1;
  const input = (command as { input?: Record<string, unknown> }).input ?? {};
  let items = 0;
  if (Array.isArray(input.TransactItems)) items = input.TransactItems.length;
  else if (input.RequestItems && typeof input.RequestItems === 'object') {
    for (const request of Object.values(input.RequestItems as Record<string, unknown>)) {
      items += Array.isArray(request)
        ? request.length
        : ((request as { Keys?: unknown[] }).Keys?.length ?? 0);
    }
  }
  if (items > 0) counts[`${name}.items`] = (counts[`${name}.items`] ?? 0) + items;
  if (prefix === '') countWrites(counts, name, input);
}

type Input = Record<string, unknown>;
const add = (counts: Record<string, number>, key: string) => (counts[key] = (counts[key] ?? 0) + 1);
/** A key's class: its first part (`GROUP#g1` → `GROUP`). */
export const keyClass = (key: unknown): string =>
  typeof key === 'string' ? (key.split('#')[0] ?? key) : '?';

/** One write (a Put's Item, or the Key and expression of an Update, Delete or ConditionCheck). */
function countWrite(counts: Record<string, number>, write: Input, tx: boolean): void {
  const item = (write.Item ?? write.Key) as Input | undefined;
  if (!item) return;
  const cls = keyClass(item.pk);
  add(counts, `write.${cls}${tx ? '.tx' : ''}`);
  if (write.Item) {
    for (const [k, v] of Object.entries(item))
      if (/^gsi\d+pk$/.test(k)) add(counts, `index.${keyClass(v)}@${cls}`);
  }
  const expression = write.UpdateExpression;
  if (typeof expression === 'string') {
    const values = (write.ExpressionAttributeValues ?? {}) as Input;
    for (const m of expression.matchAll(/\bgsi\d+pk\s*=\s*(:\w+)/g))
      add(counts, `index.${keyClass(values[m[1]!])}@${cls}`);
  }
}

function countWrites(counts: Record<string, number>, name: string, input: Input): void {
  if (name === 'Put' || name === 'Update' || name === 'Delete') countWrite(counts, input, false);
  else if (name === 'TransactWrite') {
    for (const entry of input.TransactItems as Input[]) {
      const write = (entry.Put ?? entry.Update ?? entry.Delete ?? entry.ConditionCheck) as Input | undefined;
      if (write) countWrite(counts, write, true);
    }
  } else if (name === 'BatchWrite') {
    for (const requests of Object.values((input.RequestItems ?? {}) as Record<string, Input[]>)) {
      for (const r of requests) {
        const put = r.PutRequest as Input | undefined;
        const del = r.DeleteRequest as Input | undefined;
        if (put || del) countWrite(counts, (put ?? del)!, false);
      }
    }
  }
}

/** A census key that counts where writes land (`write.*`, `index.*`), not calls. */
export const isPlacement = (key: string): boolean => key.startsWith('write.') || key.startsWith('index.');
