/** Nacha return rates of a merchant's bank debits: the response of GET .../return-rates. */
import { count } from './common';

const status = {
  type: 'string',
  enum: ['ok', 'warning', 'alert', 'over'],
  description:
    '`ok` below half the limit, `warning` at half of it or more, `alert` at 80% of it or more, `over` above it (the counts compared exactly, not the rounded rate).',
} as const;

const kindRate = <D extends string, L extends number>(description: D, limit: L) =>
  ({
    type: 'object',
    additionalProperties: false,
    description,
    required: ['count', 'rate', 'limit', 'status'],
    properties: {
      count: count('Returns of this kind of the debits in the window.'),
      rate: {
        type: 'number',
        minimum: 0,
        description: 'count / debitCount, rounded to 4 decimals; 0 when there are no debits.',
      },
      limit: { type: 'number', enum: [limit], description: "Nacha's threshold for this rate." },
      status,
    },
  }) as const;

export const returnRatesSchema = {
  type: 'object',
  additionalProperties: false,
  description:
    "The merchant's Nacha return rates: the returns of its bank debits of the last `windowDays` UTC days (today included), counted by each debit's date.",
  required: ['windowDays', 'debitCount', 'unauthorized', 'administrative', 'overall', 'status'],
  properties: {
    windowDays: { type: 'integer', enum: [60], description: 'The window, in UTC days up to today.' },
    debitCount: count(
      'Bank debits (CHECKING and SAVINGS) approved in the window; voided ones are not counted.',
    ),
    unauthorized: kindRate('Unauthorized returns (R05, R07, R10, R11, R29, R51): limit 0.5%.', 0.005),
    administrative: kindRate('Administrative returns (R02, R03, R04): limit 3%.', 0.03),
    overall: kindRate('Every return, whatever its code: limit 15%.', 0.15),
    status: { ...status, description: 'The worst of the three statuses.' },
  },
} as const;
