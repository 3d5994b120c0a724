/**
 * GET /rest/merchants/{MID}/groups/{GroupID}/report: the group's counts and amounts (JSON), or
 * with `Accept: text/csv` a page of its payments as CSV, the next page named by a `Link` header
 * (core/reports.ts; docs/decisions.md "Group report CSV in pages").
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import * as routes from '#generated/validators';
import { BadRequestError } from '#shared/errors';
import { merchantRoute } from '#core/merchants';
import { groupReport, groupReportCsvPage } from '#core/reports';

/** The request asks for CSV: its Accept header names text/csv. */
const wantsCsv = (event: APIGatewayProxyEvent): boolean =>
  Object.entries(event.headers ?? {}).some(
    ([name, value]) => name.toLowerCase() === 'accept' && /(^|[\s,])text\/csv\b/i.test(value ?? ''),
  );

export const handler = merchantRoute(routes.GroupReport, async ({ event, merchant, params, query }) => {
  if (!wantsCsv(event)) {
    if (query.cursor !== undefined)
      throw new BadRequestError('cursor is for the CSV pages only (send Accept: text/csv)');
    return { status: 200, body: await groupReport(merchant.merchantId, params.GroupID) };
  }
  const page = await groupReportCsvPage(merchant.merchantId, params.GroupID, query.cursor);
  return {
    status: 200,
    text: page.text,
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="group-${params.GroupID}-report.csv"`,
      ...(page.next && { link: `<?cursor=${page.next}>; rel="next"` }),
    },
  };
});
