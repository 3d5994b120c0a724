import type { Template } from 'aws-cdk-lib/assertions';
import { handlerModules, routeList as routes } from '#contract/routes/index';
import { MERCHANT_PREFIXES, methodNotAllowedMessage, methodsByPath } from '#contract/fallbacks';
import { HEALTH } from '#contract/health';
import { apiScope, scopeHost, TOKEN_VALIDITY_SECONDS, type Stage } from '#contract/stage';
import { tableDef, tableName } from '#contract/table';
import { PROD_WARM_INDEX_WRITE_UNITS, PROD_WARM_WRITE_UNITS } from '#lib/cdk/table';
import { accessOf, readsSetting } from '#lib/cdk/access';
import { VOID_OR_REFUND_API_TIMEOUT } from '#lib/cdk/void-or-refund';

/** The void-or-refund endpoint's handler: it also drives the background reversal. */
const VOID_OR_REFUND_HANDLER = 'groups/void-or-refund';
import {
  API_FUNCTION_TIMEOUT_SECONDS,
  CREATE_GROUP_TIMEOUT_SECONDS,
  GROUP_REPORT_HANDLER,
  GROUP_REPORT_TIMEOUT_SECONDS,
  LONG_CREATE_HANDLERS,
} from '#contract/limits';
import {
  actionsOf,
  flatten,
  functionIdOf,
  props,
  resourcePaths,
  resourcesOf,
  resourcesOfStatement,
  roleIdOf,
  roleStatements,
  SYNTH_TIMEOUT_MS,
  PROD_CONTEXT,
  stackTemplates,
  stageSynthOf,
  type Resource,
  type StageFacts,
  type Statement,
  isDataKeyStatement,
} from '#support/cdk/synth';

/** Every gateway response type API Gateway has (REST APIs), with the status the service wants. */
const EXPECTED_GATEWAY_STATUS: Record<string, number> = {
  BAD_REQUEST_BODY: 400,
  BAD_REQUEST_PARAMETERS: 400,
  UNAUTHORIZED: 401,
  EXPIRED_TOKEN: 401,
  ACCESS_DENIED: 403,
  INVALID_API_KEY: 403,
  INVALID_SIGNATURE: 403,
  WAF_FILTERED: 403,
  MISSING_AUTHENTICATION_TOKEN: 404,
  RESOURCE_NOT_FOUND: 404,
  REQUEST_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  THROTTLED: 429,
  QUOTA_EXCEEDED: 429,
  DEFAULT_4XX: 400,
  API_CONFIGURATION_ERROR: 500,
  AUTHORIZER_CONFIGURATION_ERROR: 500,
  AUTHORIZER_FAILURE: 500,
  INTEGRATION_FAILURE: 504,
  INTEGRATION_TIMEOUT: 504,
  DEFAULT_5XX: 500,
};

const only = (record: Record<string, Resource>): [string, Resource] => {
  const entries = Object.entries(record);
  expect(entries).toHaveLength(1);
  return entries[0] as [string, Resource];
};

/** Full path of every AWS::ApiGateway::Resource, by logical id, from the ParentId/PathPart chain. */
/** Logical id of the function of each API handler module, found by its physical name. */
const functionIds = (template: Template, stage: Stage): Map<string, string> =>
  new Map(handlerModules().map((handler) => [handler, functionIdOf(template, stage, handler)]));

/** The API's functions (one per handler module): handler, logical id and resource. */
function apiFunctions(template: Template, stage: Stage): { handler: string; id: string; fn: Resource }[] {
  const functions = resourcesOf(template, 'AWS::Lambda::Function');
  return [...functionIds(template, stage)].map(([handler, id]) => ({
    handler,
    id,
    fn: functions[id] as Resource,
  }));
}

/** Handlers that start state machine executions outside prod (their routes are non-prod only). */
const WEBHOOK_SEALERS = ['webhooks/create-endpoint', 'webhooks/rotate-secret'];
const TRIGGER_HANDLERS = [...new Set(routes.filter((r) => r.nonProdOnly).map((r) => r.handler))];
/**
 * The API handlers that call the processor (their imports reach lambdas/processor/): they charge,
 * void, refund, tokenize a card or settle sales now (the non-production test clock). No GET does
 * (test/infra/read-only-gets.test.ts).
 */
const PROCESSOR_HANDLERS = [
  'triggers/settle-now',
  'transactions/create-sale',
  'transactions/void-transaction',
  'transactions/refund-transaction',
  'groups/void-or-refund',
  'payors/create-payor',
  'methods/add-method',
];

