/**
 * API Gateway's answers for requests no route takes, matching the local runtime's
 * (contract/fallbacks.ts). Without these, API Gateway answers both a wrong method and an unknown
 * path with its MISSING_AUTHENTICATION_TOKEN response (the service's plain 404, see api.ts):
 *
 * - every route path gets an `ANY` method, which API Gateway takes only for the methods the path
 *   has no method of: a mock integration answering 405 with the path's `Allow` header;
 * - each merchant prefix gets a greedy `{proxy+}` resource below `{MID}`, which takes the paths no
 *   resource matches there (e.g. `/rest/merchants/{MID}/payors`): a mock 404 naming the other prefix.
 *
 * They carry the same Cognito authorizer and scopes as the routes: without a valid token they
 * answer 401, as the local runtime does, and cdk-nag's authorization rule holds for them too.
 */
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import { MERCHANT_PREFIXES, methodNotAllowedMessage, methodsByPath } from '#contract/fallbacks';
import type { Route } from '#contract/routes/index';

/** A mock answer: this status, `{message, responseCode}`, and these static headers. */
function mockAnswer(status: number, message: string, headers: Record<string, string> = {}) {
  const all = { 'Content-Type': 'application/json', ...headers };
  const integration = new apigw.MockIntegration({
    // The mock's own status; the one integration response below maps any status to `status`.
    requestTemplates: { 'application/json': '{"statusCode": 200}' },
    integrationResponses: [
      {
        statusCode: String(status),
        responseParameters: Object.fromEntries(
          Object.entries(all).map(([name, value]) => [`method.response.header.${name}`, `'${value}'`]),
        ),
        responseTemplates: { 'application/json': JSON.stringify({ message, responseCode: status }) },
      },
    ],
  });
  const methodResponses: apigw.MethodResponse[] = [
    {
      statusCode: String(status),
      responseParameters: Object.fromEntries(
        Object.keys(all).map((name) => [`method.response.header.${name}`, true]),
      ),
    },
  ];
  return { integration, methodResponses };
}

export function addRouteFallbacks(
  api: apigw.RestApi,
  routes: readonly Route[],
  authorization: apigw.MethodOptions,
): void {
  for (const [path, allow] of methodsByPath(routes)) {
    const { integration, methodResponses } = mockAnswer(405, methodNotAllowedMessage(allow), {
      Allow: allow.join(', '),
    });
    api.root.resourceForPath(path).addMethod('ANY', integration, { ...authorization, methodResponses });
  }
  for (const { catchAll, message } of MERCHANT_PREFIXES) {
    const { integration, methodResponses } = mockAnswer(404, message);
    api.root.resourceForPath(catchAll).addMethod('ANY', integration, { ...authorization, methodResponses });
  }
}
