/** The test clock (non-production): settle a test merchant's approved sales now. */
import { TEST_MID_RANGE } from '../limits';
import { settleNowResultSchema } from '../schemas/test-clock';
import { M } from './groups';
import { IDEMPOTENT, route } from './types';

export const testClockRoutes = {
  SettleNow: route({
    id: 'SettleNow',
    method: 'POST',
    idempotency: IDEMPOTENT,
    path: `${M}/settle-now`,
    handler: 'triggers/settle-now',
    callsProcessor: true,
    status: 200,
    nonProdOnly: true,
    summary: "Settle a test merchant's approved sales now (non-production test clock)",
    description: `Non-production only (403 in production). The path MID must be an 11-digit test MID within ${TEST_MID_RANGE.from}-${TEST_MID_RANGE.to} (the 8-digit form, or any other MID, is 403).

A tester need not wait for the settlement cut-off: every approved sale of the merchant whose cut-off is still ahead, processed before this call, is settled now (its \`settlementTime\` becomes \`settledAt\`, \`settled\` is true). From then on such a sale is refunded, not voided (void-or-refund refunds it), and a processed group whose sales were all settled this way goes on to its receipts within a minute. Sales processed after the call, and sales still Pending, keep their cut-off. Voided sales and sales whose void is under way are left alone. No body; safe to repeat (a repeat settles only sales approved since).`,
    response: { schema: settleNowResultSchema, description: 'How many sales were settled, and when.' },
  }),
};
