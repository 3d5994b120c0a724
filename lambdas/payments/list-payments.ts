/**
 * GET .../groups/{GroupID}/payments (alias .../transactions): the group's payments, deleted
 * included (core/lists.ts). Without paging parameters the array, up to MAX_UNPAGED_PAYMENTS; with
 * them the envelope of the group lists plus `meta.nextPageToken`, which continues at constant cost
 * (docs/decisions.md "Paged payments"). No answer passes Lambda's response limit.
 */
import { MAX_RESPONSE_BYTES } from '#contract/limits';
import * as routes from '#generated/validators';
import { BadRequestError } from '#shared/errors';
import { listPayments } from '#core/lists';
import { merchantRoute } from '#core/merchants';

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

export const handler = merchantRoute(routes.ListPayments, async ({ merchant, params, query }) => {
  const body = await listPayments(merchant.merchantId, params.GroupID, query);
  const advice = Array.isArray(body) ? 'page with pageSize and pageToken' : 'use a smaller pageSize';
  return { status: 200, body: fitting(body, advice) };
});
