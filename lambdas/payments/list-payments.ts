/**
 * GET .../groups/{GroupID}/payments (alias .../transactions): the group's payments, deleted
 * included (core/lists.ts). Without paging parameters the array, up to MAX_UNPAGED_PAYMENTS; with
 * them the envelope of the group lists plus `meta.nextPageToken`, which continues at constant cost
 * (docs/decisions.md "Paged payments"). No answer passes Lambda's response limit.
 */
import * as routes from '#generated/validators';
import { fitting } from '#core/answer-size';
import { listPayments } from '#core/lists';
import { merchantRoute } from '#core/merchants';

export const handler = merchantRoute(routes.ListPayments, async ({ merchant, params, query }) => {
  const body = await listPayments(merchant.merchantId, params.GroupID, query);
  const advice = Array.isArray(body) ? 'page with pageSize and pageToken' : 'use a smaller pageSize';
  return { status: 200, body: fitting(body, advice) };
});
