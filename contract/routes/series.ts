/** Series of a merchant: recurring groups in the merchant's own time zone (docs/decisions.md "Series"). */
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, MAX_PAYMENTS_PER_CREATE, MAX_UNPAGED_GROUPS } from '../limits';
import {
  DEFAULT_NOTICE_DAYS,
  MAX_NOTICE_DAYS,
  MAX_SERIES_INTERVAL,
  MAX_SERIES_OCCURRENCES,
  MAX_SERIES_START_YEARS,
  NEXT_OCCURRENCES_SHOWN,
  SERIES_PAYMENTS_PAGE,
} from '../series';
import {
  createSeriesSchema,
  getSeriesQueryDocs,
  getSeriesQuerySchema,
  listSeriesQueryDocs,
  listSeriesQuerySchema,
  seriesListingSchema,
  seriesSchema,
  updateSeriesSchema,
} from '../schemas/series';
import { M, PROFILE_RULE } from './groups';
import { route } from './types';

const S = `${M}/series` as const;
const ONE = `${S}/{SeriesID}` as const;

/** The time rules, as every series operation states them. */
const TIME_RULES = `**Time rules.** \`timeZone\` is an IANA name (\`America/New_York\`, \`Europe/London\`, \`Australia/Sydney\`; unknown: 400 naming it), kept and shown as sent: a current name stays as it is (\`Asia/Kolkata\`, \`Europe/Kyiv\`, \`America/Nuuk\`, \`Pacific/Kanton\`), and so does an older alias of it. Occurrence 1 falls on \`startDate\`; weekly series every \`interval\` weeks after it; monthly series every \`interval\` months on startDate's day of the month, or the month's last day when it has fewer days (a series started on the 31st runs on 28 or 29 February, 30 April, 31 May). Each occurrence's UTC slot (its group's \`scheduleDate\` and \`scheduleHour\`) is the local date at \`localHour\`, converted with the zone's rules **for that date**, so the UTC hour moves with daylight saving time and the local hour stays: a local hour that a change skips (spring forward) runs at the next hour that exists (02:00 on the day New York springs forward runs at 03:00 EDT, 07:00 UTC); a local hour that a change repeats (fall back) runs at its first instance (01:00 on the day New York falls back runs at 01:00 EDT, 05:00 UTC). In a zone whose offset is not whole hours (Asia/Kolkata, +05:30) the slot is the first UTC hour at or after the local hour (17:00 IST runs at 12:00 UTC, 17:30 IST). The conversion uses the time-zone database the service runs with (Node.js's ICU data), occurrence by occurrence, when the slot is shown and again when its group is created.`;

/** A series' payments, as one series' answers show them. */
const PAYMENTS = `**Payments.** The answer shows the series' payments (\`payments\`, each with its \`index\`, \`profileId\`, \`amount\` and \`status\`) a page at a time: ${SERIES_PAYMENTS_PAGE.defaultSize} from the first by default; \`paymentsNext\`, when present, is the index to GET the series from (\`?paymentsFrom=\`) for the next page. Lists show only \`paymentCount\`.`;

const OCCURRENCES = `**Occurrences become groups.** Occurrence *n*'s group is created \`noticeDays\` days (default ${DEFAULT_NOTICE_DAYS}, at most ${MAX_NOTICE_DAYS}) before its slot, by a daily job that creates every group due before its next run (so up to a day earlier), and at once when that time has already passed. The group has \`seriesId\` and \`occurrence\`, the series' settings (its \`retryPolicy\` included: a series without one makes groups without one, which retry under the merchant's policy), and a copy of the series' payments with \`recurring: true\`; its payment-scheduled notices are e-mailed when it is created, so \`noticeDays\` is the payor's advance notice. It announces itself with \`group.created\` like any group, and is processed like any group. Each occurrence's group is created exactly once, however often or concurrently the job runs (its paymentGroupId is derived from the series and the occurrence). A saved method that a series' payment names cannot be deleted (409 naming the series) unless \`replaceWith\` moves the payment to another method of its payor; should a payment's saved method no longer exist all the same, that payment is left out of that occurrence's group (counted as \`paymentsLeftOut\`). An occurrence whose slot has passed before its group could be created (the series was paused, or the service was down for longer than noticeDays) is \`skipped\`, never charged late. After the last occurrence's group the series is \`completed\`.`;

