/**
 * The REST API, built by iterating the route table (contract/routes): one resource per path, one
 * Lambda function per distinct handler module, one Cognito-authorized method per route, and
 * gateway responses that answer API Gateway's own errors with the service's error body.
 *
 * The API itself (resources, methods, deployment, stage) stays in the construct's stack; each
 * handler's function goes where `functionScope` places it (the stage stack puts it in the nested
 * stack of its area: lib/cdk/stacks.ts), with the permissions that let API Gateway invoke it.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import type * as cognito from 'aws-cdk-lib/aws-cognito';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { apiTimeoutSecondsOf } from '#contract/limits';
import { apiTimeoutWithProcessor } from '#contract/processor';
import { BINARY_MEDIA_TYPES } from '#contract/media-types';
import { handlerModules, routeList as routes, type Route } from '#contract/routes/index';
import { apiScope, type Stage } from '../../contract/stage';
import { addRouteFallbacks } from './api-fallbacks';
import { addHealthRoute } from './api-health';
import { bindProcessor, processorOf } from './processor';
import { bindTable } from './access';
import {
  functionNameOf,
  handlerSlug,
  logRetention,
  prodRefusalFunction,
  SERVICE_NAME,
  ServiceFunction,
} from './service-function';

/**
 * API Gateway's own error responses (authorizer refusals, unknown paths, throttling, ...) with the
 * status each answers and, where the gateway's message would mislead, a fixed message.
 */
const GATEWAY_ERROR_RESPONSES: readonly {
  readonly type: apigw.ResponseType;
  readonly status: number;
  readonly message?: string;
}[] = [
  { type: apigw.ResponseType.BAD_REQUEST_BODY, status: 400 },
  { type: apigw.ResponseType.BAD_REQUEST_PARAMETERS, status: 400 },
  // Missing, malformed or expired bearer token: 401 (docs/product.md#authentication-and-scopes).
  // AWS's troubleshooting guide lists a token without the method's scope among its causes too.
  { type: apigw.ResponseType.UNAUTHORIZED, status: 401 },
  { type: apigw.ResponseType.EXPIRED_TOKEN, status: 401 },
  { type: apigw.ResponseType.ACCESS_DENIED, status: 403 },
  { type: apigw.ResponseType.INVALID_API_KEY, status: 403 },
  { type: apigw.ResponseType.INVALID_SIGNATURE, status: 403 },
  { type: apigw.ResponseType.WAF_FILTERED, status: 403 },
  // With a Cognito authorizer on every method, a missing token is UNAUTHORIZED (401). This type
  // is what API Gateway answers for a path no resource has (its default is a misleading 403
  // "Missing Authentication Token"), so it is the service's 404. A route's path with another
  // method and a path under the wrong prefix have their own answers (api-fallbacks.ts).
  { type: apigw.ResponseType.MISSING_AUTHENTICATION_TOKEN, status: 404, message: 'not found' },
  { type: apigw.ResponseType.RESOURCE_NOT_FOUND, status: 404 },
  { type: apigw.ResponseType.REQUEST_TOO_LARGE, status: 413 },
  { type: apigw.ResponseType.UNSUPPORTED_MEDIA_TYPE, status: 415 },
  { type: apigw.ResponseType.THROTTLED, status: 429 },
  { type: apigw.ResponseType.QUOTA_EXCEEDED, status: 429 },
  // Every 4xx/5xx type is listed, so the defaults catch only types API Gateway adds later; they
  // fix the status so that it always equals the body's responseCode.
  { type: apigw.ResponseType.DEFAULT_4XX, status: 400 },
  { type: apigw.ResponseType.API_CONFIGURATION_ERROR, status: 500 },
  { type: apigw.ResponseType.AUTHORIZER_CONFIGURATION_ERROR, status: 500 },
  { type: apigw.ResponseType.AUTHORIZER_FAILURE, status: 500 },
  { type: apigw.ResponseType.INTEGRATION_FAILURE, status: 504 },
  { type: apigw.ResponseType.INTEGRATION_TIMEOUT, status: 504 },
  { type: apigw.ResponseType.DEFAULT_5XX, status: 500 },
];

/**
 * The service's error body `{message, responseCode}` as a gateway response template.
 * `$context.error.messageString` is the gateway's message already quoted as a JSON string.
 */
const errorBodyTemplate = (status: number, message?: string): string =>
  `{"message":${message === undefined ? '$context.error.messageString' : JSON.stringify(message)},"responseCode":${status}}`;

