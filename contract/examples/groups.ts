/** Examples of the group, payment and processing operations (contract/examples/types.ts). */
import { refused, unknownQuery } from './refusals';
import { PLACEHOLDERS as P, success, type OperationExamples } from './types';
import { executionArn, groupView, paymentView, plainPaymentView, profileId, updated } from './views';

const noSuchQuery = unknownQuery('expand', 'payments');
const triggered = (groupId: string) => ({
  triggeredGroups: [{ paymentGroupId: groupId, executionArn: executionArn(groupId) }],
  totalTriggered: 1,
  totalFailed: 0,
});

const newGroup = {
  servicePayId: P.MID,
  scheduleDate: '2030-06-03',
  scheduleHour: 14,
  locationId: 42,
  transactionInitiator: 'Merchant',
  payments: [
    {
      profileId,
      amount: 125.5,
      orderId: 'INV-2030-0601',
      sendEmailReceipt: true,
      customAttributes: { studentId: 'S-1001', term: 'fall' },
      fees: [{ name: 'Service fee', amount: 2.5 }],
    },
  ],
  idempotencyKey: 'create-group-2030-06-03-42',
};

const newPayment = {
  paymentGroupId: P.GroupID,
  profileId,
  amount: 42.1,
  orderId: 'INV-2030-0602',
  sendPaymentScheduledNotification: true,
};

