/**
 * The processors' inbound webhook routes in the local runtime (contract/notices.ts
 * PROCESSOR_EVENTS): served beside the API on its address when the runtime runs on the Stripe
 * stand-in, which sends its signed events there.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { PROCESSOR_EVENTS } from '../../contract/notices';
import { invokeAs, type LocalRoute } from './http-server';

/**
 * `POST /processor-events/stripe` as API Gateway's proxy integration hands it to its function:
 * the raw body and the headers, no token (the route has no authorizer).
 */
export async function localProcessorEventsRoute(stage: string): Promise<[string, LocalRoute]> {
  const entry = PROCESSOR_EVENTS.stripe;
  const { handler } = (await import('../../lambdas/processor-events/stripe')) as {
    handler: (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;
  };
  const route: LocalRoute = async (req, body) => {
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
    const event = {
      resource: entry.path,
      path: entry.path,
      httpMethod: entry.method,
      headers,
      multiValueHeaders: {},
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: null,
      stageVariables: null,
      requestContext: { requestId: randomUUID(), stage, httpMethod: entry.method, path: entry.path },
      body,
      isBase64Encoded: false,
    } as unknown as APIGatewayProxyEvent;
    const result = await invokeAs('ProcessorEventsStripe', entry.timeoutSeconds * 1000, (context) =>
      handler(event, context),
    );
    return {
      status: result.statusCode,
      body: result.body === '' ? undefined : (JSON.parse(result.body) as unknown),
      headers: (result.headers ?? {}) as Record<string, string>,
    };
  };
  return [`${entry.method} ${entry.path}`, route];
}
