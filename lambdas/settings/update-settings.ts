import { changeMerchantSettings } from '#core/settings';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';

/** PUT /rest/merchants/{MID}/settings: the fields present are changed. */
export const handler = merchantRoute(routes.UpdateMerchantSettings, async ({ merchant, body, now }) => ({
  status: 200,
  body: await changeMerchantSettings(merchant.merchantId, body, now),
}));
