/**
 * The health route in the cloud (contract/health.ts): `GET /health` answered by API Gateway itself
 * with a MOCK integration (no function: no cold start, no cost but the request's, nothing read),
 * and an `ANY` mock beside it answering the other methods 405 with `Allow: GET`. Neither has an
 * authorizer: an uptime check holds no token. They are methods of the same stage as the routes, so
 * the stage's throttling and the WAF on the stage cover them as they cover every route.
 */
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import { Validations } from 'aws-cdk-lib';
import { HEALTH } from '#contract/health';

/** A mock that answers `status` with `body` (JSON) and these static headers, whatever it is sent. */
function mock(status: number, body: unknown, headers: Record<string, string>) {
  const all = { 'Content-Type': 'application/json', ...headers };
  const integration = new apigw.MockIntegration({
    // The mock's own status. The one integration response below has no selection pattern: it is
    // the default, which API Gateway answers whatever the request (another content type, a body).
    requestTemplates: { 'application/json': '{"statusCode": 200}' },
    integrationResponses: [
      {
        statusCode: String(status),
        responseParameters: Object.fromEntries(
          Object.entries(all).map(([name, value]) => [`method.response.header.${name}`, `'${value}'`]),
        ),
        responseTemplates: { 'application/json': JSON.stringify(body) },
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

/** Adds the health route's two methods to `api`: the health answer and the 405 beside it. */
export function addHealthRoute(api: apigw.RestApi): apigw.Method[] {
  const resource = api.root.resourceForPath(HEALTH.path);
  const open = { authorizationType: apigw.AuthorizationType.NONE };
  const ok = mock(200, HEALTH.body, HEALTH.headers);
  const { status, allow, message } = HEALTH.notAllowed;
  const other = mock(status, { message, responseCode: status }, { Allow: allow });
  const methods = [
    resource.addMethod(HEALTH.method, ok.integration, {
      ...open,
      operationName: HEALTH.id,
      methodResponses: ok.methodResponses,
    }),
    resource.addMethod('ANY', other.integration, { ...open, methodResponses: other.methodResponses }),
  ];
  const why =
    'The health route holds no data and calls no function: API Gateway answers a fixed body, for uptime checks that hold no token. The stage throttling and the WAF cover it.';
  for (const method of methods) {
    Validations.of(method).acknowledge({ id: 'AwsSolutions-APIG4', reason: why });
    Validations.of(method).acknowledge({ id: 'AwsSolutions-COG4', reason: why });
  }
  return methods;
}
