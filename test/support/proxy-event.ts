/**
 * An API Gateway proxy event as the stage's gateway hands a route's function one, for the
 * integration tier's tests that call a handler directly against DynamoDB Local: the route's
 * resource and path parameters, a JSON body (or the raw text given), the authorizer's claims of a
 * client granted the stage's scope; and a Lambda context with the API's time left.
 */
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { apiScope } from '#contract/stage';
import { newId } from '#shared/ids';

interface ProxyEventInput {
  method: string;
  /** The route's resource, `/v1/rest/merchants/{MID}/...`. */
  resource: string;
  pathParameters: Record<string, string>;
  /** Sent as JSON; a string is sent as it is (a body no JSON value makes). */
  body?: unknown;
  headers?: Record<string, string>;
  clientId: string;
}

export function proxyEvent(input: ProxyEventInput): APIGatewayProxyEvent {
  const { method, resource, pathParameters, body } = input;
  const path = resource.replace(/\{(\w+)\}/g, (_m, name: string) => pathParameters[name] ?? '');
  return {
    resource,
    path,
    httpMethod: method,
    headers: { 'content-type': 'application/json', ...input.headers },
    multiValueHeaders: {},
    pathParameters,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    body: body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: {
      path,
      httpMethod: method,
      stage: 'dev',
      requestId: newId(),
      authorizer: { claims: { client_id: input.clientId, scope: apiScope('dev') } },
    } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

/** A Lambda context with the time an API function has left at its start. */
export const apiContext = {
  functionName: 'f',
  awsRequestId: 'r',
  getRemainingTimeInMillis: () => 27_000,
} as unknown as Context;
