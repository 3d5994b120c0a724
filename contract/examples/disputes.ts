/** Examples of the disputes list and read (contract/examples/types.ts). */
import { refused, unknownQuery } from './refusals';
import { PLACEHOLDERS as P, success, type OperationExamples } from './types';

/** A card sale disputed as not received, waiting for the merchant's evidence. */
const disputeView = {
  disputeId: P.DisputeID,
  transactionId: P.TransactionID,
  status: 'needs_response',
  reason: 'product_not_received',
  amount: 30,
  evidenceDueBy: '2030-06-05T15:00:00.000Z',
  openedAt: '2030-05-22T15:00:00.000Z',
};

export const disputeExamples: Record<string, OperationExamples> = {
  ListDisputes: {
    response: success('A page of disputes, newest first', { meta: { pageSize: 25 }, items: [disputeView] }),
    invalid: {
      summary: 'A status that does not exist',
      query: { status: 'open' },
      response: refused(['status', 'status must be one of inquiry, needs_response, under_review, won, lost']),
    },
  },
  GetDispute: {
    response: success('A dispute waiting for evidence', disputeView),
    otherResponses: {
      lost: success('A fraud dispute, lost', {
        disputeId: P.DisputeID,
        transactionId: P.TransactionID,
        status: 'lost',
        reason: 'fraudulent',
        amount: 30,
        openedAt: '2030-05-22T15:00:00.000Z',
        closedAt: '2030-05-24T15:00:00.000Z',
      }),
    },
    invalid: unknownQuery('expand', 'transaction'),
  },
};
