/** Examples of the series operations (contract/examples/types.ts). */
import { refused, unknownQuery } from './refusals';
import { PLACEHOLDERS as P, success, type OperationExamples } from './types';
import { profileId } from './views';

const CREATED = '2030-05-20T15:04:05.000Z';
const UPDATED = '2030-05-21T09:30:00.000Z';

/** Tuition on the 15th of each month at 5 PM New York time, September to June. */
const newSeries = {
  timeZone: 'America/New_York',
  localHour: 17,
  startDate: '2030-09-15',
  frequency: 'monthly',
  interval: 1,
  count: 10,
  locationId: 42,
  noticeDays: 3,
  payments: [
    {
      profileId,
      amount: 450,
      orderId: 'TUITION-S-1001',
      sendPaymentScheduledNotification: true,
      sendEmailReceipt: true,
      sendDeclineNotification: true,
      customAttributes: { studentId: 'S-1001' },
    },
  ],
  idempotencyKey: 'tuition-2030-s-1001',
};

/** The next three: the UTC hour moves when New York leaves daylight saving time (3 November 2030). */
const nextOccurrences = [
  {
    occurrence: 1,
    localDate: '2030-09-15',
    localTime: '2030-09-15T17:00-04:00',
    scheduleDate: '2030-09-15',
    scheduleHour: 21,
    createAt: '2030-09-12T21:00:00.000Z',
  },
  {
    occurrence: 2,
    localDate: '2030-10-15',
    localTime: '2030-10-15T17:00-04:00',
    scheduleDate: '2030-10-15',
    scheduleHour: 21,
    createAt: '2030-10-12T21:00:00.000Z',
  },
  {
    occurrence: 3,
    localDate: '2030-11-15',
    localTime: '2030-11-15T17:00-05:00',
    scheduleDate: '2030-11-15',
    scheduleHour: 22,
    createAt: '2030-11-12T22:00:00.000Z',
  },
];

const seriesView = {
  seriesId: P.SeriesID,
  servicePayId: P.MID,
  status: 'active',
  timeZone: 'America/New_York',
  localHour: 17,
  startDate: '2030-09-15',
  frequency: 'monthly',
  interval: 1,
  count: 10,
  occurrenceCount: 10,
  locationId: 42,
  transactionInitiator: 'Merchant',
  surchargeCompliance: false,
  allowPartial: false,
  noticeDays: 3,
  paymentCount: 1,
  totalAmount: 450,
  createdCount: 0,
  nextOccurrences,
  occurrences: [],
  payments: [
    {
      index: 0,
      profileId,
      amount: 450,
      status: 'active',
      orderId: 'TUITION-S-1001',
      sendEmailReceipt: true,
      sendPaymentScheduledNotification: true,
      sendDeclineNotification: true,
      customAttributes: { studentId: 'S-1001' },
    },
  ],
  dateCreated: CREATED,
  lastUpdated: CREATED,
};

const { occurrences: _, payments: __, ...listedSeries } = seriesView;

export const seriesExamples: Record<string, OperationExamples> = {
  ListSeries: {
    query: { status: 'active' },
    response: success('The active series (no paging parameters: an array)', [listedSeries]),
    invalid: {
      summary: 'A status that does not exist',
      query: { status: 'stopped' },
      response: refused(['status', 'status must be one of active, paused, canceled, completed']),
    },
  },
  CreateSeries: {
    requests: {
      monthly: { summary: 'Tuition on the 15th of each month at 5 PM New York time', value: newSeries },
      weekly: {
        summary: 'Lunch money every other Monday at 7 AM in Sydney, until the end of the year',
        value: {
          timeZone: 'Australia/Sydney',
          localHour: 7,
          startDate: '2030-07-01',
          frequency: 'weekly',
          interval: 2,
          endDate: '2030-12-31',
          locationId: 7,
          noticeDays: 2,
          payments: [{ profileId, amount: 25, orderId: 'LUNCH-S-1001' }],
        },
      },
    },
    response: success('The series, its next three occurrences and its payments', seriesView),
    invalid: {
      summary: 'An unknown time zone and an hour out of range',
      body: { ...newSeries, timeZone: 'America/Springfield', localHour: 24 },
      response: refused(
        ['timeZone', 'timeZone must be an IANA time zone name, e.g. America/New_York'],
        ['localHour', 'localHour must be <= 23'],
      ),
    },
  },
  GetSeries: {
    response: success(
      'A series with the occurrences whose turn has come and the first page of its payments (the only one: no paymentsNext)',
      seriesView,
    ),
    invalid: unknownQuery('expand', 'groups'),
  },
  UpdateSeries: {
    requests: {
      pause: { summary: 'Pause: no groups are created until it is resumed', value: { status: 'paused' } },
    },
    response: success('The series, paused', { ...seriesView, status: 'paused', lastUpdated: UPDATED }),
    invalid: {
      summary: 'A status a PUT cannot set',
      body: { status: 'canceled' },
      response: refused(['status', 'status must be one of active, paused']),
    },
  },
  DeleteSeries: { invalid: unknownQuery('force', 'true') },
};
