/**
 * GET .../groups/{GroupID}/payments (alias .../transactions): the group's payments, deleted
 * included. Without paging parameters the array, up to MAX_UNPAGED_PAYMENTS; with them the
 * envelope of the group lists plus `meta.nextPageToken`, which continues at constant cost
 * (docs/decisions.md "Paged payments"). No answer passes Lambda's response limit.
 */
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, MAX_RESPONSE_BYTES, MAX_UNPAGED_PAYMENTS } from '#contract/limits';
import * as routes from '#generated/validators';
import { paymentView, type Payment } from '#domain/groups';
import { BadRequestError } from '#shared/errors';
import { merchantRoute } from '#shared/http';
import { intParam } from '#core/lists';
import { requireGroup } from '#core/groups';
import { decodePageToken, encodePageToken } from '#store/paging';
import { paymentStore } from '#store/payments';

/**
 * Refuses a body Lambda could not return: its size as the proxy result carries it (the JSON
 * text escaped once more as the `body` string), so the check holds for any content.
 */
function fitting<T>(body: T, advice: string): T {
  const bytes = Buffer.byteLength(JSON.stringify(JSON.stringify(body)));
  if (bytes > MAX_RESPONSE_BYTES) {
    throw new BadRequestError(
      `the answer would be ${bytes} bytes, above the ${MAX_RESPONSE_BYTES}-byte response limit: ${advice}`,
    );
  }
  return body;
}

interface PageOf {
  payments: Payment[];
  /** Items before this page. */
  offset: number;
  total: number;
  pageSize: number;
  more: boolean;
}

export const handler = merchantRoute(routes.ListPayments, async ({ merchant, params, query: q }) => {
  const group = await requireGroup(params.GroupID, merchant.merchantId);
  const groupId = group.paymentGroupId;
  const store = paymentStore();

  if (q.pageNumber === undefined && q.pageSize === undefined && q.pageToken === undefined) {
    // paymentCount leaves deleted payments out: one bounded read decides for them too.
    const tooMany = `the group has more than ${MAX_UNPAGED_PAYMENTS} payments: page with pageSize and pageToken (or pageNumber)`;
    if (group.paymentCount > MAX_UNPAGED_PAYMENTS) throw new BadRequestError(tooMany);
    const payments = await store.paymentsAfterId(groupId, null, MAX_UNPAGED_PAYMENTS + 1);
    if (payments.length > MAX_UNPAGED_PAYMENTS) throw new BadRequestError(tooMany);
    return { status: 200, body: fitting(payments.map(paymentView), 'page with pageSize and pageToken') };
  }

  const size = intParam('pageSize', q.pageSize, 1, MAX_PAGE_SIZE);
  let page: PageOf;
  if (q.pageToken !== undefined) {
    if (q.pageNumber !== undefined) throw new BadRequestError('pageToken cannot be combined with pageNumber');
    const cursor = decodePageToken(q.pageToken, groupId);
    if (!cursor) throw new BadRequestError('pageToken is not a nextPageToken of this group');
    const pageSize = size ?? cursor.pageSize;
    // One item more than the page tells whether another page follows, at the same constant cost.
    const read = await store.paymentsAfterId(groupId, cursor.after, pageSize + 1);
    const payments = read.slice(0, pageSize);
    // Payments added since paging began count too (the token's total is from the first page).
    const total = Math.max(cursor.total, cursor.offset + payments.length);
    page = { payments, offset: cursor.offset, total, pageSize, more: read.length > pageSize };
  } else {
    const pageNumber = intParam('pageNumber', q.pageNumber, 1, 999999999) ?? 1;
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
  const body = {
    meta: {
      page: Math.floor(offset / pageSize) + 1,
      pageSize,
      totalItems: total,
      totalPages: Math.ceil(total / pageSize),
      ...(nextPageToken && { nextPageToken }),
    },
    items: payments.map(paymentView),
  };
  return { status: 200, body: fitting(body, 'use a smaller pageSize') };
});
