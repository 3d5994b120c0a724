/** Shared parts of the notification infra tests (test/infra/notifications-stack.test.ts). */
import { Template } from 'aws-cdk-lib/assertions';
import { NOTIFIER_HANDLER, OUTBOX_FORWARDER_HANDLER } from '#contract/processing';
import type { Stage } from '#contract/stage';
import {
  actionsOf,
  flatten,
  functionIdOf,
  resourcesOf,
  resourcesOfStatement,
  roleIdOf,
  roleStatements,
  PROD_CONTEXT,
  props,
  type Resource,
  type StackPlace,
} from '#support/cdk/synth';

const DEFAULT_SENDER = 'payments@scheduled-payments.example';
export const DEFAULT_DOMAIN = 'scheduled-payments.example';
export const CUSTOM_SENDER = 'payments@payments.example.org';
export const CUSTOM_DOMAIN = 'payments.example.org';
/** Dev keeps the default sender; prod cannot synthesize without a verifiable one (PROD_CONTEXT). */
export const senderOf = (stage: Stage): string =>
  stage === 'prod' ? PROD_CONTEXT.senderAddress : DEFAULT_SENDER;
export const domainOf = (stage: Stage): string => senderOf(stage).split('@')[1] as string;

export const configurationSetName = (stage: Stage): string => `scheduled-payments-${stage}`;
export const queueName = (stage: Stage): string => `scheduled-payments-${stage}-notifier-failures`;
/** The notifier's queue, between the stream forwarder and the notifier. */
const workQueueName = (stage: Stage): string => `scheduled-payments-${stage}-notifications`;

/** What CDK's grantReadWriteData gives on the table and its indexes. */
export const TABLE_ACTIONS = new Set([
  'dynamodb:BatchGetItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DeleteItem',
  'dynamodb:DescribeTable',
  'dynamodb:GetItem',
  'dynamodb:GetRecords',
  'dynamodb:GetShardIterator',
  'dynamodb:PutItem',
  'dynamodb:Query',
  'dynamodb:Scan',
  'dynamodb:UpdateItem',
]);
/** What the DynamoDB event source adds to read the stream. */
export const STREAM_ACTIONS = new Set([
  'dynamodb:DescribeStream',
  'dynamodb:GetRecords',
  'dynamodb:GetShardIterator',
]);
/** What the SQS on-failure destination (and any grant to send) adds. */
export const QUEUE_ACTIONS = new Set(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage']);
/** What an SQS event source adds to consume its queue. */
export const CONSUME_ACTIONS = new Set([
  'sqs:ReceiveMessage',
  'sqs:ChangeMessageVisibility',
  'sqs:GetQueueUrl',
  'sqs:DeleteMessage',
  'sqs:GetQueueAttributes',
]);
export const XRAY_ACTIONS = new Set(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);

const only = (record: Record<string, Resource>): [string, Resource] => {
  const entries = Object.entries(record);
  expect(entries).toHaveLength(1);
  return entries[0] as [string, Resource];
};

export const getAtt = (id: string, attribute: string): { 'Fn::GetAtt': [string, string] } => ({
  'Fn::GetAtt': [id, attribute],
});

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The parts of a stack the notification tests look at. */
export interface Notifications {
  template: Template;
  tableId: string;
  identityId: string;
  configurationSetId: string;
  notifierId: string;
  notifier: Resource;
  forwarderId: string;
  forwarder: Resource;
  /** The notifier's queue and the dead-letter queue. */
  workQueueId: string;
  deadLetterQueueId: string;
  region: string;
  account: string;
}

export function notificationsOf(place: StackPlace, template: Template, stage: Stage): Notifications {
  const [tableId] = only(resourcesOf(template, 'AWS::DynamoDB::Table'));
  const [identityId] = only(resourcesOf(template, 'AWS::SES::EmailIdentity'));
  const [configurationSetId] = only(resourcesOf(template, 'AWS::SES::ConfigurationSet'));
  const notifierId = functionIdOf(template, stage, NOTIFIER_HANDLER);
  const notifier = resourcesOf(template, 'AWS::Lambda::Function')[notifierId] as Resource;
  const forwarderId = functionIdOf(template, stage, OUTBOX_FORWARDER_HANDLER);
  const forwarder = resourcesOf(template, 'AWS::Lambda::Function')[forwarderId] as Resource;
  const queueNamed = (name: string): string =>
    only(
      Object.fromEntries(
        Object.entries(resourcesOf(template, 'AWS::SQS::Queue')).filter(
          ([, q]) => props(q).QueueName === name,
        ),
      ),
    )[0];
  return {
    template,
    tableId,
    identityId,
    configurationSetId,
    notifierId,
    notifier,
    forwarderId,
    forwarder,
    workQueueId: queueNamed(workQueueName(stage)),
    deadLetterQueueId: queueNamed(queueName(stage)),
    region: place.region,
    account: place.account,
  };
}

/** Whether a CloudFormation value is the configuration set's name: the literal, or a Ref to it. */
export const namesConfigurationSet = (n: Notifications, value: unknown, stage: Stage): boolean =>
  flatten(value) === configurationSetName(stage) || flatten(value) === `\${${n.configurationSetId}}`;

/** The resources `ses:SendEmail` is allowed on, as flattened strings. */
export const sesResources = (n: Notifications): string[] =>
  roleStatements(n.template, roleIdOf(n.notifier))
    .filter((s) => actionsOf(s).some((a) => a.startsWith('ses:')))
    .flatMap(resourcesOfStatement);

/** `arn:<partition>:ses:<region>:<account>:<rest>`, the partition literal or `${AWS::Partition}`. */
const sesArn = (n: Notifications, rest: string): RegExp =>
  new RegExp(
    `^arn:(aws|\\$\\{AWS::Partition\\}):ses:${escape(n.region)}:${escape(n.account)}:${escape(rest)}$`,
  );

/**
 * The ses:SendEmail grant is exactly the stage's identities and configuration set: prod its
 * domain identity; dev any identity of the account, as the SES sandbox also authorizes the
 * verified recipients (the sender stays fixed by the ses:FromAddress condition).
 */
export function expectSendEmailOnlyAs(n: Notifications, stage: Stage, domain: string): void {
  const resources = sesResources(n);
  expect(resources).toHaveLength(2);
  const identities = stage === 'prod' ? `identity/${domain}` : 'identity/*';
  const identity = resources.filter((r) => sesArn(n, identities).test(r));
  const configurationSet = resources.filter(
    (r) =>
      sesArn(n, `configuration-set/${configurationSetName(stage)}`).test(r) ||
      sesArn(n, `configuration-set/\${${n.configurationSetId}}`).test(r),
  );
  expect([identity, configurationSet]).toEqual([[expect.any(String)], [expect.any(String)]]);
}