describe.each([
  { stage: 'dev' as const, retain: false, retentionDays: 30 },
  { stage: 'prod' as const, retain: true, retentionDays: 365 },
])('ScheduledPayments-$stage', ({ stage, retain, retentionDays }) => {
  let facts: StageFacts;
  let template: Template;
  let tableId: string;
  let poolId: string;
  const prod = stage === 'prod';
  /** The group processing state machine (void-or-refund has its own). */
  const processGroupId = (): string =>
    only(
      Object.fromEntries(
        Object.entries(resourcesOf(template, 'AWS::StepFunctions::StateMachine')).filter(
          ([, r]) => props(r).StateMachineName === `scheduled-payments-${stage}-process-group`,
        ),
      ),
    )[0];
  /** The background void-or-refund state machine. */
  const voidOrRefundId = (): string =>
    only(
      Object.fromEntries(
        Object.entries(resourcesOf(template, 'AWS::StepFunctions::StateMachine')).filter(
          ([, r]) => props(r).StateMachineName === `scheduled-payments-${stage}-void-or-refund`,
        ),
      ),
    )[0];
  /** The webhook secrets' KMS key and the webhook queue (lib/cdk/webhooks.ts). */
  const webhookKeyId = (): string =>
    only(
      Object.fromEntries(
        Object.entries(resourcesOf(template, 'AWS::KMS::Key')).filter(([id]) =>
          id.startsWith('WebhooksSecretsKey'),
        ),
      ),
    )[0];
  /** The idempotency hash key's secret (lib/cdk/idempotency-key.ts). */
  const idempotencyHashKeyId = (): string =>
    only(
      Object.fromEntries(
        Object.entries(resourcesOf(template, 'AWS::SecretsManager::Secret')).filter(([id]) =>
          id.startsWith('IdempotencyHashKey'),
        ),
      ),
    )[0];
  const webhookQueueId = (): string =>
    only(
      Object.fromEntries(
        Object.entries(resourcesOf(template, 'AWS::SQS::Queue')).filter(
          ([, r]) => props(r).QueueName === `scheduled-payments-${stage}-webhooks`,
        ),
      ),
    )[0];
  /** The API functions that run a handler module (prod's triggers only refuse: tested apart). */
  const servingFunctions = () =>
    apiFunctions(template, stage).filter(({ handler }) => !(prod && TRIGGER_HANDLERS.includes(handler)));
  beforeAll(() => {
    ({ template, ...facts } = stageSynthOf(stage));
    [tableId] = only(resourcesOf(template, 'AWS::DynamoDB::Table'));
    [poolId] = only(resourcesOf(template, 'AWS::Cognito::UserPool'));
  }, SYNTH_TIMEOUT_MS);

  describe('API', () => {
    it('has exactly one method per route, on the route path, Cognito-authorized with the API scope', () => {
      const paths = resourcePaths(template);
      const fnIds = functionIds(template, stage);
      const [authorizerId] = only(resourcesOf(template, 'AWS::ApiGateway::Authorizer'));
      const methods = Object.values(resourcesOf(template, 'AWS::ApiGateway::Method')).map(
        (m): Record<string, unknown> => {
          const p = props(m);
          const resourceId = (p.ResourceId as { Ref?: string }).Ref;
          return { ...p, path: resourceId === undefined ? '/' : paths.get(resourceId) };
        },
      );

      const key = (method: unknown, path: unknown): string => `${String(method)} ${String(path)}`;
      // `ANY` methods are the mock fallbacks (405, wrong prefix), asserted in the next test; the
      // health route's methods are test/infra/health.test.ts's.
      const routeMethods = methods.filter((m) => m.HttpMethod !== 'ANY' && m.path !== HEALTH.path);
      expect(routeMethods.map((m) => key(m.HttpMethod, m.path)).sort()).toEqual(
        routes.map((r) => key(r.method, r.path)).sort(),
      );
      for (const route of routes) {
        const method = methods.find((m) => m.HttpMethod === route.method && m.path === route.path);
        expect(method).toMatchObject({
          AuthorizationType: 'COGNITO_USER_POOLS',
          AuthorizationScopes: [apiScope(stage)],
          AuthorizerId: { Ref: authorizerId },
          OperationName: route.id,
          Integration: { Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' },
        });
        const uri = flatten((method?.Integration as { Uri: unknown }).Uri);
        expect(uri).toContain(
          `:lambda:path/2015-03-31/functions/\${${fnIds.get(route.handler)}.Arn}/invocations`,
        );
      }
    });

    it('answers a route path with another method 405 with Allow, and a path under the wrong prefix 404 naming the right one (issue 12)', () => {
      const paths = resourcePaths(template);
      const [authorizerId] = only(resourcesOf(template, 'AWS::ApiGateway::Authorizer'));
      const fallbacks = Object.values(resourcesOf(template, 'AWS::ApiGateway::Method'))
        .map(props)
        .filter(
          (p) => p.HttpMethod === 'ANY' && paths.get((p.ResourceId as { Ref: string }).Ref) !== HEALTH.path,
        );
      const answerOf = (p: Record<string, unknown>) => {
        const integration = p.Integration as { Type: string; IntegrationResponses: Record<string, any>[] };
        const [response] = integration.IntegrationResponses;
        return {
          path: paths.get((p.ResourceId as { Ref: string }).Ref),
          type: integration.Type,
          status: response?.StatusCode,
          allow: response?.ResponseParameters['method.response.header.Allow'],
          body: JSON.parse(response?.ResponseTemplates['application/json']),
        };
      };
      const expected = [
        ...[...methodsByPath(routes)].map(([path, allow]) => ({
          path,
          type: 'MOCK',
          status: '405',
          allow: `'${allow.join(', ')}'`,
          body: { message: methodNotAllowedMessage(allow), responseCode: 405 },
        })),
        ...MERCHANT_PREFIXES.map(({ catchAll, message }) => ({
          path: catchAll,
          type: 'MOCK',
          status: '404',
          allow: undefined,
          body: { message, responseCode: 404 },
        })),
      ];
      const byPath = (a: { path?: string }, b: { path?: string }) =>
        String(a.path).localeCompare(String(b.path));
      expect(fallbacks.map(answerOf).sort(byPath)).toEqual(expected.sort(byPath));
      for (const method of fallbacks)
        expect(method).toMatchObject({
          AuthorizationType: 'COGNITO_USER_POOLS',
          AuthorizationScopes: [apiScope(stage)],
          AuthorizerId: { Ref: authorizerId },
        });
    });

    it('has a Cognito user pools authorizer on the Authorization header, pointing at the pool', () => {
      const [, authorizer] = only(resourcesOf(template, 'AWS::ApiGateway::Authorizer'));
      expect(props(authorizer)).toMatchObject({
        Type: 'COGNITO_USER_POOLS',
        IdentitySource: 'method.request.header.Authorization',
        ProviderARNs: [{ 'Fn::GetAtt': [poolId, 'Arn'] }],
      });
    });

    it('lets API Gateway invoke each function only for its own routes on this stage', () => {
      const fnIds = functionIds(template, stage);
      const [apiId] = only(resourcesOf(template, 'AWS::ApiGateway::RestApi'));
      const [stageId] = only(resourcesOf(template, 'AWS::ApiGateway::Stage'));
      const permissions = Object.values(resourcesOf(template, 'AWS::Lambda::Permission')).map(props);
      // Nothing but API Gateway may invoke an API function (the scheduler's EventBridge
      // permission is asserted in processing.test.ts); API Gateway invokes nothing else.
      const apiFunctionArns = new Set([...fnIds.values()].map((id) => `\${${id}.Arn}`));
      const gatewayPermissions = permissions.filter(
        (p) => apiFunctionArns.has(flatten(p.FunctionName)) || p.Principal === 'apigateway.amazonaws.com',
      );
      const granted = gatewayPermissions.map((p) => {
        expect(p).toMatchObject({ Action: 'lambda:InvokeFunction', Principal: 'apigateway.amazonaws.com' });
        expect(apiFunctionArns).toContain(flatten(p.FunctionName));
        return `${flatten(p.FunctionName)} ${flatten(p.SourceArn)}`;
      });
      // Prod is pinned to its account and region (lib/cdk/app.ts); dev is environment-agnostic.
      const arnEnv = prod
        ? `aws:execute-api:${PROD_CONTEXT.region}:${PROD_CONTEXT.prodAccount}`
        : '${AWS::Partition}:execute-api:${AWS::Region}:${AWS::AccountId}';
      // The permissions sit with the functions, in their nested stacks, and name the API's stage by
      // its name (a reference to the stage would make those stacks wait for the stage's deployment,
      // which waits for the methods, which wait for the functions).
      expect(props(resourcesOf(template, 'AWS::ApiGateway::Stage')[stageId]!).StageName).toBe(stage);
      const expected = routes.map((r) => {
        const path = r.path.replace(/\{[^}]+\}/g, '*');
        return `\${${fnIds.get(r.handler)}.Arn} arn:${arnEnv}:\${${apiId}}/${stage}/${r.method}${path}`;
      });
      expect(granted.sort()).toEqual(expected.sort());
    });

    it('answers every gateway error with the service error body and a matching status', () => {
      const responses = Object.values(resourcesOf(template, 'AWS::ApiGateway::GatewayResponse')).map(props);
      const statusByType = Object.fromEntries(responses.map((r) => [r.ResponseType, Number(r.StatusCode)]));
      expect(statusByType).toEqual(EXPECTED_GATEWAY_STATUS);

      for (const response of responses) {
        const body = (response.ResponseTemplates as Record<string, string>)['application/json'] ?? '';
        expect(body).toMatch(
          /^\{"message":(\$context\.error\.messageString|"[^"]*"),"responseCode":\d{3}\}$/,
        );
        // As API Gateway renders it: $context.error.messageString is a quoted JSON string.
        const rendered: unknown = JSON.parse(body.replace('$context.error.messageString', '"Unauthorized"'));
        expect(rendered).toEqual({ message: expect.any(String), responseCode: Number(response.StatusCode) });
        expect(response.ResponseParameters).toMatchObject({
          'gatewayresponse.header.Content-Type': "'application/json'",
        });
      }
      const notFound = responses.find((r) => r.ResponseType === 'MISSING_AUTHENTICATION_TOKEN');
      expect(notFound?.ResponseTemplates).toEqual({
        'application/json': '{"message":"not found","responseCode":404}',
      });
    });

    it('deploys a stage named after the stage with throttling and JSON access logs', () => {
      const [, apiStage] = only(resourcesOf(template, 'AWS::ApiGateway::Stage'));
      const p = props(apiStage);
      expect(p).toMatchObject({
        StageName: stage,
        MethodSettings: expect.arrayContaining([
          expect.objectContaining({
            HttpMethod: '*',
            ResourcePath: '/*',
            ThrottlingRateLimit: 100,
            ThrottlingBurstLimit: 200,
          }),
        ]),
      });
      const accessLog = p.AccessLogSetting as { DestinationArn: unknown; Format: string };
      const destination = flatten(accessLog.DestinationArn);
      expect(destination).toContain(':log-group:');
      const accessLogGroup = Object.entries(resourcesOf(template, 'AWS::Logs::LogGroup')).find(
        ([id]) => destination.includes(`\${${id}}`) || destination.includes(`\${${id}.Arn}`),
      );
      expect(accessLogGroup).toBeDefined();
      expect(props((accessLogGroup as [string, Resource])[1]).RetentionInDays).toBe(retentionDays);
      expect(JSON.parse(accessLog.Format)).toMatchObject({
        requestId: '$context.requestId',
        status: '$context.status',
        clientId: '$context.authorizer.claims.client_id',
      });
      // Execution logging (which could log request bodies) stays off.
      for (const setting of p.MethodSettings as Record<string, unknown>[]) {
        expect(setting.DataTraceEnabled).not.toBe(true);
        expect([undefined, 'OFF']).toContain(setting.LoggingLevel);
      }
    });

    it('defect: a card number in a path id is written to the API access log', () => {
      // The gateway cannot redact: the access log names the route (resourcePath), never the path
      // as sent, whose ids may be anything a caller typed (the functions log the validated ones).
      const [, stageResource] = only(resourcesOf(template, 'AWS::ApiGateway::Stage'));
      const format = JSON.parse(
        (props(stageResource).AccessLogSetting as { Format: string }).Format,
      ) as Record<string, string>;
      expect(format.resourcePath).toBe('$context.resourcePath');
      expect(
        Object.values(format).filter((v) => /\$context\.path\b|\$context\.requestOverride/.test(v)),
      ).toEqual([]);
    });

    it('defect: a card number in the User-Agent header is written to the API access log', () => {
      // The same door as a path id: the User-Agent header is free text the caller types (a payor's
      // browser string is refused when it holds a card number: the mandate's userAgent), and the
      // gateway writes it to the access log as sent, where nothing can redact it. No field of
      // the log may be a request header's text.
      const [, stageResource] = only(resourcesOf(template, 'AWS::ApiGateway::Stage'));
      const format = JSON.parse(
        (props(stageResource).AccessLogSetting as { Format: string }).Format,
      ) as Record<string, string>;
      expect(
        Object.entries(format).filter(([, v]) => /\$context\.identity\.userAgent|\$input\.params/.test(v)),
      ).toEqual([]);
    });

    it("defect: the stage's X-Ray traces record a sampled request's URL as sent, a card number in a path id or a search query among them", () => {
      // API Gateway's own trace segment of a traced stage holds `http.request.url`, the URL as the
      // caller sent it, query string included (AWS: "AWS X-Ray traces for Amazon API Gateway
      // APIs"), and nothing can redact it: the door the access log closed by logging the route,
      // never the path. A search's customerAccountId is not even refused when it is a card number
      // (docs/decisions.md "Card numbers in free text"), so `GET .../payors?customerAccountId=
      // 4111111111111111` is traced as written; docs/operating.md says X-Ray records no payor data.
      // The functions' own traces (Lambda active tracing) record no URL and are not this.
      const [, stageResource] = only(resourcesOf(template, 'AWS::ApiGateway::Stage'));
      expect({ stageTracesRequestUrls: props(stageResource).TracingEnabled === true }).toEqual({
        stageTracesRequestUrls: false,
      });
    });

    it('is a regional API that refuses TLS below 1.2', () => {
      const [, api] = only(resourcesOf(template, 'AWS::ApiGateway::RestApi'));
      const p = props(api);
      expect(p.EndpointConfiguration).toEqual({ Types: ['REGIONAL'] });
      expect(['TLS_1_2', 'SecurityPolicy_TLS13_1_2_2021_06', 'SecurityPolicy_TLS13_1_3_2025_09']).toContain(
        p.SecurityPolicy,
      );
      if (String(p.SecurityPolicy).startsWith('SecurityPolicy_')) {
        expect(['BASIC', 'STRICT']).toContain(p.EndpointAccessMode);
      }
    });
  });

  describe('functions', () => {
    it('has one API function per distinct handler module and no other', () => {
      const ids = [...functionIds(template, stage).values()];
      expect(new Set(ids).size).toBe(handlerModules().length);
      // The API's functions, in the nested stacks of the API's areas (lib/cdk/stacks.ts), are
      // exactly those of its handler modules: the processing functions and the scheduled jobs
      // have stacks of their own (see processing-stack.test.ts and stacks.test.ts).
      const inApiStacks = stackTemplates(facts)
        .filter(({ id }) => id.startsWith('Api'))
        .flatMap(({ template: t }) => Object.keys(resourcesOf(t, 'AWS::Lambda::Function')));
      expect(inApiStacks.sort()).toEqual(ids.sort());
      for (const { handler, fn } of servingFunctions()) {
        expect(props(fn).Description).toBe(`${handler} (${stage})`);
      }
    });

    if (prod)
      it('answers the trigger endpoints with inline 403 functions that hold no table, no state machine, no variables', () => {
        const refusing = apiFunctions(template, stage).filter(({ handler }) =>
          TRIGGER_HANDLERS.includes(handler),
        );
        expect(refusing).toHaveLength(TRIGGER_HANDLERS.length);
        for (const { fn } of refusing) {
          const code = (props(fn).Code as { ZipFile: string }).ZipFile;
          // Naming the handler's operation: test/infra/prod-refusals.test.ts.
          expect(code).toMatch(
            /\\"message\\":\\"[a-z-]+ is not available in production\\",\\"responseCode\\":403/,
          );
          expect(code).toContain('"statusCode":403');
          expect((props(fn).Environment as { Variables: unknown }).Variables).toEqual({
            SERVICE_STAGE: 'prod',
          });
          const actions = roleStatements(template, roleIdOf(fn)).flatMap(actionsOf);
          expect(actions.every((a) => a.startsWith('xray:'))).toBe(true);
        }
      });

    it('runs every API function on Node.js 22, arm64, with the service defaults and only its variables', () => {
      const stateMachineId = processGroupId();
      for (const { handler, fn } of servingFunctions()) {
        expect(props(fn)).toMatchObject({
          Runtime: 'nodejs22.x',
          Architectures: ['arm64'],
          Handler: 'index.handler',
          Timeout: LONG_CREATE_HANDLERS.includes(handler)
            ? CREATE_GROUP_TIMEOUT_SECONDS
            : handler === GROUP_REPORT_HANDLER
              ? GROUP_REPORT_TIMEOUT_SECONDS
              : handler === VOID_OR_REFUND_HANDLER
                ? VOID_OR_REFUND_API_TIMEOUT.toSeconds()
                : API_FUNCTION_TIMEOUT_SECONDS,
          MemorySize: 512,
          TracingConfig: { Mode: 'Active' },
        });
        // Outside prod the trigger endpoints start executions: they, and only they, get the ARN
        // (their code reads it; settle-now's, on the same test routes, does not: issue 22, item 5).
        const startsExecutions = stage !== 'prod' && readsSetting(handler, 'stateMachineArn');
        if (TRIGGER_HANDLERS.includes(handler) && handler !== 'triggers/settle-now')
          expect([handler, startsExecutions]).toEqual([handler, stage !== 'prod']);
        // The handlers that call the processor, and only they, name it.
        const callsProcessor = PROCESSOR_HANDLERS.includes(handler);
        expect((props(fn).Environment as { Variables: unknown }).Variables).toEqual({
          TABLE_NAME: { Ref: tableId },
          SERVICE_STAGE: stage,
          POWERTOOLS_SERVICE_NAME: 'scheduled-payments',
          POWERTOOLS_LOG_LEVEL: 'INFO',
          NODE_OPTIONS: '--enable-source-maps',
          // The routes that take an Idempotency-Key, and only they, read its hash key (idempotency-key.test.ts).
          ...(readsSetting(handler, 'idempotencyHashKey')
            ? {
                IDEMPOTENCY_HASH_KEY: {
                  'Fn::Join': ['', ['secretsmanager:', { Ref: idempotencyHashKeyId() }]],
                },
              }
            : {}),
          ...(startsExecutions ? { STATE_MACHINE_ARN: { Ref: stateMachineId } } : {}),
          ...(callsProcessor ? { PROCESSOR: 'sandbox' } : {}),
          // The void-or-refund endpoint starts the background reversal of large groups.
          ...(handler === VOID_OR_REFUND_HANDLER
            ? { VOID_OR_REFUND_STATE_MACHINE_ARN: { Ref: voidOrRefundId() } }
            : {}),
          // Only create and rotate seal webhook secrets; only replay sends to the webhook queue.
          ...(WEBHOOK_SEALERS.includes(handler)
            ? {
                WEBHOOK_SECRET_KEY: { 'Fn::Join': ['', ['kms:', { 'Fn::GetAtt': [webhookKeyId(), 'Arn'] }]] },
              }
            : {}),
          ...(handler === 'webhooks/replay' ? { WEBHOOK_QUEUE_URL: { Ref: webhookQueueId() } } : {}),
        });
      }
    });

    it(`logs each function to its own log group kept ${retentionDays} days`, () => {
      const logGroups = resourcesOf(template, 'AWS::Logs::LogGroup');
      for (const fn of Object.values(resourcesOf(template, 'AWS::Lambda::Function'))) {
        const ref = (props(fn).LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
        const logGroup = logGroups[ref];
        expect(logGroup).toBeDefined();
        expect(props(logGroup as Resource)).toMatchObject({
          LogGroupName: `/aws/lambda/${String(props(fn).FunctionName)}`,
          RetentionInDays: retentionDays,
        });
        expect(logGroup?.DeletionPolicy).toBe(retain ? 'Retain' : 'Delete');
      }
    });

    it('grants each API function the service table actions its code uses and nothing else (but dev triggers: starting executions); GET-only handlers only read', () => {
      const stateMachineId = processGroupId();
      const tableArn = `\${${tableId}.Arn}`;
      for (const { handler, fn } of servingFunctions()) {
        const roleId = roleIdOf(fn);
        const statements = roleStatements(template, roleId);
        const allowed = statements.filter((st) => st.Effect === 'Allow').flatMap(actionsOf);
        // Exactly the table actions its code uses (lib/cdk/access.ts; least-privilege.test.ts).
        expect([handler, allowed.filter((a) => a.startsWith('dynamodb:')).sort()]).toEqual([
          handler,
          accessOf(handler).actions.filter((a) => a.startsWith('dynamodb:')),
        ]);
        expect(allowed).toContain('dynamodb:GetItem');
        const readOnly = routes.filter((r) => r.handler === handler).every((r) => r.method === 'GET');
        if (readOnly)
          expect(
            allowed.filter((a) => a.startsWith('dynamodb:') && /Put|Update|Delete|Write/.test(a)),
          ).toEqual([]);
        const startsExecutions = stage !== 'prod' && readsSetting(handler, 'stateMachineArn');
        const onStates = (s: Statement): boolean => actionsOf(s).some((a) => a.startsWith('states:'));
        const stateStatements = statements.filter(onStates);
        const otherStatements = statements.filter((s) => !onStates(s));
        // Outside prod a trigger may start executions of the state machine, and do nothing else
        // with Step Functions; in prod (and for every other handler) Step Functions is out of reach.
        // The void-or-refund endpoint starts and describes executions of its own state machine only.
        const expectedStates = startsExecutions
          ? [['Allow', ['states:StartExecution'], [`\${${stateMachineId}}`]]]
          : handler === VOID_OR_REFUND_HANDLER
            ? [
                ['Allow', ['states:StartExecution'], [`\${${voidOrRefundId()}}`]],
                [
                  'Allow',
                  ['states:DescribeExecution'],
                  [expect.stringContaining(`"Ref":"${voidOrRefundId()}"`)],
                ],
              ]
            : [];
        expect(stateStatements.map((s) => [s.Effect, actionsOf(s), resourcesOfStatement(s)])).toEqual(
          expectedStates,
        );
        // The webhook routes: create and rotate may encrypt with the secrets key (and decrypt, to
        // answer a retried request the secret it sealed), replay may send to the webhook queue;
        // nothing else.
        const onWebhooks = (st: Statement): boolean =>
          !isDataKeyStatement(st) && actionsOf(st).some((a) => /^(kms|sqs):/.test(a));
        expect(statements.filter(onWebhooks).map((st) => [actionsOf(st), resourcesOfStatement(st)])).toEqual(
          WEBHOOK_SEALERS.includes(handler)
            ? [[['kms:Decrypt', 'kms:Encrypt'], [`\${${webhookKeyId()}.Arn}`]]]
            : handler === 'webhooks/replay'
              ? [[expect.arrayContaining(['sqs:SendMessage']), [`\${${webhookQueueId()}.Arn}`]]]
              : [],
        );
        for (const statement of otherStatements) {
          // The one Deny: no write of the registry, grants or audit (least-privilege.test.ts).
          if (statement.Effect === 'Deny') {
            expect(statement.Sid).toBe('NoWritesOfRegistryGrantsOrAudit');
            continue;
          }
          expect(statement.Effect).toBe('Allow');
          const stmtActions = actionsOf(statement);
          const resources = resourcesOfStatement(statement);
          if (stmtActions.every((a) => a.startsWith('xray:'))) continue; // X-Ray takes no resource ARN.
          if (onWebhooks(statement)) continue; // Checked above.
          if (isDataKeyStatement(statement)) continue; // Prod's table key: kms.test.ts.
          // The idempotency hash key's read, on the keyed routes: idempotency-key.test.ts.
          if (stmtActions.every((a) => a === 'secretsmanager:GetSecretValue')) continue;
          expect(stmtActions.every((a) => a.startsWith('dynamodb:') && a !== 'dynamodb:*')).toBe(true);
          expect(resources.every((r) => r === tableArn || r === `${tableArn}/index/*`)).toBe(true);
        }
        const [, role] =
          Object.entries(resourcesOf(template, 'AWS::IAM::Role')).find(([id]) => id === roleId) ?? [];
        expect(flatten((props(role as Resource).ManagedPolicyArns as unknown[])[0])).toMatch(
          /service-role\/AWSLambdaBasicExecutionRole$/,
        );
        expect(props(role as Resource).ManagedPolicyArns).toHaveLength(1);
      }
    });
  });

  describe('authentication', () => {
    it('has a user pool without self sign-up', () => {
      const [, pool] = only(resourcesOf(template, 'AWS::Cognito::UserPool'));
      expect(props(pool)).toMatchObject({
        UserPoolName: `scheduled-payments-${stage}`,
        AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
        DeletionProtection: retain ? 'ACTIVE' : 'INACTIVE',
      });
      expect(pool.DeletionPolicy).toBe(retain ? 'Retain' : 'Delete');
    });

    it('has a resource server for the stage scope host with the one API scope', () => {
      const [, server] = only(resourcesOf(template, 'AWS::Cognito::UserPoolResourceServer'));
      const p = props(server);
      expect(p).toMatchObject({ Identifier: scopeHost(stage), UserPoolId: { Ref: poolId } });
      expect(p.Scopes).toEqual([expect.objectContaining({ ScopeName: 'api.execute' })]);
      expect(`${String(p.Identifier)}/api.execute`).toBe(apiScope(stage));
    });

    it('has one client-credentials app client with a secret, the API scope and 6-hour tokens', () => {
      const [serverId] = only(resourcesOf(template, 'AWS::Cognito::UserPoolResourceServer'));
      const [, client] = only(resourcesOf(template, 'AWS::Cognito::UserPoolClient'));
      expect(props(client)).toMatchObject({
        UserPoolId: { Ref: poolId },
        GenerateSecret: true,
        AllowedOAuthFlowsUserPoolClient: true,
        AllowedOAuthFlows: ['client_credentials'],
        AllowedOAuthScopes: [apiScope(stage)],
        // CDK emits token validity in minutes: 360 minutes = 6 hours.
        AccessTokenValidity: 360,
        TokenValidityUnits: { AccessToken: 'minutes' },
      });
      expect(360 * 60).toBe(TOKEN_VALIDITY_SECONDS);
      expect(props(client).CallbackURLs).toBeUndefined();
      expect([client.DependsOn].flat()).toContain(serverId);
    });

    it('has a Cognito domain for the token endpoint', () => {
      const [, domain] = only(resourcesOf(template, 'AWS::Cognito::UserPoolDomain'));
      expect(props(domain).UserPoolId).toEqual({ Ref: poolId });
      const prefix = flatten(props(domain).Domain);
      expect(prefix.startsWith(`scheduled-payments-${stage}-`)).toBe(true);
      expect(prefix).not.toMatch(/aws|amazon|cognito/);
    });
  });

  describe('table', () => {
    it('is built from the table definition', () => {
      const [, table] = only(resourcesOf(template, 'AWS::DynamoDB::Table'));
      const p = props(table);
      expect(p).toMatchObject({
        TableName: tableName(stage),
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: tableDef.partitionKey.name, KeyType: 'HASH' },
          { AttributeName: tableDef.sortKey.name, KeyType: 'RANGE' },
        ],
        StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
        TimeToLiveSpecification: { AttributeName: tableDef.timeToLiveAttribute, Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      });
      // Prod is pre-warmed for the busiest slot's peak (docs/operating.md "The busiest slot").
      expect(p.WarmThroughput).toEqual(
        stage === 'prod' ? { WriteUnitsPerSecond: PROD_WARM_WRITE_UNITS } : undefined,
      );
      expect(p.GlobalSecondaryIndexes).toEqual(
        tableDef.globalSecondaryIndexes.map((index) => ({
          IndexName: index.indexName,
          KeySchema: [
            { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
            { AttributeName: index.sortKey.name, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
          // GSI1 (a merchant's events, the day index) is pre-warmed in prod too.
          ...(stage === 'prod' &&
            PROD_WARM_INDEX_WRITE_UNITS[index.indexName] !== undefined && {
              WarmThroughput: { WriteUnitsPerSecond: PROD_WARM_INDEX_WRITE_UNITS[index.indexName] },
            }),
        })),
      );
      if (stage === 'prod')
        expect(p.GlobalSecondaryIndexes).toContainEqual(
          expect.objectContaining({ IndexName: 'gsi1', WarmThroughput: { WriteUnitsPerSecond: 8_000 } }),
        );
      const keys = [
        tableDef.partitionKey,
        tableDef.sortKey,
        ...tableDef.globalSecondaryIndexes.flatMap((i) => [i.partitionKey, i.sortKey]),
      ];
      expect(p.AttributeDefinitions).toEqual(
        expect.arrayContaining(keys.map((k) => ({ AttributeName: k.name, AttributeType: k.type }))),
      );
      expect(p.AttributeDefinitions).toHaveLength(keys.length);
    });

    it(retain ? 'is deletion-protected and retained' : 'can be deleted with the stack', () => {
      const [, table] = only(resourcesOf(template, 'AWS::DynamoDB::Table'));
      expect(Boolean(props(table).DeletionProtectionEnabled)).toBe(retain);
      expect(table.DeletionPolicy).toBe(retain ? 'Retain' : 'Delete');
      expect(table.UpdateReplacePolicy).toBe(retain ? 'Retain' : 'Delete');
    });
  });

  describe('stack', () => {
    it('outputs what an operator and a client need', () => {
      const outputs = template.findOutputs('*');
      expect(Object.keys(outputs).sort()).toEqual([
        'AlarmTopicArn',
        'ApiUrl',
        'ClientId',
        'DashboardName',
        'StateMachineArn',
        'TableName',
        'TokenUrl',
        'UserPoolId',
      ]);
      const [clientId] = only(resourcesOf(template, 'AWS::Cognito::UserPoolClient'));
      const stateMachineId = processGroupId();
      const [topicId] = only(resourcesOf(template, 'AWS::SNS::Topic'));
      // A state machine's and a topic's Ref are their ARNs.
      expect(outputs.StateMachineArn?.Value).toEqual({ Ref: stateMachineId });
      expect(outputs.AlarmTopicArn?.Value).toEqual({ Ref: topicId });
      expect(outputs.ClientId?.Value).toEqual({ Ref: clientId });
      expect(outputs.TableName?.Value).toEqual({ Ref: tableId });
      expect(outputs.UserPoolId?.Value).toEqual({ Ref: poolId });
      expect(flatten(outputs.TokenUrl?.Value)).toMatch(
        /^https:\/\/.+\.auth\..+\.amazoncognito\.com\/oauth2\/token$/,
      );
      // The stage's Ref is its name (asserted `stage` above).
      const [apiId] = only(resourcesOf(template, 'AWS::ApiGateway::RestApi'));
      const [stageId] = only(resourcesOf(template, 'AWS::ApiGateway::Stage'));
      expect(flatten(outputs.ApiUrl?.Value)).toBe(
        `https://\${${apiId}}.execute-api.${prod ? PROD_CONTEXT.region : '${AWS::Region}'}.\${AWS::URLSuffix}/\${${stageId}}/`,
      );
    });

    it('tags resources with the service and the stage', () => {
      const [, table] = only(resourcesOf(template, 'AWS::DynamoDB::Table'));
      expect(props(table).Tags).toEqual(
        expect.arrayContaining([
          { Key: 'service', Value: 'scheduled-payments' },
          { Key: 'stage', Value: stage },
        ]),
      );
    });

    it(`${retain ? 'has' : 'does not have'} termination protection`, () => {
      expect(facts.terminationProtection).toBe(retain);
    });
  });
});
