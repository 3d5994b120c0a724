/**
 * GET /rest/merchants/{MID}/groups/{GroupID}/report: the group's counts and amounts (JSON), or a
 * page of its payments as CSV (`Accept: text/csv`) or as an .xlsx workbook (`Accept:` the
 * spreadsheet type, first), the next page named by a `Link` header (core/reports.ts;
 * docs/decisions.md "Group report CSV in pages").
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { mediaTypes, refusedMediaTypes, XLSX_MEDIA_TYPE } from '#contract/media-types';
import * as routes from '#generated/validators';
import { BadRequestError } from '#shared/errors';
import { merchantRoute } from '#core/merchants';
import { groupReport, groupReportPage, type ReportFormat } from '#core/reports';

/**
 * The file the request asks for: the workbook when its Accept header names the spreadsheet type
 * first (API Gateway sends a binary answer as bytes only for the first Accept type, else as base64
 * text), CSV when it names text/csv anywhere, else none (JSON); never a type it refuses (`;q=0`).
 */
function fileFormat(event: APIGatewayProxyEvent): ReportFormat | undefined {
  const accept = Object.entries(event.headers ?? {})
    .filter(([name]) => name.toLowerCase() === 'accept')
    .map(([, value]) => value ?? '')
    .join(',');
  const types = mediaTypes(accept);
  const refused = refusedMediaTypes(accept);
  if (types[0] === XLSX_MEDIA_TYPE && !refused.has(XLSX_MEDIA_TYPE)) return 'xlsx';
  return types.includes('text/csv') && !refused.has('text/csv') ? 'csv' : undefined;
}

export const handler = merchantRoute(routes.GroupReport, async ({ event, merchant, params, query }) => {
  const format = fileFormat(event);
  if (format === undefined) {
    if (query.cursor !== undefined)
      throw new BadRequestError(
        `cursor is for the CSV and spreadsheet pages only (send Accept: text/csv or ${XLSX_MEDIA_TYPE})`,
      );
    return { status: 200, body: await groupReport(merchant.merchantId, params.GroupID) };
  }
  const page = await groupReportPage(merchant.merchantId, params.GroupID, query.cursor, format);
  const headers = {
    'content-disposition': `attachment; filename="group-${params.GroupID}-report.${format}"`,
    ...(page.next && { link: `<?cursor=${page.next}>; rel="next"` }),
  };
  return page.format === 'csv'
    ? { status: 200, text: page.text, headers: { 'content-type': 'text/csv; charset=utf-8', ...headers } }
    : {
        status: 200,
        text: page.bytes.toString('base64'),
        isBase64Encoded: true as const,
        headers: { 'content-type': XLSX_MEDIA_TYPE, ...headers },
      };
});
