/** The overview (info.description): what an integrator reads before the operations. */
import { DECLINE_CODES } from '#contract/declines';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, TEST_MID_RANGE } from '#contract/limits';
import { CLIENT_INSTALL, CLIENT_PACKAGE, CLIENT_TARBALL } from './code-samples';
import { LOCAL_BASE_URL } from './types';
import { apiScope, scopeHost, TOKEN_VALIDITY_SECONDS, type Stage } from '#contract/stage';

/**
 * `serverUrl`: the one base URL the document names; without it, the document names the deployed
 * API's URL template and the local runtime, and so does this text.
 */
export function overview(stage: Stage, tokenUrl: string, serverUrl?: string): string {
  const base =
    serverUrl !== undefined
      ? `\`${serverUrl}\``
      : `a deployment's stack output \`ApiUrl\` (\`https://{restApiId}.execute-api.{region}.amazonaws.com/${stage}\`), or \`${LOCAL_BASE_URL}\` for the local runtime`;
  const hours = TOKEN_VALIDITY_SECONDS / 3600;
  const declineRows = Object.entries(DECLINE_CODES)
    .sort(([a, x], [b, y]) => x.category.localeCompare(y.category) || a.localeCompare(b))
    .map(([code, { message, category }]) => `| \`${code}\` | ${message} | ${category} |`)
    .join('\n');
  return `Scheduled payments: groups of card and bank payments that are charged together at one UTC date and hour; the payors and saved payment methods they charge; and sales, voids and refunds with built-in protections (decline category, duplicate check, available refund). Bodies are JSON. Paths are relative to the base URL: ${base}. Each operation shows how to call it with curl and with the TypeScript client (the package \`${CLIENT_PACKAGE}\`), made from its examples; the curl samples read an access token from \`$TOKEN\` (Authentication below).

## The TypeScript client

No registry holds \`${CLIENT_PACKAGE}\`: pack it from a checkout of this service's repository (after \`npm ci\` there) and install the tarball into your project, which records it as a \`file:\` dependency (\`"${CLIENT_PACKAGE}": "file:${CLIENT_TARBALL}"\`):

\`\`\`sh
${CLIENT_INSTALL}
\`\`\`

Keep the tarball with your project (commit it, or pack it again in your build). It runs on Node 20 or later, as ESM or CommonJS, with its types; the samples use top-level \`await\` (an ES module). Pack it again when this document changes: its types are this document's.

## Authentication

Every operation needs the header \`Authorization: Bearer <access token>\`, but the health check \`GET /health\` (no token, for uptime checks). Tokens come from the OAuth 2.0 token endpoint (\`${tokenUrl}\` here; a deployment's is its stack output \`TokenUrl\`) with the **client credentials** grant: \`POST\` a form body \`grant_type=client_credentials\`, with the client ID and secret as HTTP Basic credentials. The answer is \`{access_token, token_type: "Bearer", expires_in: ${TOKEN_VALIDITY_SECONDS}}\`: a token is valid for ${hours} hours; reuse it until shortly before it expires. In a shell (as the curl samples expect it):

\`\`\`sh
TOKEN=$(curl -s -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials '${tokenUrl}' | jq -r .access_token)
\`\`\`

The token must carry the scope \`${apiScope(stage)}\` (\`<scope host>/api.execute\`; this document is for stage \`${stage}\`, whose scope host is \`${scopeHost(stage)}\`: non-production scope hosts carry an environment segment, production's does not).

- Missing, malformed or expired token: 401. Get a new token and retry once.
- A client not authorized for the merchant in the path (or an unknown merchant), a token without the scope, or an operation not available in this environment: 403.
- HTTPS only, TLS 1.2 or higher. Recommended client timeouts: connect 10 s, read 30 s.

## Merchants

\`{MID}\` is an 11-digit merchant ID or its 8-digit short form; both name the same merchant and records always hold the 11-digit form (\`servicePayId\`).

## Money, dates and hours

- Amounts are JSON numbers in the currency unit with **at most 2 decimals** (\`multipleOf: 0.01\`; \`19.999\` is 400). Payment, sale and refund amounts are greater than 0 and at most 999999.99; fee amounts may be 0. The service holds them as integer cents, so sums such as a group's \`totalAmount\` are exact. Note: a client-side validator that evaluates \`multipleOf: 0.01\` in binary floating point (e.g. ajv without \`multipleOfPrecision\`) wrongly rejects amounts such as 19.99; the service itself checks for a whole number of cents.
- Every date and hour is **UTC**: \`scheduleDate\` (yyyy-MM-dd) and \`scheduleHour\` (0-23) name the UTC hour in which a group is processed; timestamps are ISO 8601 with \`Z\`. Convert local merchant time before sending (5 PM at UTC-5 is \`scheduleHour\` 22), with the offset in force on the scheduled date.

## Errors

Every error answers \`{"message": "...", "responseCode": <the HTTP status>}\` (schema \`Error\`); the message names the offending field. A 400 for a body or query that fails its schema adds \`errors\`, every problem found (at most 100) as \`{field, message}\` with the field by path (\`payments[3].amount\`), the first being \`message\`: fix them all in one round trip.

| Status | When | Retry? |
|---|---|---|
| 400 | Malformed path parameter, invalid query parameter, missing or invalid field, a rule of the operation (e.g. \`ImmutableFieldViolation\`, a duplicate customerAccountId) | No, not unchanged |
| 401 | Missing or expired token | Once, with a new token |
| 403 | Not authorized for the merchant, token without the scope, operation unavailable here | No |
| 404 | Resource not found, or not of this merchant | No |
| 409 | idempotencyKey reused with a different body, or still in progress | Only the in-progress case, shortly |
| 429 | Throttled | Yes, with backoff |
| 500 | Unexpected error | Yes, with backoff |
| 503 | Transient unavailability | Yes, with backoff |

Retry 500 and 503 (and 429) with exponential backoff: waits of about 1, 2 and 4 seconds with jitter of ±200 ms, **at most 3 attempts in all**. Do not retry 400 or 404 unchanged. Creates without an idempotency key (groups, payments, payors) are not idempotent: after a timeout or a 5xx, read before sending again.

## Idempotency

Sales and refunds take an optional \`idempotencyKey\` (1-100 of letters, digits, \`_ . : -\`). The same key with the same body returns the first response again, without charging or refunding twice; the same key with a different body is 409. Send one with every sale and refund, and reuse it when retrying.

## Transactions: declines, duplicates, refunds

These protections are active on every transaction, with no configuration.

- A sale answers 201 with its transaction whether **Approved** or **Declined**; a decline is not an error. \`declineCategory\` says whether to retry: **1 = do not retry** (permanent), **2 = may retry** (temporary).
- **Duplicate check**: a sale with the same merchant, the same exact amount and the same saved method as an earlier sale **within 5 minutes** is declined before processing: \`responseCode\` \`19\`, \`isDuplicate: true\`, \`originalTransactionId\`. A different amount or method, a refund, or a sale outside the window is not a duplicate.
- **Available refund**: \`availableRefundAmount\` = \`originalAmount\` − (completed + pending refunds); failed refunds are not counted. A refund above it is 400. Before settlement a sale is voided, after it refunded.

| responseCode | Meaning | declineCategory |
|---|---|---|
${declineRows}

## Lists and paging

List operations answer JSON **arrays** (payments, payors, saved methods). The two group lists answer an array without paging parameters, and the **paged envelope** \`{meta: {page, pageSize, totalItems, totalPages}, items}\` when \`pageNumber\`, \`pageSize\` or both are given: a missing one takes its default (pageNumber 1, pageSize ${DEFAULT_PAGE_SIZE}); pageSize is at most ${MAX_PAGE_SIZE}; a page past the end has \`items: []\`. \`GET /rest/merchants/{MID}\` lists the merchant's groups that are not deleted and not yet processed (status \`pending\` and \`processing\`); \`GET /rest/merchants/{MID}/groups\` lists groups in every stage.

## Deletes

Groups and payments are **soft-deleted**: DELETE answers 204, and the record stays readable and listed with \`deleted: true\` (a group also gets \`status: deleted\`); it is never processed. A group's \`paymentCount\` and \`totalAmount\` count non-deleted payments only. \`deleted\` cannot be set with PUT (400). Payors and saved methods are deleted for good.

## Processing and reversals

At its scheduleDate and scheduleHour (UTC) a pending group is processed: every non-deleted payment is charged and gets its \`authResponse\`, then the group's status is \`processed\` with a \`processingSummary\`. Processed payments are reversed with \`POST .../groups/{GroupID}/void-or-refund\` (void before settlement, refund after). Outside production, \`POST .../groups/{GroupID}/process-payments\` and \`POST /rest/merchants/{MID}/process-payments\` process groups of a test MID (${TEST_MID_RANGE.from}-${TEST_MID_RANGE.to}) at once.

## E-mails

With \`sendPaymentScheduledNotification\` (fixed at creation) the payor is e-mailed a notice when the payment is created; with \`sendEmailReceipt\` (changeable until the group is processed) a receipt after settlement.`;
}
