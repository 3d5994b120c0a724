/**
 * The DynamoDB document client, one per container. Locally the SDK is pointed at DynamoDB Local
 * through the standard AWS_ENDPOINT_URL_DYNAMODB variable; there is no "if local" here.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { awsClient } from './tracer';

let client: DynamoDBDocumentClient | undefined;

/**
 * The document client the functions use on `base` (the bench's raw side uses it too, so that both
 * sides of its comparisons make their calls through the same client).
 */
export function documentClient(base: DynamoDBClient): DynamoDBDocumentClient {
  // Without the SDK's logger middleware, as every client of the service (awsClient).
  base.middlewareStack.remove('loggerMiddleware');
  return DynamoDBDocumentClient.from(base, { marshallOptions: { removeUndefinedValues: true } });
}

export function ddb(): DynamoDBDocumentClient {
  client ??= documentClient(awsClient(new DynamoDBClient({ maxAttempts: 4 })));
  return client;
}

/** Names of DynamoDB errors that mean "try again later" rather than "your request is wrong". */
const TRANSIENT = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TransactionInProgressException',
  // A single-item write that met a transaction holding the item.
  'TransactionConflictException',
]);

/** Cancellation reasons that mean contention or throttling, not a failed condition. */
const TRANSIENT_CANCELLATIONS = new Set([
  'TransactionConflict',
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
]);

export const isTransient = (error: unknown): boolean =>
  error instanceof Error &&
  (TRANSIENT.has(error.name) ||
    (cancellationCodes(error) ?? []).some((code) => TRANSIENT_CANCELLATIONS.has(code)));

/**
 * A write that met another writer: a transaction cancelled for a conflict, or a single-item write
 * that met a transaction holding the item. The loser of such a race reads again and retries.
 */
export const isConflict = (error: unknown): boolean =>
  error instanceof Error &&
  (error.name === 'TransactionConflictException' ||
    (cancellationCodes(error) ?? []).includes('TransactionConflict'));

/** Reasons of a cancelled transaction, by item index ('None' where that item was fine). */
export function cancellationCodes(error: unknown): string[] | undefined {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return undefined;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return reasons.map((r) => r.Code ?? 'None');
}

/** A single-item write (Put, Update, Delete) refused by its condition. */
export const isConditionFailure = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ConditionalCheckFailedException';

/** An item of a transaction (its index in TransactItems), or `any` of them. */
type TransactionItem = number | 'any';

/**
 * What a cancelled transaction (TransactWriteItems) means to its caller: the outcome of the first
 * of `outcomes` whose item failed its condition. Anything else is thrown again: another error, or
 * a cancellation for another reason (a conflict or a throttle, which the caller's retry handles).
 */
export function conditionOutcome<O>(
  error: unknown,
  outcomes: readonly (readonly [item: TransactionItem, outcome: O])[],
): O {
  const codes = cancellationCodes(error) ?? [];
  const failed = (item: TransactionItem) =>
    item === 'any' ? codes.includes('ConditionalCheckFailed') : codes[item] === 'ConditionalCheckFailed';
  const found = outcomes.find(([item]) => failed(item));
  if (found === undefined) throw error;
  return found[1];
}
