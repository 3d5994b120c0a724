/**
 * The lists paged with tokens (events, webhook deliveries, returns): their page envelope and the
 * documentation of their `pageSize` and `pageToken` query parameters, one shape for all.
 */
import { MAX_PAGE_SIZE } from '../limits';
import { count } from './common';

/** `pageSize` and `pageToken` as the query documents them; `noun` names the items (`Events`). */
export const pageQueryDocs = (noun: string) =>
  ({
    pageSize: {
      description: `${noun} per page, 1-${MAX_PAGE_SIZE} (default 25).`,
      schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE },
    },
    pageToken: { description: "The previous page's `meta.nextPageToken`: the page after it." },
  }) as const;

/** A page of `items`, with the token of the next page while there is one. */
export const tokenPageSchema = <I>(noun: string, items: I) =>
  ({
    type: 'object',
    additionalProperties: false,
    required: ['meta', 'items'],
    properties: {
      meta: {
        type: 'object',
        additionalProperties: false,
        required: ['pageSize'],
        properties: {
          pageSize: count(`${noun} per page.`, 1),
          nextPageToken: {
            type: 'string',
            description: 'Pass as `pageToken` for the next page; absent on the last page.',
          },
        },
      },
      items: { type: 'array', items },
    },
  }) as const;
