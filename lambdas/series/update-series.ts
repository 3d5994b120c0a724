import { merchantRoute } from '#core/merchants';
import { updateSeries } from '#core/series';
import { assertSameId } from '#domain/groups';
import { seriesView } from '#domain/series-view';
import * as routes from '#generated/validators';

/** PUT /rest/merchants/{MID}/series/{SeriesID}: changes, pauses or resumes a series. */
export const handler = merchantRoute(routes.UpdateSeries, async ({ merchant, params, body, now }) => {
  assertSameId('seriesId', body.seriesId, params.SeriesID);
  return {
    status: 200,
    body: seriesView(await updateSeries(params.SeriesID, merchant.merchantId, body, now)),
  };
});
