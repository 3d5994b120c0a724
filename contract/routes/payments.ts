/** Scheduled payments of a group, under `/payments` and the identical `/transactions` alias. */
import { addPaymentSchema, paymentSchema, updatePaymentSchema } from '../schemas/payments';
import { G, PROFILE_RULE } from './groups';
import { route, type Route } from './types';

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
    description:
      'Every payment of the group as a JSON array, in the order they were added, soft-deleted ones included (`deleted: true`). `authResponse` is null until the group is processed; `voidOrRefundResponses` appear after a void-or-refund.',
    response: { schema: { type: 'array', items: paymentSchema }, description: 'The payments.' },
  }),
  AddPayment: route({
    id: 'AddPayment',
    method: 'POST',
    path: P,
    handler: 'payments/add-payment',
    status: 201,
    summary: 'Add a payment to a pending group',
    description: `Adds one payment. paymentGroupId must match the path. ${PROFILE_RULE} ${PAYMENTS_EDITABLE}

Defaults: recurring, sendEmailReceipt and sendPaymentScheduledNotification false. With sendPaymentScheduledNotification the payor is e-mailed a notice now; the flag cannot change later. There is no idempotency key: after a timeout or a 5xx, list the group's payments before sending again.`,
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
    description: `Soft delete: the payment stays listed with \`deleted: true\`, is never processed, and no longer counts in the group's paymentCount and totalAmount. Deleting it again is a no-op 204. ${PAYMENTS_EDITABLE}`,
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