export const groupExamples: Record<string, OperationExamples> = {
  ListPendingGroups: {
    response: success('The pending and processing groups', [groupView]),
    invalid: noSuchQuery,
  },
  ListGroups: {
    query: { date: '2030-06-03' },
    response: success('The groups of that date (no paging parameters: an array)', [groupView]),
    invalid: {
      summary: 'An hour that is not a number',
      query: { time: 'noon' },
      response: refused(['time', 'time must be an integer hour 0-23']),
    },
  },
  CreateGroup: {
    requests: { group: { summary: 'A group with one card payment', value: newGroup } },
    response: success('The group with its payment', { ...groupView, payments: [paymentView] }),
    invalid: {
      summary: 'An hour out of range and an amount with 3 decimals',
      body: { ...newGroup, scheduleHour: 24, payments: [{ profileId, amount: 19.999 }] },
      response: refused(
        ['scheduleHour', 'scheduleHour must be <= 23'],
        ['payments[0].amount', 'payments[0].amount must have at most 2 decimal places'],
      ),
    },
  },
  GetGroup: { response: success('The group', groupView), invalid: noSuchQuery },
  UpdateGroup: {
    requests: {
      reschedule: {
        summary: 'Move the group to another hour',
        value: { scheduleDate: '2030-06-03', scheduleHour: 16 },
      },
      retries: {
        summary: 'Retry declined payments twice, two days apart',
        value: { retryPolicy: { maxRetries: 2, intervalHours: 48 } },
      },
    },
    response: success('The group, rescheduled', { ...groupView, scheduleHour: 16, ...updated }),
    invalid: {
      summary: 'A field of the wrong type',
      body: { scheduleHour: '16' },
      response: refused(['scheduleHour', 'scheduleHour must be integer']),
    },
  },
  DeleteGroup: { invalid: noSuchQuery },
  GroupReport: {
    response: success('The report of a processed group (JSON)', {
      paymentGroupId: P.GroupID,
      status: 'processed',
      executionArn: executionArn(P.GroupID),
      startedAt: '2030-06-03T14:00:02.000Z',
      completedAt: '2030-06-03T14:00:09.000Z',
      counts: {
        payments: 5,
        deleted: 1,
        approved: 3,
        partial: 1,
        declined: 2,
        declinedCategory1: 1,
        declinedCategory2: 1,
        failed: 0,
        voided: 1,
        refunded: 0,
        retryScheduled: 0,
        recovered: 0,
        returned: 0,
        disputed: 0,
      },
      amounts: {
        scheduled: 500,
        approved: 260,
        declined: 200,
        failed: 0,
        voided: 100,
        refunded: 0,
        returned: 0,
        disputed: 0,
      },
    }),
    invalid: {
      summary: 'A cursor that is not one',
      query: { cursor: 'page 2' },
      response: refused([
        'cursor',
        'cursor must be the cursor of the Link header of a CSV or spreadsheet page of this group',
      ]),
    },
  },
  ListPayments: {
    response: success("The group's payments (no paging parameters: an array)", [paymentView]),
    invalid: noSuchQuery,
  },
  AddPayment: {
    requests: { payment: { summary: 'A payment with a saved card', value: newPayment } },
    response: success('The payment added', {
      ...plainPaymentView,
      paymentId: '0193c2a4-5b1e-7c3d-8e4f-5a6b7c8d9e12',
      amount: 42.1,
      orderId: 'INV-2030-0602',
      sendEmailReceipt: false,
      sendPaymentScheduledNotification: true,
    }),
    invalid: {
      summary: 'No amount',
      body: { paymentGroupId: P.GroupID, profileId },
      response: refused(['amount', 'amount is required']),
    },
  },
  GetPayment: { response: success('The payment', paymentView), invalid: noSuchQuery },
  UpdatePayment: {
    requests: {
      payment: {
        summary: 'Change the amount (a full replacement)',
        value: {
          paymentId: P.PaymentID,
          paymentGroupId: P.GroupID,
          profileId,
          amount: 45,
          orderId: 'INV-2030-0601',
        },
      },
    },
    response: success('The payment after the update (a full replacement)', {
      ...plainPaymentView,
      amount: 45,
      sendEmailReceipt: false,
      ...updated,
    }),
    invalid: {
      summary: 'A negative amount',
      body: { paymentId: P.PaymentID, paymentGroupId: P.GroupID, profileId, amount: -5 },
      response: refused(['amount', 'amount must be >= 0.01']),
    },
  },
  DeletePayment: { invalid: noSuchQuery },
  VoidOrRefundGroup: {
    requests: {
      some: { summary: 'Reverse one payment of the group', value: { paymentIds: [P.PaymentID] } },
    },
    response: success('A pending group: nothing was charged, so the payment is skipped', {
      paymentGroupId: P.GroupID,
      voidedCount: 0,
      refundedCount: 0,
      refundScheduledCount: 0,
      skippedCount: 1,
      failedCount: 0,
      payments: [{ paymentId: P.PaymentID, outcome: 'skipped', reason: 'not processed' }],
    }),
    invalid: {
      summary: 'An empty list of payments',
      body: { paymentIds: [] },
      response: refused(['paymentIds', 'paymentIds must NOT have fewer than 1 items']),
    },
  },
  RetryMerchant: {
    response: success(
      "The merchant's one group with retries scheduled: its retry round started",
      triggered(P.GroupID),
    ),
    otherResponses: {
      awaitingSettlement: success('Nothing started: the last run waits for its settlement cut-off', {
        triggeredGroups: [],
        totalTriggered: 0,
        totalFailed: 0,
        reason: 'awaiting_settlement',
        message:
          "1 group with retries scheduled waits for the settlement cut-off of its last run (the earliest at 2030-06-03T15:00:00.000Z), which sends the receipts of the payments it approved; the retries can start within a minute after it (settle-now settles the merchant's sales now)",
        settlesAt: '2030-06-03T15:00:00.000Z',
      }),
      noRetriesScheduled: success('Nothing started: no retry is scheduled', {
        triggeredGroups: [],
        totalTriggered: 0,
        totalFailed: 0,
        reason: 'no_retries_scheduled',
        message: 'no group of the merchant has a retry scheduled',
      }),
    },
    invalid: noSuchQuery,
  },
  ProcessGroup: { response: success('The group started', triggered(P.GroupID)), invalid: noSuchQuery },
  ProcessMerchant: {
    requests: {
      slot: {
        summary: 'Process the pending groups of one UTC slot',
        value: { scheduleDate: '2030-06-03', scheduleHour: 14 },
      },
    },
    response: success('The one pending group of that slot, started', triggered(P.GroupID)),
    invalid: {
      summary: 'A date that is not yyyy-MM-dd',
      body: { scheduleDate: '06/03/2030' },
      response: refused(['scheduleDate', 'scheduleDate must be a valid date (yyyy-MM-dd)']),
    },
  },
  SettleNow: {
    response: success('Two approved sales settled, one bank debit’s return brought forward', {
      merchantId: P.MID,
      settledAt: '2030-05-20T15:10:00.000Z',
      settledCount: 2,
      noticesBroughtForward: 1,
      more: false,
    }),
    invalid: noSuchQuery,
  },
};
