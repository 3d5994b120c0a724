/** Payment groups of a merchant: lists, create, read, update, delete. */
import {
  DEFAULT_PAGE_SIZE,
  MAX_PAGE_SIZE,
  MAX_UNPAGED_GROUPS,
  MAX_PAYMENTS_PER_CREATE,
  REPORT_MESSAGE_CHARS,
  REPORT_PAGE_BYTES,
  REPORT_PAGE_ROWS,
} from '../limits';
import { XLSX_MEDIA_TYPE } from '../media-types';
import {
  createGroupSchema,
  groupListingSchema,
  groupSchema,
  groupWithPaymentsSchema,
  listGroupsQueryDocs,
  listGroupsQuerySchema,
  updateGroupSchema,
} from '../schemas/groups';
import {
  groupReportQueryDocs,
  groupReportQuerySchema,
  groupReportSchema,
  REPORT_COLUMNS,
} from '../schemas/reports';
import { route } from './types';

export const M = '/rest/merchants/{MID}';
export const G = `${M}/groups/{GroupID}` as const;

/** Rule shared by every operation that takes a profileId. */
export const PROFILE_RULE =
  'profileId is `{payorId}/{savedPaymentMethodId}` of a saved method of a payor of this merchant; any other value is 400.';

const LIST_BEHAVIOUR = `Filters combine (all must match). Groups come in schedule order (scheduleDate, scheduleHour), then by paymentGroupId (groups created through the API have time-ordered ids: creation order; a series' occurrence has an id derived from its series).

Response shape: without pageNumber and pageSize, a JSON **array** of every matching group, up to ${MAX_UNPAGED_GROUPS.toLocaleString('en-US')} of them (more, or an array past Lambda's 6 MB answer, is 400: page instead). With pageNumber, pageSize or both, the **paged envelope** \`{meta, items}\`; a missing one takes its default (pageNumber 1, pageSize ${DEFAULT_PAGE_SIZE}). pageSize is at most ${MAX_PAGE_SIZE} (above: 400). A page past the end answers 200 with \`items: []\` and the true totals in meta.`;

/** The report files' header row, as the description shows it. */
const REPORT_COLUMN_LIST = `\`${REPORT_COLUMNS.join(',')}\``;

const PENDING_ONLY =
  "Only the merchant's groups that are not deleted and not yet processed: status `pending` or `processing`.";

const listQuery = { schema: listGroupsQuerySchema, parameters: listGroupsQueryDocs } as const;
const listResponse = {
  schema: groupListingSchema,
  description: 'The groups: an array, or the paged envelope when paging parameters are given.',
} as const;