export const seriesRoutes = {
  ListSeries: route({
    id: 'ListSeries',
    method: 'GET',
    path: S,
    handler: 'series/list-series',
    status: 200,
    summary: 'List the series of a merchant',
    description: `Every series of the merchant, oldest first, in every status (optional \`status\` filter). List items leave out \`occurrences\` (GET one series for them).

Response shape: without pageNumber and pageSize, a JSON **array** of every matching series, up to ${MAX_UNPAGED_GROUPS.toLocaleString('en-US')} of them (more, or an array past Lambda's 6 MB answer, is 400: page instead). With pageNumber, pageSize or both, the **paged envelope** \`{meta, items}\`; a missing one takes its default (pageNumber 1, pageSize ${DEFAULT_PAGE_SIZE}). pageSize is at most ${MAX_PAGE_SIZE} (above: 400). A page past the end answers 200 with \`items: []\`.`,
    query: { schema: listSeriesQuerySchema, parameters: listSeriesQueryDocs },
    response: {
      schema: seriesListingSchema,
      description: 'The series: an array, or the paged envelope when paging parameters are given.',
    },
  }),
  CreateSeries: route({
    id: 'CreateSeries',
    method: 'POST',
    path: S,
    handler: 'series/create-series',
    status: 201,
    summary: 'Create a series of recurring groups',
    description: `Creates a series: the same payments charged every \`interval\` weeks or months at \`localHour\` in the merchant's time zone, \`count\` times (1-${MAX_SERIES_OCCURRENCES}) or up to \`endDate\` (a local date; at most ${MAX_SERIES_OCCURRENCES} occurrences): exactly one of the two. \`interval\` is 1-${MAX_SERIES_INTERVAL}.

- The first occurrence's slot must not be earlier than the current UTC hour, and \`startDate\` at most ${MAX_SERIES_START_YEARS} years after today's date in \`timeZone\` (400 naming startDate): every date of a series is then a four-digit yyyy-MM-dd.
- locationId, transactionInitiator (default \`Merchant\`), surchargeCompliance and allowPartial (default false) and retryPolicy are those of every group created.
- payments (1-${MAX_PAYMENTS_PER_CREATE.toLocaleString('en-US')}) as in group create: ${PROFILE_RULE} Every payment is \`recurring: true\` (\`false\` is 400). With sendPaymentScheduledNotification the payor is e-mailed a notice when each occurrence's group is created, with sendDeclineNotification after each declined attempt of its payment.
- idempotencyKey (optional, the group create's rules): the same key and body within 24 hours answer 201 with the series that key created, as it is now; another body is 409; a request still running is 409.

${TIME_RULES}

${OCCURRENCES}

${PAYMENTS}

201: the series with its next ${NEXT_OCCURRENCES_SHOWN} occurrences and the first page of its payments. The groups of occurrences already due are created within the request while the payments written stay within ${MAX_PAYMENTS_PER_CREATE.toLocaleString('en-US')} (the series' own included); any others within a minute. Announced by \`series.created\`.`,
    body: { schema: createSeriesSchema },
    response: { schema: seriesSchema, description: 'The series created.' },
    errors: [409],
    idempotency: { scope: 'series', bodyKey: true },
  }),
  GetSeries: route({
    id: 'GetSeries',
    method: 'GET',
    path: ONE,
    handler: 'series/get-series',
    status: 200,
    summary: 'Get a series',
    description: `A series of this merchant in any status, with \`occurrences\` (each occurrence whose turn has come: its group, or skipped), \`nextOccurrences\` and a page of its payments. An unknown SeriesID or a series of another merchant: 404.

${PAYMENTS}`,
    query: { schema: getSeriesQuerySchema, parameters: getSeriesQueryDocs },
    response: { schema: seriesSchema, description: 'The series, with a page of its payments.' },
  }),
  UpdateSeries: route({
    id: 'UpdateSeries',
    method: 'PUT',
    path: ONE,
    handler: 'series/update-series',
    status: 200,
    summary: 'Change, pause or resume a series',
    description: `Changes the fields present, for the occurrences whose group does not exist yet (a created group is changed on its own, with PUT on the group): timeZone, localHour, count or endDate (not both; the series may not end before an occurrence whose turn has come), locationId, transactionInitiator, surchargeCompliance, allowPartial, retryPolicy, noticeDays, and \`status\`: \`paused\` stops creating groups, \`active\` resumes (occurrences whose slot passed meanwhile are skipped; those now due are created at once). startDate, frequency, interval and the payments' number, order and amounts never change (create another series). \`payments\` gives payments of the series, by index, a new saved method (of any payor of this merchant): a payment suspended because its method was revoked is active again on it; a DELETE of a saved method with \`replaceWith\` moves every payment on it. The answer shows the first page of the payments (${SERIES_PAYMENTS_PAGE.defaultSize}). seriesId may be sent and must then match the path.

- A canceled or completed series: 400.
- Announced by \`series.updated\` (nothing is announced when nothing changed).`,
    body: { schema: updateSeriesSchema },
    response: { schema: seriesSchema, description: 'The series after the change.' },
  }),
  DeleteSeries: route({
    id: 'DeleteSeries',
    method: 'DELETE',
    path: ONE,
    handler: 'series/delete-series',
    status: 204,
    summary: 'Cancel a series',
    description:
      'Cancels the series: its status becomes `canceled`, no more groups are created, and its pending groups are deleted (each announced by `group.deleted`); groups already processing or processed stay. Announced by `series.canceled`. Deleting a canceled series again is a no-op 204. The series stays readable.',
  }),
};
