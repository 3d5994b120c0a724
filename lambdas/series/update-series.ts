import { merchantRoute } from '#core/merchants';
import { updateSeries } from '#core/series';
import { seriesAnswer } from '#core/series-payments';
import { assertSameId } from '#domain/groups';
import * as routes from '#generated/validators';

/** PUT /rest/merchants/{MID}/series/{SeriesID}: changes, pauses or resumes a series. */
export const handler = merchantRoute(routes.UpdateSeries, async ({ merchant, params, body, now }) => {
  assertSameId('seriesId', body.seriesId, params.SeriesID);
  return {
    status: 200,
    body: await seriesAnswer(await updateSeries(params.SeriesID, merchant.merchantId, body, now)),
  };
});
