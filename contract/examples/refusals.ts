/** The 400s of the examples' invalid requests: a body or query that fails its schema. */
import type { ErrorExample, OperationExamples } from './types';

/** A 400 listing `problems` ([field, message]); the first is the message. */
export const refused = (...problems: [field: string, message: string][]): ErrorExample => ({
  message: problems[0]?.[1] ?? '',
  responseCode: 400,
  errors: problems.map(([field, message]) => ({ field, message })),
});

/** The invalid request of an operation that takes no query parameters: one it does not know. */
export const unknownQuery = (name: string, value: string): OperationExamples['invalid'] => ({
  summary: 'An unknown query parameter',
  query: { [name]: value },
  response: refused([name, `query parameter ${name} is not known`]),
});
