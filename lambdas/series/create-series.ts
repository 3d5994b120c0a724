import { merchantRoute } from '#core/merchants';
import { createSeries } from '#core/series';
import { seriesView } from '#domain/series';
import * as routes from '#generated/validators';

/**
 * POST /rest/merchants/{MID}/series: a series of recurring groups, with the groups of its
 * occurrences already due.
 */
export const handler = merchantRoute(routes.CreateSeries, async ({ merchant, body, now }) => ({
  status: 201,
  body: seriesView(await createSeries(body, merchant, now)),
}));
