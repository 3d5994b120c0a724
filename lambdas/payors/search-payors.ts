/**
 * GET /v1/rest/merchants/{MID}/payors: with `customerAccountId` an array of 0 or 1 payor; with
 * `expiringBefore=yyyy-MM` the payors having a card that expires before that month, earliest
 * expiry first, in pages of at most 100 and 6 MB (the next named by a `Link` header; core/expiring.ts).
 */
import { payorView } from '#domain/payors';
import * as routes from '#generated/validators';
import { ValidationError } from '#shared/validation';
import { payorsExpiring } from '#core/expiring';
import { merchantRoute } from '#core/merchants';
import { findByCustomer } from '#core/payors';

export const handler = merchantRoute(routes.SearchPayors, async ({ merchant, query }) => {
  const { customerAccountId, expiringBefore, pageToken } = query;
  if (customerAccountId !== undefined && expiringBefore !== undefined)
    throw new ValidationError([
      { field: 'expiringBefore', message: 'expiringBefore cannot be combined with customerAccountId' },
    ]);
  if (expiringBefore !== undefined) {
    const page = await payorsExpiring(merchant.merchantId, expiringBefore, pageToken);
    const next = page.nextPageToken;
    return {
      status: 200,
      body: page.payors,
      ...(next !== undefined && {
        headers: { link: `<?expiringBefore=${expiringBefore}&pageToken=${next}>; rel="next"` },
      }),
    };
  }
  if (pageToken !== undefined)
    throw new ValidationError([
      { field: 'pageToken', message: 'pageToken is for expiringBefore lists only' },
    ]);
  if (customerAccountId === undefined)
    throw new ValidationError([
      { field: 'customerAccountId', message: 'customerAccountId or expiringBefore is required' },
    ]);
  const found = await findByCustomer(merchant.merchantId, customerAccountId);
  return { status: 200, body: found ? [payorView(found.payor, found.methods)] : [] };
});
