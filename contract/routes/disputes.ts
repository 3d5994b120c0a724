/** Card disputes (docs/product.md#disputes): the merchant's disputes, newest first, and one of them. */
import {
  disputePageSchema,
  disputeSchema,
  listDisputesQueryDocs,
  listDisputesQuerySchema,
} from '../schemas/disputes';
import { V1 } from './payors';
import { route } from './types';

const DISPUTES = `${V1}/disputes` as const;

export const disputeRoutes = {
  ListDisputes: route({
    id: 'ListDisputes',
    method: 'GET',
    path: DISPUTES,
    handler: 'transactions/list-disputes',
    status: 200,
    summary: "List the merchant's card disputes",
    description: `Every dispute of the merchant's card charges (a sale of the transactions API, or a scheduled payment's), newest first by \`openedAt\`, each as it is now. \`status\` keeps only the disputes with that status now (one of ${'`inquiry`, `needs_response`, `under_review`, `won`, `lost`'}; another value: 400). A dispute is listed from the moment the processor's notice of it is applied, announced by \`dispute.created\`; its changes by \`dispute.updated\` and \`dispute.closed\`. Pages: \`pageSize\` (default 25) and \`pageToken\` (the previous page's \`meta.nextPageToken\`, absent on the last page); with \`status\`, a page may hold fewer than \`pageSize\` and still have a next one.`,
    query: { schema: listDisputesQuerySchema, parameters: listDisputesQueryDocs },
    response: { schema: disputePageSchema, description: 'A page of disputes, newest first.' },
  }),
  GetDispute: route({
    id: 'GetDispute',
    method: 'GET',
    path: `${DISPUTES}/{DisputeID}`,
    handler: 'transactions/get-dispute',
    status: 200,
    summary: 'Get a card dispute',
    description:
      "A dispute as it is now: its status, the processor's reason, the amount disputed, when the evidence is due, when it was opened and closed. The disputed sale shows its latest dispute as `dispute` (and so does the scheduled payment it charged). Unknown, or another merchant's: 404.",
    response: { schema: disputeSchema, description: 'The dispute.' },
  }),
};
