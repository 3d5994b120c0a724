/** Returned bank debits (docs/product.md#returns): the merchant's returns, newest first. */
import { listReturnsQueryDocs, listReturnsQuerySchema, returnPageSchema } from '../schemas/returns';
import { V1 } from './payors';
import { route } from './types';

export const returnRoutes = {
  ListReturns: route({
    id: 'ListReturns',
    method: 'GET',
    path: `${V1}/returns`,
    handler: 'transactions/list-returns',
    status: 200,
    summary: "List the merchant's returned bank debits",
    description: `Every bank debit of the merchant (a sale of the transactions API, or a scheduled payment's) that the bank returned, newest return first: its Nacha return code and category, its amount and when it came back (\`afterRefund\` when a refund of it had already completed). Each is listed once, from the moment its return is applied (the sale's \`status\` is then \`Returned\`, announced by \`transaction.returned\` or \`payment.returned\`). Pages: \`pageSize\` (default 25) and \`pageToken\` (the previous page's \`meta.nextPageToken\`, absent on the last page).`,
    query: { schema: listReturnsQuerySchema, parameters: listReturnsQueryDocs },
    response: { schema: returnPageSchema, description: 'A page of returns, newest first.' },
  }),
};
