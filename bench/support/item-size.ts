/**
 * What the table's items weigh, by the class of their partition key (count-call.ts `keyClass`):
 * a sample of the table after a processing run, sized the way DynamoDB bills a write (each
 * started kilobyte a unit), so the peak model costs a payment's writes on the items the service
 * really writes rather than on guessed sizes.
 */
import { ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keyClass } from './count-call';

/**
 * An item's size by DynamoDB's rules (the Developer Guide's "Item sizes"): each attribute's name
 * plus its value; strings their UTF-8 bytes, numbers about one byte per two significant digits
 * plus one, booleans and nulls one byte, lists and maps three bytes plus their elements and one
 * byte each. Close to, not exactly, what DynamoDB counts: its units are what matter here.
 */
export function itemBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number') {
    const digits = String(Math.abs(value))
      .replace(/[.e+-]/g, '')
      .replace(/^0+/, '').length;
    return Math.ceil(Math.max(digits, 1) / 2) + 1;
  }
  if (typeof value === 'boolean' || value === null || value === undefined) return 1;
  if (Array.isArray(value)) return 3 + value.reduce<number>((s, v) => s + itemBytes(v) + 1, 0);
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...(value as Set<unknown>)].reduce<number>((s, v) => s + itemBytes(v), 0);
  return (
    3 +
    Object.entries(value as Record<string, unknown>).reduce(
      (s, [k, v]) => s + Buffer.byteLength(k) + itemBytes(v) + 1,
      0,
    )
  );
}

/** A top-level item: its attributes (names and values), without a map's own overhead. */
export const topLevelBytes = (item: Record<string, unknown>): number =>
  Object.entries(item).reduce((s, [k, v]) => s + Buffer.byteLength(k) + itemBytes(v), 0);

/** Items a filtered Scan keeps of a class the sample missed. */
const perClass = 200;

export interface ItemClass {
  items: number;
  meanBytes: number;
  /** Write units a plain write of one such item takes (each started KB), averaged over the sample. */
  writeUnits: number;
  /** Index keys (gsiNpk) such an item carries, on average: an update of it rewrites that many entries. */
  indexKeys: number;
}

/**
 * Samples `tableName` and sizes its items by class: the first page of each of `segments` scan
 * segments (a parallel Scan's hash ranges), so that one large partition (a group's payments) fills
 * a segment or two rather than the whole sample.
 */
export async function itemClasses(
  db: DynamoDBDocumentClient,
  tableName: string,
  /** Classes to size even if the sample misses them (those a census saw written): found by a filtered Scan. */
  wanted: readonly string[] = [],
  segments = 64,
  perSegment = 80,
): Promise<Record<string, ItemClass>> {
  const sums: Record<string, { items: number; bytes: number; units: number; indexKeys: number }> = {};
  const pages = await Promise.all(
    Array.from({ length: segments }, (_x, Segment) =>
      db.send(new ScanCommand({ TableName: tableName, Segment, TotalSegments: segments, Limit: perSegment })),
    ),
  );
  const sampled = pages.flatMap((p) => p.Items ?? []);
  const seen = new Set(sampled.map((item) => keyClass(item.pk)));
  for (const missing of wanted.filter((c) => !seen.has(c)))
    sampled.push(...(await scanClass(db, tableName, missing)));
  for (const item of sampled) {
    const s = (sums[keyClass(item.pk)] ??= { items: 0, bytes: 0, units: 0, indexKeys: 0 });
    const bytes = topLevelBytes(item);
    s.items++;
    s.bytes += bytes;
    s.units += Math.max(1, Math.ceil(bytes / 1024));
    s.indexKeys += Object.keys(item).filter((k) => /^gsi\d+pk$/.test(k)).length;
  }
  const r = (x: number) => Math.round(x * 100) / 100;
  return Object.fromEntries(
    Object.entries(sums)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, s]) => [
        k,
        {
          items: s.items,
          meanBytes: Math.round(s.bytes / s.items),
          writeUnits: r(s.units / s.items),
          indexKeys: r(s.indexKeys / s.items),
        },
      ]),
  );
}

/** Up to `max` items of one class, by a Scan filtered on the key's prefix (reads on until it has them). */
async function scanClass(
  db: DynamoDBDocumentClient,
  tableName: string,
  cls: string,
  max = perClass,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: 'begins_with(pk, :c)',
        ExpressionAttributeValues: { ':c': `${cls}#` },
        ExclusiveStartKey,
      }),
    );
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey && items.length < max);
  return items.slice(0, max);
}
