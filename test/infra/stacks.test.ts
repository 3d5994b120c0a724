/**
 * The stacks stay deployable (issue 18, item 7): a stage is one stack with nested stacks
 * (lib/cdk/stacks.ts), each far under CloudFormation's 500 resources; this fails any stack over
 * MAX_RESOURCES and prints the counts, which docs/operating.md ("Stacks") states per stage. The
 * functions sit in nested stacks by concern, an API handler's by its area; what keeps state or a
 * name others rely on stays in the stage stack under the logical id it has always had.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Stack } from 'aws-cdk-lib';
import { ACCOUNT_UPDATER_JOB } from '#contract/account-updater';
import { RETURN_RATES_JOB } from '#contract/return-rates';
import { NOTICE_BACKSTOP_JOB } from '#contract/notices';
import { handlerModules } from '#contract/routes/index';
import {
  DUE_START_HANDLER,
  NOTIFIER_HANDLER,
  OUTBOX_FORWARDER_HANDLER,
  processGroupTasks,
  RECONCILIATION,
  SCHEDULER_HANDLER,
  SWEEPER_HANDLER,
  voidOrRefundTasks,
} from '#contract/processing';
import { SERIES_JOB } from '#contract/series';
import type { Stage } from '#contract/stage';
import { WEBHOOK_DELIVERY_HANDLER, WEBHOOK_RECOVERY_HANDLER } from '#contract/webhooks';
import { addServiceStacks } from '#lib/cdk/app';
import type { ServiceStack } from '#lib/cdk/service-stack';
import {
  API_AREA_STACKS,
  apiStackOf,
  areaOf,
  DEFAULT_API_STACK,
  NESTED_STACKS,
  type NestedStackId,
} from '#lib/cdk/stacks';
import {
  functionName,
  PROD_CONTEXT,
  props,
  resourcesOf,
  stageStacks,
  SYNTH_TIMEOUT_MS,
  testApp,
} from '#support/cdk/synth';

/** The most resources any stack of a stage may hold: CloudFormation's limit is 500. */
const MAX_RESOURCES = 400;

/** What a nested stack may hold: functions and what is theirs alone (and CDK's version metadata). */
const FUNCTION_PARTS = [
  'AWS::CDK::Metadata',
  'AWS::Lambda::Function',
  'AWS::IAM::Role',
  'AWS::IAM::Policy',
  'AWS::Logs::LogGroup',
  'AWS::Lambda::Permission',
  'AWS::Lambda::EventSourceMapping',
  // How many times Lambda runs a failed asynchronous invocation again (lib/cdk/scheduled-job.ts).
  'AWS::Lambda::EventInvokeConfig',
];

/**
 * Resources of the stage stack whose logical id must never change (CloudFormation would replace
 * them): kept data, integrators' credentials and URL, execution history, queued messages, the
 * verified SES identity, the on-call's subscriptions, retained logs.
 */
const KEPT_LOGICAL_IDS: Record<string, string> = {
  DataTableFDBAD0F2: 'AWS::DynamoDB::Table',
  AuthUserPool8115E87F: 'AWS::Cognito::UserPool',
  AuthUserPoolResourceServerADA84D6F: 'AWS::Cognito::UserPoolResourceServer',
  AuthUserPoolDomain31C6792A: 'AWS::Cognito::UserPoolDomain',
  AuthUserPoolClientCredentialsClient1BF4AB6E: 'AWS::Cognito::UserPoolClient',
  ApiRestApiE35FEAFE: 'AWS::ApiGateway::RestApi',
  ApiAccessLogs50B185DB: 'AWS::Logs::LogGroup',
  ProcessingProcessGroupC92858B8: 'AWS::StepFunctions::StateMachine',
  ProcessingExecutionLogsE77D86C8: 'AWS::Logs::LogGroup',
  VoidOrRefund503763B1: 'AWS::StepFunctions::StateMachine',
  VoidOrRefundExecutionLogs382EAE8B: 'AWS::Logs::LogGroup',
  ProcessingAlarms36087699: 'AWS::SNS::Topic',
  NotificationsIdentityA49D18D4: 'AWS::SES::EmailIdentity',
  NotificationsConfigurationSet428CEBEB: 'AWS::SES::ConfigurationSet',
  NotificationsNotifierQueue0F74AEA5: 'AWS::SQS::Queue',
  NotificationsNotifierFailures29CD97F4: 'AWS::SQS::Queue',
  MonitoringDashboard0C3675C6: 'AWS::CloudWatch::Dashboard',
};

