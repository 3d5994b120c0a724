/** Examples of the sale, void and refund operations (contract/examples/types.ts). */
import { refused, unknownQuery } from './refusals';
import { PLACEHOLDERS as P, success, type OperationExamples } from './types';
import { profileId, transactionView } from './views';

const noSuchQuery = unknownQuery('verbose', 'true');

export const transactionExamples: Record<string, OperationExamples> = {
  CreateSale: {
    requests: {
      sale: {
        summary: 'A sale with a saved card',
        value: { profileId, amount: 25.5, orderId: 'ORD-77001', idempotencyKey: 'sale-ORD-77001' },
      },
    },
    response: success('Approved (a decline is a 201 too)', transactionView),
    invalid: {
      summary: 'A malformed profileId and an amount of 0',
      body: { profileId: P.PayorID, amount: 0 },
      response: refused(
        ['profileId', 'profileId must be of the form {payorId}/{savedPaymentMethodId}'],
        ['amount', 'amount must be >= 0.01'],
      ),
    },
  },
  GetTransaction: {
    response: success('The sale, settled, with one refund', {
      ...transactionView,
      refundedAmount: 10,
      availableRefundAmount: 15.5,
      refundCount: 1,
      refundHistory: [
        {
          refundId: '0193c2a4-5b1e-7c3d-8e4f-5a6b7c8d9e15',
          amount: 10,
          status: 'Completed',
          date: '2030-05-21T09:30:00.000Z',
        },
      ],
      settled: true,
    }),
    invalid: noSuchQuery,
  },
  VoidTransaction: {
    response: success('The sale, voided before its settlement', {
      ...transactionView,
      status: 'Voided',
      availableRefundAmount: 0,
    }),
    invalid: noSuchQuery,
  },
  RefundTransaction: {
    requests: {
      partial: {
        summary: 'A partial refund',
        value: { amount: 10, idempotencyKey: 'refund-ORD-77001-1' },
      },
    },
    response: success('The refund, completed', {
      refundId: '0193c2a4-5b1e-7c3d-8e4f-5a6b7c8d9e15',
      transactionId: P.TransactionID,
      amount: 10,
      status: 'Completed',
      date: '2030-05-21T09:30:00.000Z',
      responseCode: '00',
      responseMessage: 'Refund accepted',
      availableRefundAmount: 15.5,
    }),
    invalid: {
      summary: 'An amount with 3 decimals',
      body: { amount: 10.005 },
      response: refused(['amount', 'amount must have at most 2 decimal places']),
    },
  },
  ListReturns: {
    response: success('A page of returned debits, newest first', {
      meta: { pageSize: 25 },
      items: [
        {
          transactionId: P.TransactionID,
          code: 'R01',
          category: 'nsf',
          amount: 40,
          returnedAt: '2030-05-22T15:00:00.000Z',
        },
      ],
    }),
    invalid: unknownQuery('status', 'returned'),
  },
};
