/**
 * Cards by expiry (DESIGN section 5, "Expiring cards"): every card method is on its merchant's
 * expiry index (GSI1 `EXPIRY#mid` / `<yyyy-MM>#<payorId>#<methodId>`, store/payor-items.ts), so
 * the payors with a card expiring before a month are one Query below that month away, read in
 * order of expiry (earliest first), and the expiries of a page's methods one BatchGet away.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys';
import { batchGet, type Item } from './items';
import { queryPages } from './paging';
import { expiryMonthOf } from './payor-items';
import { READ_LIMITS } from './read-limits';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const SORT_KEY = new RegExp(`^\\d{4}-(0[1-9]|1[0-2])#(${UUID})#(${UUID})$`);

/** The base-table and index keys of an expiry entry, from its sort key; undefined when malformed. */
function entryKey(merchantId: string, sortKey: string): Item | undefined {
  const match = SORT_KEY.exec(sortKey);
  if (!match) return undefined;
  return {
    ...keys.method(match[2]!, match[3]!),
    gsi1pk: keys.merchantExpiries(merchantId),
    gsi1sk: sortKey,
  };
}

interface ExpiringPayors {
  /** Distinct payor ids, in order of their earliest expiring card. */
  payorIds: string[];
  /** Where the next page starts (the last entry taken), when more entries follow. */
  after?: string;
  /**
   * Where a page of only the first k payors would end, for each k ≥ 1: the last entry read before
   * payor k's first (a shorter page starts its next one there; a payor whose cards interleave
   * with later ones may show on both pages).
   */
  before: (string | undefined)[];
}

/**
 * Up to `max` payors of the merchant with a card expiring before `month` (`yyyy-MM`: the card is
 * not valid in that month), continuing after the entry `after` (an earlier answer's). `invalid`
 * when `after` is not an entry of this range.
 */
export async function payorsExpiringBefore(
  db: DynamoDBDocumentClient,
  tableName: string,
  merchantId: string,
  month: string,
  after: string | undefined,
  max: number,
): Promise<ExpiringPayors | 'invalid'> {
  let start: Item | undefined;
  if (after !== undefined) {
    start = entryKey(merchantId, after);
    if (!start || after >= month) return 'invalid';
  }
  const payorIds: string[] = [];
  const before: (string | undefined)[] = [];
  const seen = new Set<string>();
  let last: string | undefined = after;
  const pages = queryPages(
    db,
    {
      TableName: tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :p AND gsi1sk < :m',
      ExpressionAttributeValues: { ':p': keys.merchantExpiries(merchantId), ':m': month },
      ProjectionExpression: 'gsi1sk, payorId',
      Limit: READ_LIMITS.expiringEntries,
    },
    start,
  );
  for await (const out of pages) {
    for (const item of out.Items ?? []) {
      const payorId = item.payorId as string;
      if (!seen.has(payorId)) {
        // A payor beyond the page: the next page starts after the last entry taken.
        if (payorIds.length === max) return { payorIds, before, ...(last !== undefined && { after: last }) };
        seen.add(payorId);
        payorIds.push(payorId);
        before.push(last);
      }
      last = item.gsi1sk as string;
    }
  }
  return { payorIds, before };
}

/** The expiry month (`yyyy-MM`) of each of these methods that is a card, keyed `payorId/methodId`. */
export async function expiriesOf(
  db: DynamoDBDocumentClient,
  tableName: string,
  refs: { payorId: string; savedPaymentMethodId: string }[],
  merchantId: string,
): Promise<Map<string, string>> {
  const unique = [...new Map(refs.map((r) => [`${r.payorId}/${r.savedPaymentMethodId}`, r])).values()];
  const items = await batchGet(
    db,
    tableName,
    unique.map((r) => keys.method(r.payorId, r.savedPaymentMethodId)),
    'payorId, savedPaymentMethodId, merchantId, expiryMonth, expiryYear',
  );
  const found = new Map<string, string>();
  for (const item of items) {
    const month = expiryMonthOf(item as { expiryMonth?: number; expiryYear?: number });
    if (item.merchantId !== merchantId || month === undefined) continue;
    found.set(`${item.payorId as string}/${item.savedPaymentMethodId as string}`, month);
  }
  return found;
}
