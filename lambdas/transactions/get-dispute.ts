import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';
import { getDispute } from '#core/dispute-list';

/** GET /v1/rest/merchants/{MID}/disputes/{DisputeID}: one card dispute as it is now. */
export const handler = merchantRoute(routes.GetDispute, async ({ merchant, params }) => ({
  status: 200,
  body: await getDispute(merchant.merchantId, params.DisputeID),
}));
