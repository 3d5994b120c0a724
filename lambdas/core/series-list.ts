/**
 * The series list, paged as the group lists are (core/lists.ts); apart from them so that the
 * group functions do not load the series' time rules (luxon) into their bundles.
 */
import { DEFAULT_PAGE_SIZE, MAX_PAGE_NUMBER, MAX_PAGE_SIZE, MAX_UNPAGED_GROUPS } from '#contract/limits';
import type { ListSeriesQuery } from '#contract/schemas/series';
import { seriesView } from '#domain/series-view';
import { seriesStore } from '#store/series';
import { intParam, pageMeta, unpaged } from './lists';

/**
 * A merchant's series, oldest first (optionally of one status), as the group lists page; list items
 * leave out each series' `occurrences` (GET one series for them).
 */
export async function listSeries(merchantId: string, q: ListSeriesQuery) {
  const filter = { status: q.status };
  const store = seriesStore();
  if (q.pageNumber === undefined && q.pageSize === undefined) {
    const series = await store.list(merchantId, filter, MAX_UNPAGED_GROUPS + 1);
    return unpaged(
      series.map((s) => seriesView(s, false)),
      'series',
    );
  }
  const pageNumber = intParam('pageNumber', q.pageNumber, 1, MAX_PAGE_NUMBER) ?? 1;
  const pageSize = intParam('pageSize', q.pageSize, 1, MAX_PAGE_SIZE) ?? DEFAULT_PAGE_SIZE;
  const { items, total } = await store.page(merchantId, filter, { pageNumber, pageSize });
  return {
    meta: pageMeta((pageNumber - 1) * pageSize, pageSize, total),
    items: items.map((s) => seriesView(s, false)),
  };
}
