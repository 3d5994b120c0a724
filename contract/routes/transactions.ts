/** Sales with saved methods, voids and refunds. */
import { refundResponseSchema, refundSchema, saleSchema, transactionSchema } from '../schemas/transactions';
import { PROFILE_RULE } from './groups';
import { V1 } from './payors';
import { IDEMPOTENT, route } from './types';

const T = `${V1}/transactions` as const;

export const transactionRoutes = {
  CreateSale: route({
    id: 'CreateSale',
    method: 'POST',
    idempotency: { scope: 'sale', bodyKey: true },
    path: T,
    handler: 'transactions/create-sale',
    callsProcessor: true,
    status: 201,
    summary: 'Charge a saved payment method (sale)',
    description: `Charges a saved method now. ${PROFILE_RULE}

201 with the transaction whether Approved or Declined: a decline is not an error (4xx is only for requests that are themselves invalid). Check \`status\`, and on a decline \`declineCategory\` (1: do not retry; 2: may retry later). With allowPartial an approval may be for less than amount (responseCode 10, approvedAmount < amount).

Duplicate check: a sale with the same merchant, exact amount and saved method as an earlier sale within 5 minutes is not sent to the processor: 201 with status Declined, responseCode 19, isDuplicate true and originalTransactionId. A declined sale does not block a retry.

idempotencyKey: sending the same key with the same body again returns the first response (same transactionId; nothing is charged again), which makes a retry after a timeout or a 5xx safe. The same key with a different body: 409. While the first request with the key is still running: 409, retry shortly.`,
    body: { schema: saleSchema },
    response: { schema: transactionSchema, description: 'The transaction, Approved or Declined.' },
    errors: [409],
  }),
  GetTransaction: route({
    id: 'GetTransaction',
    method: 'GET',
    path: `${T}/{TransactionID}`,
    handler: 'transactions/get-transaction',
    status: 200,
    summary: 'Get a transaction with refund fields',
    description:
      'A transaction with its refund fields (originalAmount, refundedAmount, availableRefundAmount, refundCount, refundHistory). A read only: a sale left Pending (responseCode PD) by a request that failed half-way stays Pending here until the sweeper settles it (within about 5 minutes) or a retry with its idempotencyKey resumes it.',
    response: { schema: transactionSchema, description: 'The transaction.' },
  }),
  VoidTransaction: route({
    id: 'VoidTransaction',
    method: 'POST',
    idempotency: IDEMPOTENT,
    path: `${T}/{TransactionID}/void`,
    handler: 'transactions/void-transaction',
    callsProcessor: true,
    status: 200,
    summary: 'Void an unsettled sale',
    description:
      'Voids an approved sale before it settles (the whole amount; no body). Voiding a voided sale returns it unchanged. A declined sale, or a settled one (refund it instead), is 400. A scheduled payment\'s sale is 400: it is reversed by its group\'s void-or-refund, which records it on the payment. A sale the bank returned is 400 saying so. A bank debit that has not cleared is voided before its cut-off where the processor can (the sandbox can); on a processor that cannot cancel a submitted debit (Stripe) its void is 400: refund it instead, the refund is held until the debit clears (docs/product.md "Reversals of bank debits").',
    response: { schema: transactionSchema, description: 'The sale, status Voided.' },
  }),
  RefundTransaction: route({
    id: 'RefundTransaction',
    method: 'POST',
    idempotency: { scope: 'refund:{TransactionID}', bodyKey: true },
    path: `${T}/{TransactionID}/refunds`,
    handler: 'transactions/refund-transaction',
    callsProcessor: true,
    status: 201,
    summary: 'Refund a settled sale, whole or in part',
    description: `Refunds a settled sale, whole or in part. An amount above availableRefundAmount is 400; an unsettled sale is 400 (void it instead). A scheduled payment's sale is 400: it is reversed by its group's void-or-refund, which records it on the payment. A refund the processor refuses ends Failed and is not counted against availableRefundAmount. A sale the bank returned is 400 saying so (availableRefundAmount 0).

A bank debit that has not cleared (cleared false): the refund is accepted and **held** (201, status Pending, heldUntilCleared true, its amount reserved) and sent by the service when the debit clears (then Completed or Failed, announced by refund.completed or refund.failed); a return that comes first makes it Failed, saying the debit was returned before it cleared. On a processor that cannot cancel a submitted debit (Stripe) such a refund is accepted before the cut-off too. A return after a completed refund is recorded with return.afterRefund true (docs/product.md "Reversals of bank debits").

idempotencyKey: the same key with the same body returns the first response without refunding again; with a different body, 409.`,
    body: { schema: refundSchema },
    response: {
      schema: refundResponseSchema,
      description: "The refund, with the sale's remaining availableRefundAmount.",
    },
    errors: [409],
  }),
};
