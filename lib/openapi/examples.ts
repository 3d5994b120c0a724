/**
 * The examples of an operation (contract/examples) as the document shows them: request bodies,
 * query and path parameter examples, the success body and the 400 with `errors[]`.
 */
import { operationExamples, PLACEHOLDERS, type OperationExamples } from '#contract/examples/index';
import type { Route } from '#contract/routes/index';
import { ERROR_RESPONSES } from './errors';
import { json, ref, type ResponseObject } from './types';

/** The examples of `route` (of its alias target, for an alias); a route without any is an error. */
export function examplesOf(route: Route): OperationExamples {
  const examples = operationExamples[route.aliasOf ?? route.id];
  if (!examples) throw new Error(`route ${route.id} has no examples in contract/examples`);
  return examples;
}

/** The example of a path parameter: the placeholder every example uses for that resource. */
export const pathExample = (name: string): string | undefined =>
  (PLACEHOLDERS as Record<string, string>)[name];

/** The 400 of an operation: the shared words, and the answer to its invalid example request. */
export function badRequest(route: Route): ResponseObject {
  const { invalid } = examplesOf(route);
  if (!invalid) throw new Error(`route ${route.id} has no invalid example in contract/examples`);
  const query = invalid.query && new URLSearchParams(invalid.query).toString();
  const sent = [
    query === '' ? 'no query parameters' : query && `the query \`${query}\``,
    invalid.body !== undefined && `the body \`${JSON.stringify(invalid.body)}\``,
  ].filter((s): s is string => typeof s === 'string');
  return {
    description: ERROR_RESPONSES[400].description,
    content: {
      'application/json': {
        ...json(ref('Error'))['application/json'],
        examples: {
          invalid: {
            summary: invalid.summary,
            description: `The answer to a request with ${sent.join(' and ')}.`,
            value: invalid.response,
          },
        },
      },
    },
  };
}
