/**
 * Both group lists (all groups, pending groups) share query parsing and response shapes:
 * without paging parameters a JSON array; with either of them the paged envelope
 * (docs/product.md#listing-groups-and-paging: the missing one takes its default, pageNumber 1 / pageSize 25).
 */
import { groupView, type GroupFilter } from '#domain/groups';
import { BadRequestError } from '#shared/errors';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_NUMBER, MAX_PAGE_SIZE } from '#contract/limits';
import type * as routes from '#generated/validators';
import { merchantRoute } from '#shared/http';
import { groupStore } from '#store/groups';

export function intParam(
  name: string,
  raw: string | undefined,
  min: number,
  max: number,
): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (value < min || value > max)
    throw new BadRequestError(`${name} must be an integer ${min}-${max} (got ${raw})`);
  return value;
}

export function listGroupsHandler(
  route: typeof routes.ListGroups | typeof routes.ListPendingGroups,
  pendingOnly: boolean,
) {
  return merchantRoute(route, async ({ merchant, query: q }) => {
    const filter: GroupFilter = {
      date: q.date,
      hour: intParam('time', q.time, 0, 23),
      locationId: intParam('locationID', q.locationID, 0, 2147483647),
      pendingOnly,
    };
    const store = groupStore();
    if (q.pageNumber === undefined && q.pageSize === undefined) {
      const groups = await store.listGroups(merchant.merchantId, filter);
      return { status: 200, body: groups.map(groupView) };
    }
    const pageNumber = intParam('pageNumber', q.pageNumber, 1, MAX_PAGE_NUMBER) ?? 1;
    const pageSize = intParam('pageSize', q.pageSize, 1, MAX_PAGE_SIZE) ?? DEFAULT_PAGE_SIZE;
    const { items, total } = await store.pageGroups(merchant.merchantId, filter, { pageNumber, pageSize });
    return {
      status: 200,
      body: {
        meta: { page: pageNumber, pageSize, totalItems: total, totalPages: Math.ceil(total / pageSize) },
        items: items.map(groupView),
      },
    };
  });
}
