/** A merchant's returned bank debits (docs/product.md#returns): the list's query and page. */
import type { FromSchema } from 'json-schema-to-ts';
import { MAX_PAGE_SIZE } from '../limits';
import { dateTime, money, NO_CONTROL_CHARACTERS, queryInt } from './common';
import { pageQueryDocs, tokenPageSchema } from './pages';
import { returnSchema } from './transactions';

export const returnItemSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['transactionId', 'code', 'category', 'amount', 'returnedAt'],
  properties: {
    transactionId: { type: 'string', description: 'The returned sale (`GET .../transactions/{id}`).' },
    paymentId: { type: 'string', description: 'The scheduled payment it charged, if any.' },
    paymentGroupId: { type: 'string', description: "That payment's group." },
    code: returnSchema.properties.code,
    category: returnSchema.properties.category,
    amount: money('The amount of the debit that came back.'),
    returnedAt: dateTime('When the bank returned it.'),
    afterRefund: returnSchema.properties.afterRefund,
  },
} as const;

export const listReturnsQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    pageSize: queryInt(MAX_PAGE_SIZE, `must be an integer 1-${MAX_PAGE_SIZE}`),
    pageToken: { type: 'string', minLength: 1, maxLength: 1000, pattern: NO_CONTROL_CHARACTERS },
  },
} as const;

export const listReturnsQueryDocs = pageQueryDocs('Returns');

export const returnPageSchema = tokenPageSchema('Returns', returnItemSchema);

export type ReturnItem = FromSchema<typeof returnItemSchema>;
export type ListReturnsQuery = FromSchema<typeof listReturnsQuerySchema>;
export type ReturnPage = FromSchema<typeof returnPageSchema>;
