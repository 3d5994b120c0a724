/**
 * A group's payments as its report reads them (core/reports.ts): only the attributes a report
 * uses (domain/reports.ts REPORT_ATTRIBUTES), page by page through the group's partition, so a
 * payment's large customAttributes or fees never reach the function; and its payors'
 * customerAccountIds, a page's at a time.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { REPORT_ATTRIBUTES, type ReportPayment } from '#domain/reports';
import { mapLimit } from '#shared/concurrency';
import { keys } from './keys';
import { batchGet, containerStore } from './items';
import { queryPages } from './paging';
import { clock } from '#shared/clock';

/** BatchGets of a page's payors in flight at once (100 payors each). */
const PAYOR_READS_IN_FLIGHT = 4;

interface ReportStore {
  /**
   * Up to `limit` payments (deleted included) after the payment `afterId` (null: from the
   * first), in creation order, and whether more follow. Reads stop early, with fewer payments,
   * once `until` (epoch ms) has passed: every call's work is bounded in time.
   */
  reportPayments(
    groupId: string,
    afterId: string | null,
    limit: number,
    until: number,
  ): Promise<{ payments: ReportPayment[]; more: boolean }>;

  /**
   * The customerAccountId of each of these payors of the merchant that has one (a deleted payor,
   * or one of another merchant, is left out): one BatchGet per 100 payors.
   */
  customerAccounts(merchantId: string, payorIds: readonly string[]): Promise<Map<string, string>>;
}

const PROJECTION = REPORT_ATTRIBUTES.map((_, i) => `#a${i}`).join(', ');
const NAMES = Object.fromEntries(REPORT_ATTRIBUTES.map((a, i) => [`#a${i}`, a]));

class DynamoReportStore implements ReportStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async reportPayments(
    groupId: string,
    afterId: string | null,
    limit: number,
    until: number,
  ): Promise<{ payments: ReportPayment[]; more: boolean }> {
    const { pk } = keys.group(groupId);
    const payments: ReportPayment[] = [];
    const start = afterId === null ? undefined : { pk, sk: keys.payment(groupId, afterId).sk };
    const pages = queryPages(
      this.db,
      () => ({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExpressionAttributeValues: { ':pk': pk, ':p': keys.paymentPrefix },
        ProjectionExpression: PROJECTION,
        ExpressionAttributeNames: NAMES,
        // One more than the page: whether another page follows, without an empty last page.
        Limit: limit + 1 - payments.length,
        ConsistentRead: true,
      }),
      start,
    );
    let more = false;
    for await (const out of pages) {
      payments.push(...((out.Items ?? []) as ReportPayment[]));
      more = out.LastEvaluatedKey !== undefined;
      if (payments.length > limit || clock.nowMs() >= until) break;
    }
    if (payments.length > limit) return { payments: payments.slice(0, limit), more: true };
    // Stopped by the clock: the rest is for the next page. (A page that ends exactly at the last
    // payment with its LastEvaluatedKey set is followed by an empty last page.)
    return { payments, more };
  }

  async customerAccounts(merchantId: string, payorIds: readonly string[]): Promise<Map<string, string>> {
    const ids = [...new Set(payorIds)];
    const chunks = Array.from({ length: Math.ceil(ids.length / 100) }, (_, i) =>
      ids.slice(i * 100, (i + 1) * 100),
    );
    const found = await mapLimit(chunks, PAYOR_READS_IN_FLIGHT, (chunk) =>
      batchGet(this.db, this.tableName, chunk.map(keys.payor), 'payorId, merchantId, customerAccountId'),
    );
    return new Map(
      found
        .flat()
        .filter((i) => i.merchantId === merchantId && typeof i.customerAccountId === 'string')
        .map((i) => [i.payorId as string, i.customerAccountId as string]),
    );
  }
}

/** The container's store, on the configured table (made on first use). */
export const reportStore: () => ReportStore = /* @__PURE__ */ containerStore(DynamoReportStore);
