import { merchantRoute } from '#core/merchants';
import { cancelSeries } from '#core/series';
import * as routes from '#generated/validators';

/** DELETE /rest/merchants/{MID}/series/{SeriesID}: cancels a series and deletes its pending groups. */
export const handler = merchantRoute(routes.DeleteSeries, async ({ merchant, params, now }) => {
  await cancelSeries(params.SeriesID, merchant.merchantId, now);
  return { status: 204 };
});