const stacks = new Map<Stage, ServiceStack>();
beforeAll(() => {
  // Both stages in one app, as `cdk synth` builds them with prod's context, with the
  // AWS::CDK::Metadata resource the CLI adds to each stack (version reporting): counted as deployed.
  const app = testApp({ ...PROD_CONTEXT, devAccount: '111111111111', 'aws:cdk:version-reporting': true });
  for (const stack of addServiceStacks(app)) stacks.set(stack.stage, stack);
}, SYNTH_TIMEOUT_MS);

const stackOf = (stage: Stage): ServiceStack => {
  const stack = stacks.get(stage);
  if (stack === undefined) throw new Error(`no ${stage} stack`);
  return stack;
};

/** Each stack of a stage (the stage stack as `ScheduledPayments-<stage>`) with its resource count. */
const counts = (stage: Stage): Map<string, number> =>
  new Map(
    stageStacks(stackOf(stage)).map(({ id, template }) => [
      id === stackOf(stage).stackName ? 'ScheduledPayments-<stage>' : id,
      Object.keys(template.toJSON().Resources as object).length,
    ]),
  );

describe.each(['dev', 'prod'] as const)('ScheduledPayments-%s stacks', (stage) => {
  it(`keeps every stack, the stage stack and each nested one, at ${MAX_RESOURCES} resources or fewer`, () => {
    const all = counts(stage);
    console.log(
      `resources per stack, ${stage} (at most ${MAX_RESOURCES}; CloudFormation's limit is 500):\n` +
        [...all].map(([id, n]) => `  ${id.padEnd(26)} ${String(n).padStart(3)}`).join('\n'),
    );
    expect(all.size).toBeGreaterThan(1);
    const over = [...all].filter(([, n]) => n > MAX_RESOURCES);
    expect(over).toEqual([]);
  });

  it('holds every function in a nested stack, and nothing in a nested stack but functions and what is theirs', () => {
    const [stageStack, ...nested] = stageStacks(stackOf(stage));
    expect(Object.keys(resourcesOf(stageStack!.template, 'AWS::Lambda::Function'))).toEqual([]);
    for (const { id, template } of nested) {
      const types = new Set(
        Object.values(template.toJSON().Resources as Record<string, { Type: string }>).map((r) => r.Type),
      );
      expect([id, [...types].filter((t) => !FUNCTION_PARTS.includes(t))]).toEqual([id, []]);
      expect([id, types.has('AWS::Lambda::Function')]).toEqual([id, true]);
    }
  });

  it('puts each API handler in the nested stack of its area, and each background function in the stack of its concern', () => {
    const where = new Map<string, string>();
    for (const { id, template } of stageStacks(stackOf(stage)).slice(1))
      for (const fn of Object.values(resourcesOf(template, 'AWS::Lambda::Function')))
        where.set(String(props(fn).FunctionName), id);
    const expected: [string, NestedStackId][] = [
      ...handlerModules().map((h): [string, NestedStackId] => [h, apiStackOf(h)]),
      ...processGroupTasks.map((t): [string, NestedStackId] => [t.handler, 'ProcessingFunctions']),
      ...voidOrRefundTasks.map((t): [string, NestedStackId] => [t.handler, 'VoidOrRefundFunctions']),
      ...[SCHEDULER_HANDLER, DUE_START_HANDLER, SWEEPER_HANDLER, RECONCILIATION.handler].map(
        (h): [string, NestedStackId] => [h, 'ScheduledFunctions'],
      ),
      [OUTBOX_FORWARDER_HANDLER, 'NotificationFunctions'],
      [NOTIFIER_HANDLER, 'NotificationFunctions'],
      [WEBHOOK_DELIVERY_HANDLER, 'WebhookFunctions'],
      ...[
        WEBHOOK_RECOVERY_HANDLER,
        SERIES_JOB.handler,
        ACCOUNT_UPDATER_JOB.handler,
        RETURN_RATES_JOB.handler,
        NOTICE_BACKSTOP_JOB.handler,
      ].map((h): [string, NestedStackId] => [h, 'ScheduledFunctions']),
    ];
    expect(expected.map(([h]) => [h, where.get(functionName(stage, h))])).toEqual(expected);
    expect(where.size).toBe(expected.length);
    // Today's areas each have a stack of their own: none falls to the default.
    expect(handlerModules().map(apiStackOf)).not.toContain(DEFAULT_API_STACK);
  });

  it('keeps what must not be replaced in the stage stack, under the logical ids it has always had', () => {
    const [stageStack] = stageStacks(stackOf(stage));
    const resources = stageStack!.template.toJSON().Resources as Record<string, { Type: string }>;
    expect(Object.keys(KEPT_LOGICAL_IDS).map((id) => [id, resources[id]?.Type])).toEqual(
      Object.entries(KEPT_LOGICAL_IDS),
    );
    // The API's resources, methods and stage, the alarms and the schedules stay there too: a
    // method is API Gateway's (resource, HTTP method), which a second stack could not create while
    // the first still holds it.
    for (const type of [
      'AWS::ApiGateway::Resource',
      'AWS::ApiGateway::Method',
      'AWS::ApiGateway::Stage',
      'AWS::ApiGateway::Deployment',
      'AWS::CloudWatch::Alarm',
      'AWS::Events::Rule',
    ])
      expect([type, Object.keys(resourcesOf(stageStack!.template, type)).length > 0]).toEqual([type, true]);
  });

  it('describes each nested stack with the stage and what it holds', () => {
    for (const { id, stack } of stageStacks(stackOf(stage)).slice(1)) {
      const description = (stack as Stack).templateOptions.description;
      expect(description).toBe(
        `Scheduled Payments Service (${stage}): ${NESTED_STACKS[id as NestedStackId]}`,
      );
    }
  });
});

