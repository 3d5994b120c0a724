/**
 * The health route's operation (contract/health.ts): no security (`security: []`), no parameters,
 * the fixed body, and the answers of the gateway in front of it (405 for another method, 403 when
 * the WAF blocks, 429 when throttled). Its samples call it without a token.
 */
import { operationExamples } from '#contract/examples/index';
import { HEALTH } from '#contract/health';
import { ERROR_RESPONSES } from './errors';
import { json, ref, type OperationObject } from './types';

/** The TypeScript client's method of the health route. */
const HEALTH_CLIENT_METHOD = 'getHealth';

export function healthOperation(baseUrl: string, tokenUrl: string, clientPackage: string): OperationObject {
  return {
    operationId: HEALTH.id,
    summary: HEALTH.summary,
    description: HEALTH.description,
    tags: ['Health'],
    parameters: [],
    responses: {
      '200': {
        description: 'The API takes requests.',
        headers: {
          'Cache-Control': {
            description: '`no-store`: each check asks the API.',
            schema: { type: 'string' },
          },
        },
        content: {
          'application/json': {
            schema: ref('Health'),
            examples: { success: operationExamples[HEALTH.id]!.response! },
          },
        },
      },
      '403': {
        description: 'The firewall blocked the request (e.g. too many requests from one address).',
        content: json(ref('Error')),
      },
      '405': {
        description: `Another method than GET: \`Allow: ${HEALTH.notAllowed.allow}\`.`,
        headers: { Allow: { description: HEALTH.notAllowed.allow, schema: { type: 'string' } } },
        content: json(ref('Error')),
      },
      '429': { $ref: `#/components/responses/${ERROR_RESPONSES[429].name}` },
    },
    security: [],
    'x-codeSamples': [
      { lang: 'Shell', label: 'curl', source: `curl '${baseUrl}${HEALTH.path}'` },
      {
        lang: 'TypeScript',
        label: 'TypeScript',
        source: [
          `import { ScheduledPaymentsClient } from '${clientPackage}';`,
          '',
          'const client = new ScheduledPaymentsClient({',
          `  baseUrl: '${baseUrl}',`,
          `  tokenUrl: '${tokenUrl}',`,
          '  clientId: process.env.CLIENT_ID!,',
          '  clientSecret: process.env.CLIENT_SECRET!,',
          '});',
          '',
          '// No token is fetched or sent for it.',
          `const answer = await client.${HEALTH_CLIENT_METHOD}();`,
        ].join('\n'),
      },
    ],
  };
}
