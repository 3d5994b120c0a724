/** Scheduled payments of a group, under `/payments` and the identical `/transactions` alias. */
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, MAX_UNPAGED_PAYMENTS } from '../limits';
import {
  addPaymentSchema,
  listPaymentsQueryDocs,
  listPaymentsQuerySchema,
  paymentListingSchema,
  paymentSchema,
  updatePaymentSchema,
} from '../schemas/payments';
import { G, PROFILE_RULE } from './groups';
import { IDEMPOTENT, route, type Route } from './types';

const PAYMENTS_EDITABLE =
  'The group must be pending: on a processing, processed or deleted group the request is refused with 400 and a message saying why, and nothing changes.';

const P = `${G}/payments` as const;

export const paymentRoutes = {
  ListPayments: route({
    id: 'ListPayments',
    method: 'GET',
    path: P,
    handler: 'payments/list-payments',
    status: 200,
    summary: "List a group's payments, deleted ones included",
    description: `The group's payments in the order they were added, soft-deleted ones included (\`deleted: true\`). \`authResponse\` is null until the group is processed; \`voidOrRefundResponses\` appear after a void-or-refund.

Response shape: without paging parameters, a JSON **array** of every payment when the group holds at most ${MAX_UNPAGED_PAYMENTS.toLocaleString('en-US')} (more: 400, page instead). With pageNumber, pageSize or pageToken, the **paged envelope** \`{meta, items}\`, as the group lists answer it: a missing pageNumber is 1, a missing pageSize ${DEFAULT_PAGE_SIZE}; pageSize is at most ${MAX_PAGE_SIZE}; a page past the end is \`items: []\` with the true totals.

\`meta.nextPageToken\` (absent on the last page) continues with \`pageToken\` right after the page, at the same cost for every page, however deep (pageNumber costs more the further it goes). pageToken takes pageSize but not pageNumber (400). A token is opaque, checked and bound to this group: an altered or foreign token is 400.

Every answer stays under Lambda's 6 MB response limit: a page (or the array) that would not fit is 400 asking for a smaller pageSize. With the largest customAttributes, fees and orderId the contract allows, a payment takes up to about 240 KB of the response, so the default pageSize ${DEFAULT_PAGE_SIZE} always fits; typical payments (under 2 KB) fit at pageSize ${MAX_PAGE_SIZE}.`,
    query: { schema: listPaymentsQuerySchema, parameters: listPaymentsQueryDocs },
    response: {
      schema: paymentListingSchema,
      description: 'The payments: an array, or the paged envelope when paging parameters are given.',
    },
  }),
  AddPayment: route({
    id: 'AddPayment',
    method: 'POST',
    idempotency: IDEMPOTENT,
    path: P,
    handler: 'payments/add-payment',
    status: 201,
    summary: 'Add a payment to a pending group',
    description: `Adds one payment. paymentGroupId must match the path. ${PROFILE_RULE} ${PAYMENTS_EDITABLE}

Defaults: recurring, sendEmailReceipt and sendPaymentScheduledNotification false. With sendPaymentScheduledNotification the payor is e-mailed a notice now; the flag cannot change later. Send an Idempotency-Key header: after a timeout or a 5xx, send the request again with the same key, which answers the payment added first (never a second one).`,
    body: { schema: addPaymentSchema },
    response: {
      schema: paymentSchema,
      description: 'The payment, with paymentId assigned, deleted false and authResponse null.',
    },
  }),
  GetPayment: route({
    id: 'GetPayment',
    method: 'GET',
    path: `${P}/{PaymentID}`,
    handler: 'payments/get-payment',
    status: 200,
    summary: 'Get a payment',
    description:
      'A payment of this group and merchant, deleted or not. Not found in this group of this merchant: 404.',
    response: { schema: paymentSchema, description: 'The payment.' },
  }),
  UpdatePayment: route({
    id: 'UpdatePayment',
    method: 'PUT',
    path: `${P}/{PaymentID}`,
    handler: 'payments/update-payment',
    status: 200,
    summary: 'Replace a payment of a pending group',
    description: `Full replacement: optional fields left out take their defaults or are removed (orderId, customAttributes, fees, allowPartial removed; recurring and sendEmailReceipt false). paymentId and paymentGroupId must match the path. ${PROFILE_RULE}

- sendPaymentScheduledNotification may be left out; when sent with a value other than the stored one: 400 \`ImmutableFieldViolation: sendPaymentScheduledNotification cannot be changed after creation\`.
- sendEmailReceipt can be changed until the group is processed.
- A body with \`deleted\` is 400 (use DELETE). A deleted payment cannot be updated: 400.
- ${PAYMENTS_EDITABLE}`,
    body: { schema: updatePaymentSchema },
    response: { schema: paymentSchema, description: 'The payment after the replacement.' },
  }),
  DeletePayment: route({
    id: 'DeletePayment',
    method: 'DELETE',
    path: `${P}/{PaymentID}`,
    handler: 'payments/delete-payment',
    status: 204,
    summary: 'Soft-delete a payment',
    description: `Soft delete: the payment stays listed with \`deleted: true\`, is never processed, and no longer counts in the group's paymentCount and totalAmount. Deleting a deleted payment again is a no-op 204, whatever its group's status now. ${PAYMENTS_EDITABLE}`,
  }),
};

/** The same operation under `.../transactions` (an older name of the same paths): one handler, one function. */
const alias = (target: Route): Route => ({
  ...target,
  id: `${target.id}Alias`,
  path: target.path.replace(`${G}/payments`, `${G}/transactions`),
  aliasOf: target.id,
});

type AliasRoutes = { readonly [Id in keyof typeof paymentRoutes as `${Id}Alias`]: Route };

export const paymentAliasRoutes = Object.fromEntries(
  Object.values(paymentRoutes).map((target) => [`${target.id}Alias`, alias(target)]),
) as AliasRoutes;
