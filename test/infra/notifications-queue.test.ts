/**
 * The notifier's queue between the outbox stream and the sender (docs/decisions.md, "E-mail
 * pacing"): the stream forwarder, least privilege, fills it; the notifier consumes it at a bounded
 * concurrency; messages that break 5 times go to the dead-letter queue; the rate is a context
 * value (`emailSendRate`), default 14 per second.
 */
import { addServiceStacks } from '#lib/cdk/app';
import { OUTBOX_FORWARDER_HANDLER } from '#contract/processing';
import type { Stage } from '#contract/stage';
import type { Template } from 'aws-cdk-lib/assertions';
import {
  getAtt,
  notificationsOf,
  QUEUE_ACTIONS,
  STREAM_ACTIONS,
  XRAY_ACTIONS,
  type Notifications,
} from '#support/cdk/notifications-stack';
import {
  actionsOf,
  flatten,
  props,
  resourcesOf,
  resourcesOfStatement,
  roleIdOf,
  roleStatements,
  SYNTH_TIMEOUT_MS,
  stageTemplate,
  stageSynthOf,
  testApp,
  type Resource,
  isDataKeyStatement,
  queueEncryptionOf,
} from '#support/cdk/synth';

const mappingsOf = (template: Template, functionId: string): Record<string, unknown>[] =>
  Object.values(resourcesOf(template, 'AWS::Lambda::EventSourceMapping'))
    .map(props)
    .filter((p) => flatten(p.FunctionName) === `\${${functionId}}`);

const variablesOf = (fn: Resource): Record<string, unknown> =>
  (props(fn).Environment as { Variables: Record<string, unknown> }).Variables;

