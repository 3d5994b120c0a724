/**
 * Answers that Lambda can return: a list whose answer would pass MAX_RESPONSE_BYTES (its size as
 * the proxy result carries it, the JSON text escaped once more as the `body` string, so the check
 * holds for any content) is refused with a 400 that says how to ask for less, before anything is
 * sent. Every list that a request can make large by its items' own size (custom attributes,
 * customer data, events' objects) goes through here.
 */
import { MAX_RESPONSE_BYTES } from '#contract/limits';
import { BadRequestError } from '#shared/errors';

/** An answer's size as the proxy result carries it. */
export const answerBytes = (body: unknown): number => Buffer.byteLength(JSON.stringify(JSON.stringify(body)));

/** The 400 of an answer whose items, read so far, already pass MAX_RESPONSE_BYTES. */
export const tooLarge = (advice: string): BadRequestError =>
  new BadRequestError(`the answer would be above the ${MAX_RESPONSE_BYTES}-byte response limit: ${advice}`);

export function fitting<T>(body: T, advice: string): T {
  const bytes = answerBytes(body);
  if (bytes > MAX_RESPONSE_BYTES) {
    throw new BadRequestError(
      `the answer would be ${bytes} bytes, above the ${MAX_RESPONSE_BYTES}-byte response limit: ${advice}`,
    );
  }
  return body;
}
