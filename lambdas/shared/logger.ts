/**
 * The one structured logger of the service (Powertools); handlers add keys, never concatenate.
 * Every record passes through `withoutCardNumbers` as it is written: a card number in a message,
 * a key's value, an object's key or an error (its message, stack and cause) is written as
 * `[card number]`, whatever put it there (a refusal naming what a request sent, an error of a
 * library). No card number is ever logged (PCI DSS 3.3, 10).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { containsCardNumber, redactCardNumbers } from './card-number';
import { SERVICE_NAME } from './config';

/** Integers shorter than 13 digits cannot be one; others are read as their decimal text. */
const SHORTEST_CARD_NUMBER = 1e12;

/**
 * The JSON replacer of every record (Powertools calls it for every value before its own rules,
 * and again on what it makes of an Error): strings and long integers redacted, an object with a
 * key holding a card number copied with that key redacted.
 */
function withoutCardNumbers(_key: string, value: unknown): unknown {
  if (typeof value === 'string') return redactCardNumbers(value);
  if (typeof value === 'number' && Math.abs(value) >= SHORTEST_CARD_NUMBER && containsCardNumber(value))
    return redactCardNumbers(String(value));
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Error)) {
    const names = Object.keys(value);
    if (names.some((name) => containsCardNumber(name)))
      return Object.fromEntries(
        names.map((name) => [redactCardNumbers(name), (value as Record<string, unknown>)[name]]),
      );
  }
  return value;
}

export const logger = new Logger({ serviceName: SERVICE_NAME, jsonReplacerFn: withoutCardNumbers });
