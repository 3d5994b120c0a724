import { merchantRoute } from '#core/merchants';
import { requireSeries } from '#core/series';
import { seriesAnswer } from '#core/series-payments';
import * as routes from '#generated/validators';

/** GET /rest/merchants/{MID}/series/{SeriesID}: a series with its occurrences and a page of its payments. */
export const handler = merchantRoute(routes.GetSeries, async ({ merchant, params, query }) => ({
  status: 200,
  body: await seriesAnswer(await requireSeries(params.SeriesID, merchant.merchantId), query),
}));
