/** The merchant's returns list (docs/product.md#returns; store/returns.ts), paged with tokens. */
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '#contract/limits';
import type { ListReturnsQuery, ReturnPage } from '#contract/schemas/returns';
import { BadRequestError } from '#shared/errors';
import { decodePageToken, encodePageToken } from '#store/paging';
import { returnStore } from '#store/returns';

/** One page as a store reads it: its rows, the last row's sort key, whether more follow. */
type RowPage<R> = { rows: R[]; last?: string; more: boolean };

/**
 * A page of a merchant's list paged with tokens (returns, disputes): `pageSize` checked, a
 * `pageToken` of this list's `scope` only (another list's: 400), the next page's token made.
 */
export async function tokenPage<R>(
  scope: string,
  q: { pageSize?: string; pageToken?: string },
  read: (pageSize: number, after: string | undefined) => Promise<RowPage<R>>,
): Promise<{ meta: { pageSize: number; nextPageToken?: string }; items: R[] }> {
  const pageSize = q.pageSize === undefined ? DEFAULT_PAGE_SIZE : Number(q.pageSize);
  if (!(pageSize >= 1 && pageSize <= MAX_PAGE_SIZE))
    throw new BadRequestError(`pageSize must be an integer 1-${MAX_PAGE_SIZE} (got ${q.pageSize})`);
  let after: string | undefined;
  if (q.pageToken !== undefined) {
    const cursor = decodePageToken(q.pageToken, scope);
    if (!cursor) throw new BadRequestError('pageToken is not a token of this list');
    after = cursor.after;
  }
  const { rows, last, more } = await read(pageSize, after);
  return {
    meta: {
      pageSize,
      ...(more &&
        last !== undefined && {
          nextPageToken: encodePageToken({ after: last, offset: 0, total: 0, pageSize }, scope),
        }),
    },
    items: rows,
  };
}

export const listReturns = (merchantId: string, q: ListReturnsQuery): Promise<ReturnPage> =>
  tokenPage(`returns\n${merchantId}`, q, (pageSize, after) =>
    returnStore().page(merchantId, pageSize, after),
  );
