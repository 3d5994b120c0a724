import { merchantRoute } from '#core/merchants';
import { createdSeries, createSeries } from '#core/series';
import { seriesAnswer } from '#core/series-payments';
import * as routes from '#generated/validators';

/**
 * POST /rest/merchants/{MID}/series: a series of recurring groups, with the groups of its
 * occurrences already due. A key's record keeps the series' id only: a replay answers the series
 * as it is now (the group create's rules, docs/decisions.md "Idempotent group create").
 */
export const handler = merchantRoute(
  routes.CreateSeries,
  async ({ merchant, body, now, idempotency }) => ({
    status: 201,
    body: await seriesAnswer(await createSeries(body, merchant, now, idempotency)),
  }),
  {
    keep: {
      record: (result) => ({ seriesId: (result.body as { seriesId: string }).seriesId }),
      replay: async (kept, { merchant, now }) => ({
        status: 201,
        body: await seriesAnswer(await createdSeries((kept as { seriesId: string }).seriesId, merchant, now)),
      }),
    },
  },
);
