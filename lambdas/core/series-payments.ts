/**
 * One series as its answers show it (GET, create, change): the series with a page of its payments
 * (docs/decisions.md "A series shows its payments in pages"). A page is a bounded read of the
 * series' payment items from a position, cut short by bytes, so that every answer fits Lambda's
 * and API Gateway's limits whatever the payments hold.
 */
import { MAX_PAGE_SIZE, MAX_PAYMENTS_PER_CREATE } from '#contract/limits';
import type { GetSeriesQuery, SeriesView } from '#contract/schemas/series';
import { SERIES_PAYMENTS_PAGE } from '#contract/series';
import type { Series } from '#domain/series';
import { seriesPaymentView, seriesView, type SeriesPaymentsPage } from '#domain/series-view';
import { seriesStore } from '#store/series';
import { intParam } from './lists';

/** Bytes a view takes in the proxy result: its JSON, escaped once more as the `body` string. */
const proxyBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(JSON.stringify(value)));

/**
 * The page of `series`' payments from `from`: at most `size`, fewer when the next would take the
 * page past SERIES_PAYMENTS_PAGE.maxBytes (never none while any is left).
 */
export async function paymentsPage(series: Series, from: number, size: number): Promise<SeriesPaymentsPage> {
  const read =
    from < series.paymentCount ? await seriesStore().paymentsFrom(series.seriesId, from, size) : [];
  const payments: SeriesPaymentsPage['payments'] = [];
  let bytes = 0;
  for (const payment of read) {
    const view = seriesPaymentView(payment);
    bytes += proxyBytes(view);
    if (payments.length > 0 && bytes > SERIES_PAYMENTS_PAGE.maxBytes) break;
    payments.push(view);
  }
  const next = from + payments.length;
  return { payments, ...(payments.length > 0 && next < series.paymentCount && { next }) };
}

/** The series with a page of its payments, as the query asks (defaults: from the first, 100). */
export async function seriesAnswer(series: Series, query: GetSeriesQuery = {}): Promise<SeriesView> {
  const from = intParam('paymentsFrom', query.paymentsFrom, 0, MAX_PAYMENTS_PER_CREATE) ?? 0;
  const size =
    intParam('paymentsPageSize', query.paymentsPageSize, 1, MAX_PAGE_SIZE) ??
    SERIES_PAYMENTS_PAGE.defaultSize;
  return seriesView(series, true, await paymentsPage(series, from, size));
}