export interface ServiceApiProps {
  readonly stage: Stage;
  /** The service table: every function gets its name (TABLE_NAME) and the actions its code uses. */
  readonly table: ITable;
  /** The pool whose access tokens the authorizer accepts. */
  readonly userPool: cognito.IUserPool;
  /**
   * Steady-state request rate limit of the stage, requests per second.
   * @default 100
   */
  readonly throttlingRateLimit?: number;
  /**
   * Burst limit of the stage, requests.
   * @default 200
   */
  readonly throttlingBurstLimit?: number;
  /**
   * Create the account-level role API Gateway needs to write access logs. It is one setting per
   * account and region: pass false where another stack or an administrator already set it.
   * @default true
   */
  readonly cloudWatchRole?: boolean;
  /**
   * Called once per handler module after its function is created and bound to the table: the
   * place for extra environment variables and grants of one handler, e.g. a trigger's
   * states:StartExecution outside prod. In prod, handlers whose routes are all `nonProdOnly` are
   * a refusal function (see prodRefusalFunction) and are not passed here.
   * @default - no extra configuration
   */
  readonly configureFunction?: (fn: NodejsFunction, handler: string, routes: readonly Route[]) => void;
  /**
   * The scope of a handler's function: its stack (a nested stack of the stage) or a construct in
   * it. The function's invoke permissions go with it.
   * @default - one construct `Functions` beside the API, in its stack
   */
  readonly functionScope?: (handler: string) => Construct;
}

export class ServiceApi extends Construct {
  readonly api: apigw.RestApi;
  readonly authorizer: apigw.CognitoUserPoolsAuthorizer;
  readonly accessLogGroup: logs.LogGroup;
  /** One function per handler module (`groups/create-group` → its function). */
  readonly functions: ReadonlyMap<string, lambda.Function>;

  constructor(scope: Construct, id: string, props: ServiceApiProps) {
    super(scope, id);
    const { stage } = props;
    const prod = stage === 'prod';
    const cloudWatchRole = props.cloudWatchRole ?? true;

    this.accessLogGroup = new logs.LogGroup(this, 'AccessLogs', {
      retention: logRetention(stage),
      removalPolicy: prod ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });

    this.api = new apigw.RestApi(this, 'RestApi', {
      restApiName: `${SERVICE_NAME}-${stage}`,
      description: `Scheduled Payments Service (${stage})`,
      // Callers are servers, not browsers: a regional endpoint, no CloudFront hop.
      endpointTypes: [apigw.EndpointType.REGIONAL],
      // The group report's .xlsx pages: a function answers them base64-encoded, and API Gateway
      // sends them as bytes only for a type listed here (contract/media-types.ts). JSON stays text:
      // a wildcard would also pass every JSON request body to the functions base64-encoded.
      binaryMediaTypes: [...BINARY_MEDIA_TYPES],
      cloudWatchRole,
      // The role is shared by every API of the account and region: never delete it with a stack.
      // (CDK refuses a removal policy without the role.)
      ...(cloudWatchRole ? { cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN } : {}),
      deployOptions: {
        stageName: stage,
        throttlingRateLimit: props.throttlingRateLimit ?? 100,
        throttlingBurstLimit: props.throttlingBurstLimit ?? 200,
        // Not traced: API Gateway's own trace segment holds the URL as sent, query included, which
        // nothing redacts (a card number in a path id, or in a search's customerAccountId). The
        // functions' traces (Lambda's active tracing) record no URL.
        tracingEnabled: false,
        metricsEnabled: true,
        // Execution logging stays off: with data tracing it would log request bodies, and
        // payor bodies carry card numbers. Access logs carry what operators need.
        accessLogDestination: new apigw.LogGroupLogDestination(this.accessLogGroup),
        accessLogFormat: accessLogFormat(),
      },
    });

    // The stack outputs the URL as ApiUrl; RestApi's own output would repeat it.
    this.api.node.tryRemoveChild('Endpoint');

    // TLS 1.2 or higher (docs/product.md#authentication-and-scopes). The default execute-api endpoint of a
    // REST API without a security policy accepts TLS 1.0 (regional and edge-optimized alike; only
    // private APIs default to TLS 1.2), so pin one: TLS 1.3 and 1.2 with modern ciphers only.
    // Enhanced policies need an endpoint access mode; BASIC keeps request routing unchanged.
    const cfnApi = this.api.node.defaultChild as apigw.CfnRestApi;
    cfnApi.securityPolicy = 'SecurityPolicy_TLS13_1_2_2021_06';
    cfnApi.endpointAccessMode = 'BASIC';

    this.authorizer = new apigw.CognitoUserPoolsAuthorizer(this, 'Authorizer', {
      authorizerName: `${SERVICE_NAME}-${stage}-cognito`,
      cognitoUserPools: [props.userPool],
      identitySource: apigw.IdentitySource.header('Authorization'),
    });

    for (const { type, status, message } of GATEWAY_ERROR_RESPONSES) {
      this.api.addGatewayResponse(`GatewayResponse${type.responseType}`, {
        type,
        statusCode: String(status),
        responseHeaders: {
          'Content-Type': "'application/json'",
          ...(status === 401 ? { 'WWW-Authenticate': "'Bearer'" } : {}),
        },
        templates: { 'application/json': errorBodyTemplate(status, message) },
      });
    }

    const functions = new Map<string, lambda.Function>();
    const integrations = new Map<string, apigw.Integration>();
    let besideApi: Construct | undefined;
    const scopeOf = props.functionScope ?? (() => (besideApi ??= new Construct(this, 'Functions')));
    for (const handler of handlerModules()) {
      const handlerRoutes = routes.filter((r) => r.handler === handler);
      const scope = scopeOf(handler);
      let fn: lambda.Function;
      // Prod's trigger endpoints only answer 403: a function that holds nothing says so.
      if (prod && handlerRoutes.every((r) => r.nonProdOnly === true)) {
        fn = prodRefusalFunction(scope, handler, stage, handlerRoutes[0]!.path);
      } else {
        fn = new ServiceFunction(scope, handlerSlug(handler), {
          handler,
          stage,
          // A 10,000-payment create writes for ~10 s into one partition, and the JSON report
          // reads up to 100,000 payments within a 20 s budget: their own timeouts (contract/limits.ts).
          // A route that calls the processor waits at least one call of the stage's processor.
          timeout: Duration.seconds(
            apiTimeoutWithProcessor(
              apiTimeoutSecondsOf(handler),
              handlerRoutes.some((r) => r.callsProcessor === true),
              processorOf(scope),
            ),
          ),
        }).fn;
        // Least privilege: the table actions the handler's code uses (lib/cdk/access.ts); a GET's
        // code only reads (nothing is settled on a GET; the sweeper does that).
        bindTable(fn, props.table, handler);
        // Only a handler whose route says it calls the processor gets its settings and grants.
        if (handlerRoutes.some((r) => r.callsProcessor === true)) bindProcessor(fn, stage);
        props.configureFunction?.(fn, handler, handlerRoutes);
      }
      functions.set(handler, fn);
      integrations.set(handler, lambdaProxy(fn));
    }
    this.functions = functions;
    // A method's integration names its function by ARN, which a new function name changes while
    // the method's template (a reference to the function) may not: the function names are part of
    // what makes a new deployment of the stage.
    this.api.latestDeployment?.addToLogicalId({
      functions: handlerModules().map((handler) => functionNameOf(stage, handler)),
    });

    const authorization: apigw.MethodOptions = {
      authorizer: this.authorizer,
      // Stated explicitly: with scopes the authorizer validates access tokens (which carry no
      // `aud`), and CDK drops authorizationScopes unless the type is COGNITO.
      authorizationType: apigw.AuthorizationType.COGNITO,
      authorizationScopes: [apiScope(stage)],
    };
    const apiGateway = new iam.ServicePrincipal('apigateway.amazonaws.com');
    for (const route of routes) {
      const fn = functions.get(route.handler);
      const integration = integrations.get(route.handler);
      if (fn === undefined || integration === undefined)
        throw new Error(`no function for handler ${route.handler}`);
      this.api.root
        .resourceForPath(route.path)
        .addMethod(route.method, integration, { operationName: route.id, ...authorization });
      // API Gateway may invoke the function for this route on this stage, and for nothing else (no
      // console test invoke). The permission lives with the function, in its stack; it names the
      // stage by its name: a reference would make the function's stack wait for the stage, whose
      // deployment waits for the methods, which wait for the function.
      fn.addPermission(`Invoke${route.id}`, {
        principal: apiGateway,
        action: 'lambda:InvokeFunction',
        sourceArn: this.api.arnForExecuteApi(route.method, route.path.replace(/\{[^}]+\}/g, '*'), stage),
      });
    }
    // 405 with Allow for a route's path with another method, 404 naming the prefix for a path
    // under the wrong one (contract/fallbacks.ts).
    addRouteFallbacks(this.api, routes, authorization);
    // GET /health without a token, answered by API Gateway itself (api-health.ts).
    addHealthRoute(this.api);
  }
}

