/**
 * The group lists (all groups, pending groups), the series list (core/series-list.ts) and a
 * group's payment list share their paging parameters and response shapes: without paging parameters a JSON array; with either of them the
 * paged envelope (docs/product.md#listing-groups-and-paging: the missing one takes its default,
 * pageNumber 1 / pageSize 25). The payment list also continues with page tokens at constant cost
 * (docs/decisions.md "Paged payments").
 */
import {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_NUMBER,
  MAX_PAGE_SIZE,
  MAX_RESPONSE_BYTES,
  MAX_UNPAGED_GROUPS,
  MAX_UNPAGED_PAYMENTS,
} from '#contract/limits';
import type { ListGroupsQuery } from '#contract/schemas/groups';
import type { ListPaymentsQuery } from '#contract/schemas/payments';
import { groupView, type GroupFilter, type Payment } from '#domain/groups';
import { BadRequestError } from '#shared/errors';
import { fitting, tooLarge } from './answer-size';
import { groupStore } from '#store/groups';
import { decodePageToken, encodePageToken } from '#store/paging';
import { paymentStore } from '#store/payments';
import { paymentViews } from './expiring';
import { requireGroup } from './groups';

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

/** The envelope of a page: `offset` items come before it. */
export const pageMeta = (offset: number, pageSize: number, total: number) => ({
  page: Math.floor(offset / pageSize) + 1,
  pageSize,
  totalItems: total,
  totalPages: Math.ceil(total / pageSize),
});

/** A merchant's groups (`pendingOnly`: those not deleted and not yet processed), by slot. */
export async function listGroups(merchantId: string, q: ListGroupsQuery, pendingOnly: boolean) {
  const filter: GroupFilter = {
    date: q.date,
    hour: intParam('time', q.time, 0, 23),
    locationId: intParam('locationID', q.locationID, 0, 2147483647),
    pendingOnly,
  };
  const store = groupStore();
  if (q.pageNumber === undefined && q.pageSize === undefined) {
    const groups = await store.listGroups(merchantId, filter, MAX_UNPAGED_GROUPS + 1);
    return unpaged(groups.map(groupView), 'groups');
  }
  const pageNumber = intParam('pageNumber', q.pageNumber, 1, MAX_PAGE_NUMBER) ?? 1;
  const pageSize = intParam('pageSize', q.pageSize, 1, MAX_PAGE_SIZE) ?? DEFAULT_PAGE_SIZE;
  const { items, total } = await store.pageGroups(merchantId, filter, { pageNumber, pageSize });
  return { meta: pageMeta((pageNumber - 1) * pageSize, pageSize, total), items: items.map(groupView) };
}

/**
 * A list without paging parameters: its array, up to MAX_UNPAGED_GROUPS items and Lambda's
 * response size (core/answer-size.ts); past either, a 400 that says to page.
 */
export function unpaged<T>(items: T[], what: string): T[] {
  const advice = `page with pageNumber and pageSize`;
  if (items.length > MAX_UNPAGED_GROUPS)
    throw new BadRequestError(`more than ${MAX_UNPAGED_GROUPS} ${what} match: ${advice}`);
  return fitting(items, advice);
}

interface PageOf {
  payments: Payment[];
  /** Items before this page. */
  offset: number;
  total: number;
  pageSize: number;
  more: boolean;
}

/**
 * A group's payments, deleted included: without paging parameters the array, up to
 * MAX_UNPAGED_PAYMENTS; with them the envelope of the group lists plus `meta.nextPageToken`.
 */
export async function listPayments(merchantId: string, groupId: string, q: ListPaymentsQuery) {
  const group = await requireGroup(groupId, merchantId);
  const store = paymentStore();

  if (q.pageNumber === undefined && q.pageSize === undefined && q.pageToken === undefined) {
    // paymentCount leaves deleted payments out: one bounded read decides for them too.
    const tooMany = `the group has more than ${MAX_UNPAGED_PAYMENTS} payments: page with pageSize and pageToken (or pageNumber)`;
    if (group.paymentCount > MAX_UNPAGED_PAYMENTS) throw new BadRequestError(tooMany);
    const payments = await store.paymentsAfterId(groupId, null, MAX_UNPAGED_PAYMENTS + 1, MAX_RESPONSE_BYTES);
    if (!payments) throw tooLarge('page with pageSize and pageToken');
    if (payments.length > MAX_UNPAGED_PAYMENTS) throw new BadRequestError(tooMany);
    return paymentViews(group, payments);
  }

  const size = intParam('pageSize', q.pageSize, 1, MAX_PAGE_SIZE);
  let page: PageOf;
  if (q.pageToken !== undefined) {
    if (q.pageNumber !== undefined) throw new BadRequestError('pageToken cannot be combined with pageNumber');
    const cursor = decodePageToken(q.pageToken, groupId);
    // A token's page size is at most the parameter's (one forged with a valid digest is refused).
    if (!cursor || cursor.pageSize > MAX_PAGE_SIZE)
      throw new BadRequestError('pageToken is not a nextPageToken of this group');
    const pageSize = size ?? cursor.pageSize;
    // One item more than the page tells whether another page follows, at the same constant cost.
    const read = await store.paymentsAfterId(groupId, cursor.after, pageSize + 1, MAX_RESPONSE_BYTES);
    if (!read) throw tooLarge('use a smaller pageSize');
    const payments = read.slice(0, pageSize);
    // Payments added since paging began count too (the token's total is from the first page).
    const total = Math.max(cursor.total, cursor.offset + payments.length);
    page = { payments, offset: cursor.offset, total, pageSize, more: read.length > pageSize };
  } else {
    const pageNumber = intParam('pageNumber', q.pageNumber, 1, MAX_PAGE_NUMBER) ?? 1;
    const pageSize = size ?? DEFAULT_PAGE_SIZE;
    const { payments, total } = await store.pagePayments(groupId, { pageNumber, pageSize });
    const offset = (pageNumber - 1) * pageSize;
    page = { payments, offset, total, pageSize, more: offset + payments.length < total };
  }

  const { payments, offset, total, pageSize, more } = page;
  const last = payments[payments.length - 1];
  const nextPageToken =
    more && last
      ? encodePageToken({ after: last.paymentId, offset: offset + payments.length, total, pageSize }, groupId)
      : undefined;
  return {
    meta: { ...pageMeta(offset, pageSize, total), ...(nextPageToken && { nextPageToken }) },
    items: await paymentViews(group, payments),
  };
}