describe.each(['dev', 'prod'] as const)('ScheduledPayments-%s notifier queue', (stage: Stage) => {
  let n: Notifications;
  let template: Template;
  beforeAll(() => {
    const synthesized = stageSynthOf(stage);
    template = synthesized.template;
    n = notificationsOf(synthesized, template, stage);
  }, SYNTH_TIMEOUT_MS);

  const queue = (): Record<string, unknown> =>
    props(resourcesOf(template, 'AWS::SQS::Queue')[n.workQueueId] as Resource);

  it('hands a message out again after 6 minutes (6 × the notifier timeout), and after 5 receives to the dead-letter queue', () => {
    expect(queue()).toMatchObject({
      QueueName: `scheduled-payments-${stage}-notifications`,
      VisibilityTimeout: 360,
      MessageRetentionPeriod: 4 * 86400,
      ...queueEncryptionOf(stage),
      RedrivePolicy: { deadLetterTargetArn: getAtt(n.deadLetterQueueId, 'Arn'), maxReceiveCount: 5 },
    });
    if (stage === 'dev') expect(queue()).not.toHaveProperty('KmsMasterKeyId');
  });

  it('refuses every request without TLS and grants nothing through its policy', () => {
    const policies = Object.values(resourcesOf(template, 'AWS::SQS::QueuePolicy'))
      .map(props)
      .filter((p) => (p.Queues as unknown[]).some((q) => flatten(q) === `\${${n.workQueueId}}`));
    expect(policies).toHaveLength(1);
    const statements = (policies[0]?.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement;
    expect(statements).toContainEqual({
      Effect: 'Deny',
      Principal: { AWS: '*' },
      Action: 'sqs:*',
      Resource: getAtt(n.workQueueId, 'Arn'),
      Condition: { Bool: { 'aws:SecureTransport': 'false' } },
    });
    expect(statements.filter((s) => s.Effect !== 'Deny')).toEqual([]);
  });

  it('feeds the notifier in batches of 10, at most 2 invocations at once, with partial failures', () => {
    const mappings = mappingsOf(template, n.notifierId);
    expect(mappings).toHaveLength(1);
    expect(mappings[0]).toMatchObject({
      EventSourceArn: getAtt(n.workQueueId, 'Arn'),
      BatchSize: 10,
      ScalingConfig: { MaximumConcurrency: 2 },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    // The queue has one consumer: the notifier.
    const consumers = Object.values(resourcesOf(template, 'AWS::Lambda::EventSourceMapping'))
      .map(props)
      .filter((p) => flatten(p.EventSourceArn) === `\${${n.workQueueId}.Arn}`);
    expect(consumers).toHaveLength(1);
  });

  /** The webhook queue (lib/cdk/webhooks.ts), which the forwarder fills with new events. */
  const webhookQueueId = (): string =>
    Object.entries(resourcesOf(template, 'AWS::SQS::Queue')).find(
      ([, r]) => props(r).QueueName === `scheduled-payments-${stage}-webhooks`,
    )![0];

  describe('stream forwarder', () => {
    it('runs on Node.js 22, arm64, traced, with the queue URLs and the table name (no access) and nothing else beyond the defaults', () => {
      expect(props(n.forwarder)).toMatchObject({
        FunctionName: `scheduled-payments-${stage}-notifications_enqueue-outbox`,
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        TracingConfig: { Mode: 'Active' },
        Description: `${OUTBOX_FORWARDER_HANDLER} (${stage})`,
      });
      const variables = variablesOf(n.forwarder);
      expect(Object.keys(variables).sort()).toEqual(
        [
          'NODE_OPTIONS',
          'NOTIFICATION_QUEUE_URL',
          'POWERTOOLS_LOG_LEVEL',
          'POWERTOOLS_SERVICE_NAME',
          'SERVICE_STAGE',
          'TABLE_NAME',
          'WEBHOOK_QUEUE_URL',
        ].sort(),
      );
      expect(variables).toMatchObject({
        NOTIFICATION_QUEUE_URL: { Ref: n.workQueueId },
        TABLE_NAME: { Ref: n.tableId },
        WEBHOOK_QUEUE_URL: { Ref: webhookQueueId() },
      });
    });

    it('may read the stream and send to the queues (and the dead-letter queue, its on-failure destination), nothing else', () => {
      const streamArn = `\${${n.tableId}.StreamArn}`;
      const allowed = (action: string, resource: string): boolean => {
        if (XRAY_ACTIONS.has(action)) return resource === '*';
        // ListStreams takes no stream ARN: CDK grants it on '*'.
        if (action === 'dynamodb:ListStreams') return resource === '*' || resource === streamArn;
        if (STREAM_ACTIONS.has(action)) return resource === streamArn;
        if (QUEUE_ACTIONS.has(action))
          return [n.workQueueId, n.deadLetterQueueId, webhookQueueId()].some(
            (id) => resource === `\${${id}.Arn}`,
          );
        return false;
      };
      // Prod's table and queues keys go with the stream and the queues (kms.test.ts).
      const statements = roleStatements(template, roleIdOf(n.forwarder)).filter(
        (s) => !isDataKeyStatement(s),
      );
      const pairs: [string, string][] = statements.flatMap((s) =>
        actionsOf(s).flatMap((a) => resourcesOfStatement(s).map((r): [string, string] => [a, r])),
      );
      expect(pairs.filter(([a, r]) => !allowed(a, r))).toEqual([]);
      expect(pairs).toContainEqual(['sqs:SendMessage', `\${${n.workQueueId}.Arn}`]);
      expect(pairs).toContainEqual(['sqs:SendMessage', `\${${webhookQueueId()}.Arn}`]);
      for (const action of STREAM_ACTIONS) expect(pairs).toContainEqual([action, streamArn]);
    });
  });
});

describe('emailSendRate context', () => {
  it(
    'sets the notifier rate and, at 10 per container, how many send at once',
    () => {
      const [stack] = addServiceStacks(testApp({ stage: 'dev', emailSendRate: '50' }));
      const template = stageTemplate(stack!);
      const n = notificationsOf(stack!, template, 'dev');
      expect(variablesOf(n.notifier)).toMatchObject({ EMAIL_SEND_RATE: '50', EMAIL_SEND_CONCURRENCY: '5' });
      expect(mappingsOf(template, n.notifierId)[0]).toMatchObject({
        ScalingConfig: { MaximumConcurrency: 5 },
      });
    },
    SYNTH_TIMEOUT_MS,
  );

  it.each(['0', '14.5', 'fast', '1001'])('refuses %j', (emailSendRate) => {
    expect(() => addServiceStacks(testApp({ stage: 'dev', emailSendRate }))).toThrow(
      /emailSendRate must be an integer from 1 to 1000/,
    );
  });
});
