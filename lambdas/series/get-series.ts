import { merchantRoute } from '#core/merchants';
import { requireSeries } from '#core/series';
import { seriesView } from '#domain/series-view';
import * as routes from '#generated/validators';

/** GET /rest/merchants/{MID}/series/{SeriesID}: a series with its occurrences. */
export const handler = merchantRoute(routes.GetSeries, async ({ merchant, params }) => ({
  status: 200,
  body: seriesView(await requireSeries(params.SeriesID, merchant.merchantId)),
}));
