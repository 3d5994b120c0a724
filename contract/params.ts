/**
 * Every path parameter, declared once: how the handlers check it (pattern, the words of the 400,
 * normalization) and how the OpenAPI document describes it. A route's path template names the
 * parameters it takes; `PathParams<'/a/{X}/b/{Y}'>` is `{ X: string; Y: string }`.
 */
import { midPattern } from './schemas/common';

const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

export interface PathParam {
  /** The value (after percent-decoding) must match. */
  readonly pattern: string;
  /** Ends the 400's message: `{Name} must be <what> (got "...")`. */
  readonly what: string;
  /** Applied after the check, e.g. lower-casing UUIDs. */
  readonly normalize?: (value: string) => string;
  /** The OpenAPI document's words, schema and example. */
  readonly description: string;
  readonly format?: string;
  readonly example: string;
}

const lowerCase = (value: string): string => value.toLowerCase();

const uuidParam = (what: string): PathParam => ({
  pattern: UUID_PATTERN,
  what: 'a UUID',
  normalize: lowerCase,
  description: `${what} (a UUID; any letter case). Malformed: 400.`,
  format: 'uuid',
  example: '01890a5d-ac96-774b-bcce-b302099a8057',
});

export const pathParams = {
  MID: {
    pattern: midPattern,
    what: 'an 8 or 11 digit merchant ID',
    description:
      'Merchant ID: 11 digits, or the 8-digit short form of an 11-digit MID. Malformed: 400; unknown, or not a merchant this client is authorized for: 403.',
    example: '32350000001',
  },
  GroupID: uuidParam('Payment group ID (`paymentGroupId`)'),
  PaymentID: uuidParam('Payment ID (`paymentId`); on the `/transactions` alias paths the same ID'),
  PayorID: uuidParam('Payor ID (`payorId`)'),
  PaymentMethodID: uuidParam('Saved payment method ID (`savedPaymentMethodId`)'),
  TransactionID: uuidParam('Transaction ID (`transactionId`)'),
  WebhookEndpointID: uuidParam('Webhook endpoint ID (`webhookEndpointId`)'),
  SeriesID: uuidParam('Series ID (`seriesId`)'),
  DisputeID: uuidParam('Dispute ID (`disputeId`)'),
  EventID: {
    pattern: '^evt_[0-9a-f]{32}$',
    what: 'an event ID (evt_ and 32 hexadecimal digits)',
    description: 'Event ID (`id`: `evt_` and 32 lower-case hexadecimal digits). Malformed: 400.',
    example: 'evt_01890a5dac96774bbccebb302099a805',
  },
} as const satisfies Record<string, PathParam>;

/** The `{Name}` placeholders of a path template, as a union of names. */
export type PathParamNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? Name | PathParamNames<Rest>
  : never;

/** The validated, normalized path parameters of a route with path template `P`. */
export type PathParams<P extends string> = { readonly [K in PathParamNames<P>]: string };

/** `{Name}` placeholders of a path, in order. */
export const pathParamNames = (path: string): string[] =>
  [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
