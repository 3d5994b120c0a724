/**
 * The health route in the cloud (lib/cdk/api-health.ts): `GET /health` answered by API Gateway's
 * MOCK integration with the fixed body, and `ANY` beside it answering 405 with `Allow: GET`; no
 * authorizer on either, and no function behind them; the stage's throttling and its WAF cover them
 * as they cover every route (one stage, throttled on every path and method, the WAF on that
 * stage); cdk-nag's two authorization rules acknowledged on exactly those two methods.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { HEALTH } from '#contract/health';
import type { Stage } from '#contract/stage';
import {
  flatten,
  props,
  resourcePaths,
  resourcesOf,
  stageSynthOf,
  SYNTH_TIMEOUT_MS,
  type Resource,
  type StageFacts,
} from '#support/cdk/synth';

type Json = Record<string, any>;

describe.each(['dev', 'prod'] as Stage[])('ScheduledPayments-%s health route', (stage) => {
  let template: Template;
  let acknowledgements: StageFacts['acknowledgements'];
  let methods: (Json & { path: string })[];
  beforeAll(() => {
    ({ acknowledgements, template } = stageSynthOf(stage));
    const paths = resourcePaths(template);
    methods = Object.values(resourcesOf(template, 'AWS::ApiGateway::Method')).map((m: Resource) => {
      const p = props(m) as Json;
      const resourceId = (p.ResourceId as { Ref?: string }).Ref;
      return { ...p, path: resourceId === undefined ? '/' : paths.get(resourceId)! };
    });
  }, SYNTH_TIMEOUT_MS);
  const onHealth = () => methods.filter((m) => m.path === HEALTH.path);

  it('defect: no health route for uptime checks: GET /health is answered by a MOCK with the fixed body, without an authorizer', () => {
    const get = onHealth().find((m) => m.HttpMethod === 'GET')!;
    expect(get).toMatchObject({
      AuthorizationType: 'NONE',
      OperationName: HEALTH.id,
      Integration: { Type: 'MOCK' },
    });
    expect(get).not.toHaveProperty('AuthorizerId');
    expect(get).not.toHaveProperty('AuthorizationScopes');
    // No function behind it: a mock has no URI, and no permission names the path.
    expect(get.Integration).not.toHaveProperty('Uri');
    const [response, ...others] = get.Integration.IntegrationResponses as Json[];
    expect(others).toEqual([]);
    // No selection pattern: the default response, whatever the request is.
    expect(response).not.toHaveProperty('SelectionPattern');
    expect(response).toMatchObject({
      StatusCode: '200',
      ResponseParameters: {
        'method.response.header.Content-Type': "'application/json'",
        'method.response.header.Cache-Control': "'no-store'",
      },
    });
    // Exactly the documented body: no stage, version, time or data.
    expect(JSON.parse(response!.ResponseTemplates['application/json'])).toEqual({ status: 'ok' });
    const permissions = Object.values(resourcesOf(template, 'AWS::Lambda::Permission')).map(props);
    expect(permissions.filter((p) => flatten(p.SourceArn).includes(HEALTH.path))).toEqual([]);
  });

  it('answers any other method 405 with Allow: GET, also without an authorizer', () => {
    const other = onHealth().filter((m) => m.HttpMethod !== 'GET');
    expect(other.map((m) => m.HttpMethod)).toEqual(['ANY']);
    expect(other[0]).toMatchObject({ AuthorizationType: 'NONE', Integration: { Type: 'MOCK' } });
    const [response] = other[0]!.Integration.IntegrationResponses as Json[];
    expect(response).toMatchObject({
      StatusCode: '405',
      ResponseParameters: { 'method.response.header.Allow': "'GET'" },
    });
    expect(JSON.parse(response!.ResponseTemplates['application/json'])).toEqual({
      message: 'Method not allowed: this path answers GET',
      responseCode: 405,
    });
  });

  it('is the only path without the Cognito authorizer', () => {
    const open = methods.filter((m) => m.AuthorizationType !== 'COGNITO_USER_POOLS');
    expect(open.map((m) => `${m.HttpMethod} ${m.path}`).sort()).toEqual(['ANY /health', 'GET /health']);
  });

  it('is throttled and filtered like every route: the one stage, throttled on every path, the WAF on it', () => {
    const stages = Object.entries(resourcesOf(template, 'AWS::ApiGateway::Stage'));
    expect(stages).toHaveLength(1);
    const [stageId, apiStage] = stages[0]!;
    const settings = props(apiStage).MethodSettings as Json[];
    // The stage-wide throttle (every resource, every method), and no setting of a path of its own
    // that could lift it for the health route.
    expect(settings).toEqual([
      expect.objectContaining({
        HttpMethod: '*',
        ResourcePath: '/*',
        ThrottlingRateLimit: expect.any(Number),
      }),
    ]);
    const [association] = Object.values(resourcesOf(template, 'AWS::WAFv2::WebACLAssociation')).map(props);
    expect(flatten(association!.ResourceArn)).toContain(`/stages/\${${stageId}}`);
    // The methods belong to the deployment of that stage, as every route does.
    const deployments = Object.keys(resourcesOf(template, 'AWS::ApiGateway::Deployment'));
    expect(deployments).toHaveLength(1);
    expect(flatten(props(apiStage).DeploymentId)).toContain(deployments[0]!);
  });

  it("acknowledges cdk-nag's authorization rules on those two methods only, with the reason", () => {
    const acknowledged = acknowledgements.filter((a) => /^AwsSolutions-(APIG4|COG4)$/.test(a.rule));
    expect(acknowledged.map((a) => `${a.rule} ${a.path.split('/').slice(-2).join('/')}`).sort()).toEqual([
      'AwsSolutions-APIG4 health/ANY',
      'AwsSolutions-APIG4 health/GET',
      'AwsSolutions-COG4 health/ANY',
      'AwsSolutions-COG4 health/GET',
    ]);
    for (const { reason } of acknowledged) expect(reason).toContain('holds no data and calls no function');
  });
});