describe('the stack of an API handler', () => {
  it('comes from its area, the folder of its module, with ApiOther for an area without a stack', () => {
    expect(areaOf('groups/create-group')).toBe('groups');
    expect(
      [
        'groups/get-group-report',
        'payments/add-payment',
        'methods/add-method',
        'webhooks/rotate-webhook-secret',
        'events/list-events',
        'settings/update-settings',
        'series/create-series',
        'reports/group-report',
      ].map(apiStackOf),
    ).toEqual([
      'ApiGroups',
      'ApiGroups',
      'ApiPayors',
      'ApiWebhooks',
      'ApiWebhooks',
      'ApiSettings',
      'ApiSeries',
      'ApiOther',
    ]);
    for (const id of [...Object.values(API_AREA_STACKS), DEFAULT_API_STACK])
      expect(Object.keys(NESTED_STACKS)).toContain(id);
  });
});

describe('docs/operating.md', () => {
  it('gives the resources of each stack on each stage as the synthesized templates have them', () => {
    const guide = readFileSync(join(__dirname, '..', '..', 'docs', 'operating.md'), 'utf8');
    const section = guide.slice(guide.indexOf('### Stacks'));
    const rows = new Map(
      [...section.matchAll(/^\| `?([\w<>-]+)`?\s*\|[^|\n]*\| (\d+)\s*\| (\d+)\s*\|$/gm)].map(
        ([, id, dev, prod]) => [id!, [Number(dev), Number(prod)]],
      ),
    );
    const [dev, prod] = [counts('dev'), counts('prod')];
    const ids = [...new Set([...dev.keys(), ...prod.keys()])];
    expect(ids.map((id) => [id, rows.get(id)])).toEqual(
      ids.map((id) => [id, [dev.get(id) ?? 0, prod.get(id) ?? 0]]),
    );
  });
});
