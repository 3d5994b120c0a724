/**
 * Media types the API answers besides JSON and CSV, and the binary ones API Gateway must pass as
 * bytes. The CDK API (lib/cdk/api.ts `binaryMediaTypes`), the local gateway
 * (lib/local/http-server.ts) and the handlers read them here, so that the three agree.
 */

/** An Office Open XML workbook (.xlsx): the group report as a spreadsheet. */
export const XLSX_MEDIA_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/**
 * The REST API's `binaryMediaTypes`. A function answers such a body base64-encoded with
 * `isBase64Encoded: true`; API Gateway sends it out as bytes when the request's first `Accept`
 * media type is one of these (otherwise as the base64 text). A request whose `Content-Type` is one
 * of these reaches the function base64-encoded.
 */
export const BINARY_MEDIA_TYPES: readonly string[] = [XLSX_MEDIA_TYPE];

/** A header's media types, lower-cased, without their parameters (`;q=0.9`), in the order sent. */
export const mediaTypes = (header: string | undefined): string[] =>
  (header ?? '')
    .split(',')
    .map((part) => part.split(';')[0]!.trim().toLowerCase())
    .filter((type) => type !== '');

/**
 * The media types a header refuses: those given the weight 0 (`text/csv;q=0`: "not acceptable",
 * RFC 9110 section 12.4.2), lower-cased.
 */
export const refusedMediaTypes = (header: string | undefined): Set<string> =>
  new Set(
    (header ?? '').split(',').flatMap((part) => {
      const [type, ...params] = part.split(';');
      const weight = params
        .map((p) => p.split('='))
        .find(([name]) => name!.trim().toLowerCase() === 'q')?.[1];
      return weight !== undefined && Number(weight.trim()) === 0 ? [type!.trim().toLowerCase()] : [];
    }),
  );

/**
 * Whether API Gateway treats `type` as binary: one of BINARY_MEDIA_TYPES, or matched by a
 * wildcard among them (`image/*`, `*\/*`), as the gateway matches.
 */
export function isBinaryMediaType(type: string | undefined): boolean {
  if (type === undefined) return false;
  const [major] = type.split('/');
  return BINARY_MEDIA_TYPES.some((b) => b === type || b === '*/*' || b === `${major}/*`);
}
