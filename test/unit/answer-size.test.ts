/**
 * Answers Lambda can return (core/answer-size.ts) and the unpaged lists' bound (core/lists.ts
 * `unpaged`): the group and series lists without paging parameters, an events page and a bulk
 * payor search are refused with a 400 that says how to ask for less, never sent past the limit.
 */
import { MAX_RESPONSE_BYTES, MAX_UNPAGED_GROUPS } from '#contract/limits';
import { fitting } from '#core/answer-size';
import { unpaged } from '#core/lists';
import { BadRequestError } from '#shared/errors';

/** An item whose JSON is about `bytes` long. */
const sized = (bytes: number) => ({ orderId: 'x'.repeat(bytes) });

test('defect: the unpaged group and series lists read and answered every group, past 5,000 and past the response limit: a 400 that says to page', () => {
  const many = Array.from({ length: MAX_UNPAGED_GROUPS + 1 }, () => ({ id: 'g' }));
  expect(() => unpaged(many, 'groups')).toThrow(
    new BadRequestError(`more than ${MAX_UNPAGED_GROUPS} groups match: page with pageNumber and pageSize`),
  );
  const large = Array.from({ length: 10 }, () => sized(700_000));
  expect(() => unpaged(large, 'series')).toThrow(/response limit: page with pageNumber and pageSize/);
  const fits = Array.from({ length: MAX_UNPAGED_GROUPS }, () => ({ id: 'g' }));
  expect(unpaged(fits, 'groups')).toBe(fits);
});

test('an answer is measured as the proxy result carries it: its JSON escaped once more', () => {
  // Quotes double when the body is escaped into the proxy result: half the limit of them passes it.
  const quotes = { text: '"'.repeat(Math.ceil(MAX_RESPONSE_BYTES / 2) + 10) };
  expect(() => fitting(quotes, 'ask for less')).toThrow(/above the \d+-byte response limit: ask for less/);
  const plain = { text: 'a'.repeat(Math.ceil(MAX_RESPONSE_BYTES / 2) + 10) };
  expect(fitting(plain, 'ask for less')).toBe(plain);
});
