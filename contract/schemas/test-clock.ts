/** The test clock (non-production): its result. */
import type { FromSchema } from 'json-schema-to-ts';
import { SETTLE_NOW_READ, SETTLE_NOW_SALES } from '../limits';
import { count, dateTime } from './common';

export const settleNowResultSchema = {
  type: 'object',
  description: "Result of the test clock: the merchant's approved sales settled now.",
  additionalProperties: false,
  required: ['merchantId', 'settledAt', 'settledCount', 'noticesBroughtForward', 'more'],
  properties: {
    merchantId: { type: 'string', description: 'The 11-digit MID.' },
    settledAt: dateTime(
      'The new settlement time of the sales settled, and the time the test clock settled up to.',
    ),
    settledCount: count('Approved sales whose settlement cut-off was still ahead: they are settled now.'),
    noticesBroughtForward: count(
      "The merchant's notices (a bank debit's clearing or return) due at the next cut-off still ahead, now due: each call is one banking day sooner. They are applied by the next run of the notices backstop (locally within seconds). 0 while `more`.",
    ),
    more: {
      type: 'boolean',
      description: `The call stopped before the end of the settlement period's sales: the merchant has more approved sales than one call settles (${SETTLE_NOW_SALES}), or the stage more sales of all merchants than one call reads (about ${SETTLE_NOW_READ}). Those found are settled, the rest are not yet. Call again until false: each call goes on where the last stopped; the test clock marks the merchant settled (through the time of the first call), and brings its notices forward, on the call that reads the last.`,
    },
  },
} as const;

export type SettleNowResult = FromSchema<typeof settleNowResultSchema>;