export const groupRoutes = {
  ListPendingGroups: route({
    id: 'ListPendingGroups',
    method: 'GET',
    path: M,
    handler: 'groups/list-pending-groups',
    status: 200,
    summary: 'List pending groups of a merchant',
    description: `${PENDING_ONLY} Same query parameters and response shapes as ListGroups.\n\n${LIST_BEHAVIOUR}`,
    query: listQuery,
    response: listResponse,
  }),
  ListGroups: route({
    id: 'ListGroups',
    method: 'GET',
    path: `${M}/groups`,
    handler: 'groups/list-groups',
    status: 200,
    summary: 'List all groups of a merchant',
    description: `Groups in every stage: pending, processing, processed and deleted (soft-deleted groups are listed with \`deleted: true\`).\n\n${LIST_BEHAVIOUR}`,
    query: listQuery,
    response: listResponse,
  }),
  CreateGroup: route({
    id: 'CreateGroup',
    method: 'POST',
    idempotency: { scope: 'group', bodyKey: true },
    path: `${M}/groups`,
    handler: 'groups/create-group',
    status: 201,
    summary: 'Create a group, optionally with payments',
    description: `Creates a group, and with \`payments\` (up to ${MAX_PAYMENTS_PER_CREATE.toLocaleString('en-US')}) its payments, all or nothing; preferred over adding payments one by one when all are known.

- servicePayId must name the path's merchant, in either MID form; the group holds the 11-digit form.
- scheduleDate and scheduleHour are UTC (convert local time first: 5 PM at UTC-5 is scheduleHour 22). A slot earlier than the current UTC hour is 400.
- locationId is an integer >= 0. transactionInitiator defaults to \`Merchant\`; surchargeCompliance and allowPartial to false.
- Payments: ${PROFILE_RULE} recurring, sendEmailReceipt and sendPaymentScheduledNotification default to false; with sendPaymentScheduledNotification the payor is e-mailed a notice at creation.
- idempotencyKey (optional, the sale's rules): the same key and body within 24 hours answer 201 with the group that key created, as it is now (same paymentGroupId and paymentIds; nothing is created twice); the same key with another body is 409; while the first request is still running, 409 (retry shortly). A refused request (4xx) frees its key. Send one whenever a create may be retried after a timeout or a 5xx.

201: the group with its \`payments\`, each with its assigned paymentId. A create of 10,000 payments takes about 10-15 seconds (one group's payments are written at about 1,000 per second); send it with an idempotencyKey.`,
    body: { schema: createGroupSchema },
    response: { schema: groupWithPaymentsSchema, description: 'The group created, with its payments.' },
    errors: [409],
  }),
  GetGroup: route({
    id: 'GetGroup',
    method: 'GET',
    path: G,
    handler: 'groups/get-group',
    status: 200,
    summary: 'Get a group',
    description:
      'A group of this merchant, in any stage. An unknown GroupID or a group of another merchant: 404.',
    response: { schema: groupSchema, description: 'The group.' },
  }),
  UpdateGroup: route({
    id: 'UpdateGroup',
    method: 'PUT',
    path: G,
    handler: 'groups/update-group',
    status: 200,
    summary: 'Update a pending group',
    description: `Changes the fields present (unlike payment PUT, a partial update): scheduleDate, scheduleHour, locationId, transactionInitiator, surchargeCompliance, allowPartial. paymentGroupId and servicePayId may be sent and must then match the path.

- A body with \`deleted\` is 400: use DELETE.
- A new schedule slot earlier than the current UTC hour is 400; the new slot is used for processing.
- On a processing or processed group the update is ignored: 200 with the group unchanged (reverse processed payments with void-or-refund). On a deleted group: 400.`,
    body: { schema: updateGroupSchema },
    response: { schema: groupSchema, description: 'The group after the update (unchanged when ignored).' },
  }),
  DeleteGroup: route({
    id: 'DeleteGroup',
    method: 'DELETE',
    path: G,
    handler: 'groups/delete-group',
    status: 204,
    summary: 'Cancel (soft-delete) a group',
    description:
      'Cancels a pending group: a soft delete. The group gets status `deleted` (`deleted: true`), stays readable and listed with its payments, and is never processed. Deleting a deleted group again is a no-op 204. A processing or processed group cannot be deleted: 400 (use void-or-refund).',
  }),
  GroupReport: route({
    id: 'GroupReport',
    method: 'GET',
    path: `${G}/report`,
    handler: 'groups/group-report',
    status: 200,
    summary: "A group's report: counts and amounts, or its payments as CSV or a spreadsheet",
    description: `A group of this merchant in any stage, at a glance. Its counts and amounts are taken over every payment (deleted ones counted as deleted only), by the processing summary's rules: \`counts.payments\` and \`amounts.scheduled\` are the group's paymentCount and totalAmount, and once it is processed approved + returned + declined + failed = payments. A bank debit the bank returned after it was approved (before or after it cleared, however long after processing) counts in returned and no longer in approved, here and in the group's processingSummary (which follows each return once, right after it is applied).

**Files.** With \`Accept: text/csv\` the answer is the group's payments as CSV; with \`Accept: ${XLSX_MEDIA_TYPE}\` (named first: API Gateway sends a binary answer as bytes only for the first type of Accept) as an .xlsx workbook; a type Accept refuses (\`;q=0\`) is never answered, JSON is. One row per payment in the order they were added, deleted ones included, under a header row of these columns, in this order: ${REPORT_COLUMN_LIST}. status is deleted, scheduled (not charged yet), approved, partial, returned (an approved bank debit the bank returned since: its approvedAmount is 0.00 and returnCode the bank's code, R01...), declined or failed (by the latest attempt); customerAccountId is the payor's (empty when it has none or was deleted); processedAt (UTC, ISO 8601) and responseMessage are those of the latest attempt (the message at most ${REPORT_MESSAGE_CHARS} characters, one line), empty while it is scheduled and when deleted.

**CSV.** RFC 4180 in UTF-8 with a byte-order mark (so that Excel reads accents right): comma-separated, CRLF line ends, a cell with a comma, quote or line break in double quotes with its quotes doubled. A formula is neutralised wherever a spreadsheet could start a cell: a \`'\` goes before \`=\`, \`+\`, \`-\` or \`@\` (or its full-width form \`＝\`, \`＋\`, \`－\`, \`＠\`) at a cell's start and after a \`,\`, \`;\`, tab or line break inside it (spaces and double quotes between skipped), and before a cell that starts with a tab or a carriage return, so that a spreadsheet shows the text instead of running it, whichever separator it splits on.

**Spreadsheet.** One sheet, \`Payments\`. Text cells are text whatever they hold (\`05\`, \`0042\` and \`=1+1\` stay as typed, never numbers or formulas, without the CSV's \`'\`); amount, approvedAmount, refundedAmount and attempts are numbers, voided is TRUE or FALSE, processedAt is the ISO text.

**Pages.** A group holds up to 100,000 payments, more than one answer may carry (Lambda answers at most 6 MB, API Gateway 10 MB within 29 s): the files come in pages of at most ${REPORT_PAGE_ROWS.toLocaleString('en-US')} rows, each a whole file with its header row, its body at most ${REPORT_PAGE_BYTES / 1024 / 1024} MB as the answer carries it (a page of long text holds fewer rows). A page that is not the last has the header \`Link: <?cursor=…>; rel="next"\`: GET the same path, with the same Accept, with that cursor for the next page; the last page has no Link. A page may hold fewer rows when the reads behind it took long; only the Link says whether more follow. \`spay group report <groupId> --csv\` and the TypeScript client's \`groupReportCsv\` follow the CSV pages into one file.

cursor is for the file pages: with a JSON answer it is 400. An unknown GroupID or a group of another merchant: 404.`,
    query: { schema: groupReportQuerySchema, parameters: groupReportQueryDocs },
    response: {
      schema: groupReportSchema,
      description: 'The report (JSON), or a CSV or spreadsheet page of its payments.',
    },
    csv: {
      description:
        'With `Accept: text/csv`: a page of the payments as CSV (UTF-8 with a byte-order mark) with its header row; `Link: <?cursor=…>; rel="next"` when more pages follow.',
    },
    spreadsheet: {
      description:
        'With the .xlsx media type first in `Accept`: a page of the payments as a workbook with its header row; `Link: <?cursor=…>; rel="next"` when more pages follow.',
    },
  }),
};