/**
 * A Lambda proxy integration of a function, as LambdaIntegration makes it but without its invoke
 * permission, which ServiceApi adds beside the function (the function may be in another stack).
 */
export function lambdaProxy(fn: lambda.IFunction): apigw.Integration {
  return new apigw.AwsIntegration({
    proxy: true,
    service: 'lambda',
    path: `2015-03-31/functions/${fn.functionArn}/invocations`,
  });
}

/**
 * One JSON object per request; no bodies, no tokens, no header's text (a User-Agent is whatever the
 * caller typed), and the route (`resourcePath`), not the path as sent: the gateway cannot redact,
 * and a path's ids are whatever the caller typed, a card number among them (the functions log the
 * ids they validated).
 */
function accessLogFormat(): apigw.AccessLogFormat {
  const f = apigw.AccessLogField;
  return apigw.AccessLogFormat.custom(
    JSON.stringify({
      requestId: f.contextRequestId(),
      extendedRequestId: f.contextExtendedRequestId(),
      requestTime: f.contextRequestTime(),
      ip: f.contextIdentitySourceIp(),
      httpMethod: f.contextHttpMethod(),
      resourcePath: f.contextResourcePath(),
      protocol: f.contextProtocol(),
      tlsVersion: '$context.tlsVersion',
      status: f.contextStatus(),
      responseLength: f.contextResponseLength(),
      responseLatency: f.contextResponseLatency(),
      integrationLatency: f.contextIntegrationLatency(),
      errorMessage: f.contextErrorMessage(),
      errorResponseType: f.contextErrorResponseType(),
      authorizerError: f.contextAuthorizerError(),
      clientId: f.contextAuthorizerClaims('client_id'),
      xrayTraceId: f.contextXrayTraceId(),
    }),
  );
}
