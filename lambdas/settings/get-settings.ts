import { merchantSettings } from '#core/settings';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';

/** GET /rest/merchants/{MID}/settings: the merchant's settings, defaults filled in. */
export const handler = merchantRoute(routes.GetMerchantSettings, async ({ merchant }) => ({
  status: 200,
  body: await merchantSettings(merchant.merchantId),
}));
