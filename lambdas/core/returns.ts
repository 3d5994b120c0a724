/** The merchant's returns list (docs/product.md#returns; store/returns.ts), paged with tokens. */
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '#contract/limits';
import type { ListReturnsQuery, ReturnPage } from '#contract/schemas/returns';
import { BadRequestError } from '#shared/errors';
import { decodePageToken, encodePageToken } from '#store/paging';
import { returnStore } from '#store/returns';

const scopeOf = (merchantId: string) => `returns\n${merchantId}`;

export async function listReturns(merchantId: string, q: ListReturnsQuery): Promise<ReturnPage> {
  const pageSize = q.pageSize === undefined ? DEFAULT_PAGE_SIZE : Number(q.pageSize);
  if (!(pageSize >= 1 && pageSize <= MAX_PAGE_SIZE))
    throw new BadRequestError(`pageSize must be an integer 1-${MAX_PAGE_SIZE} (got ${q.pageSize})`);
  let after: string | undefined;
  if (q.pageToken !== undefined) {
    const cursor = decodePageToken(q.pageToken, scopeOf(merchantId));
    if (!cursor) throw new BadRequestError('pageToken is not a token of this list');
    after = cursor.after;
  }
  const { rows, last, more } = await returnStore().page(merchantId, pageSize, after);
  return {
    meta: {
      pageSize,
      ...(more &&
        last !== undefined && {
          nextPageToken: encodePageToken({ after: last, offset: 0, total: 0, pageSize }, scopeOf(merchantId)),
        }),
    },
    items: rows,
  };
}
