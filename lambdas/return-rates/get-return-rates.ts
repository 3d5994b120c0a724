import { merchantReturnRates } from '#core/return-rates';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';

/** GET /rest/merchants/{MID}/return-rates: the merchant's Nacha return rates of the last 60 days. */
export const handler = merchantRoute(routes.GetReturnRates, async ({ merchant, now }) => ({
  status: 200,
  body: await merchantReturnRates(merchant.merchantId, now),
}));
