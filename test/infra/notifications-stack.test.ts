/**
 * E-mail in the cloud: the SES identity of the sender's domain and the configuration set, the
 * notifier that consumes its queue, its least-privilege role, the stream forwarder's feed, the
 * dead-letter queue, the configuration set's sending events and the alarms. The queue between
 * them is test/infra/notifications-queue.test.ts.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { addServiceStacks } from '#lib/cdk/app';
import { actionsOf as actionsUsed } from '#lib/cdk/access';
import { SES_DIMENSION } from '#lib/cdk/notifications';
import type { ServiceStack } from '#lib/cdk/service-stack';
import { NOTIFIER_HANDLER } from '#contract/processing';
import type { Stage } from '#contract/stage';
import {
  DEFAULT_DOMAIN,
  CUSTOM_SENDER,
  CUSTOM_DOMAIN,
  senderOf,
  domainOf,
  configurationSetName,
  queueName,
  TABLE_ACTIONS,
  QUEUE_ACTIONS,
  CONSUME_ACTIONS,
  XRAY_ACTIONS,
  getAtt,
  notificationsOf,
  namesConfigurationSet,
  sesResources,
  expectSendEmailOnlyAs,
  type Notifications,
} from '#support/cdk/notifications-stack';
import {
  actionsOf,
  flatten,
  PROD_CONTEXT,
  props,
  resourcesOf,
  resourcesOfStatement,
  roleIdOf,
  roleStatements,
  SYNTH_TIMEOUT_MS,
  stageTemplate,
  placeOf,
  stageSynthOf,
  testApp,
  type Resource,
  isDataKeyStatement,
  queueEncryptionOf,
} from '#support/cdk/synth';

describe.each(['dev', 'prod'] as const)('ScheduledPayments-%s notifications', (stage: Stage) => {
  let n: Notifications;
  let template: Template;
  let queueId: string;
  let topicRef: { Ref: string };
  beforeAll(() => {
    const synthesized = stageSynthOf(stage);
    template = synthesized.template;
    n = notificationsOf(synthesized, template, stage);
    const queues = Object.entries(resourcesOf(template, 'AWS::SQS::Queue')).filter(
      ([, q]) => props(q).QueueName === queueName(stage),
    );
    expect(queues).toHaveLength(1);
    queueId = (queues[0] as [string, Resource])[0];
    topicRef = template.findOutputs('AlarmTopicArn').AlarmTopicArn?.Value as { Ref: string };
  }, SYNTH_TIMEOUT_MS);

  const queueArn = (): string => `\${${queueId}.Arn}`;
  const workQueueArn = (): string => `\${${n.workQueueId}.Arn}`;
  const streamArn = (): string => `\${${n.tableId}.StreamArn}`;

  describe('SES', () => {
    it(`verifies the sender's domain ${domainOf(stage)} as the e-mail identity`, () => {
      const identity = resourcesOf(template, 'AWS::SES::EmailIdentity')[n.identityId] as Resource;
      expect(props(identity).EmailIdentity).toBe(domainOf(stage));
    });

    it('sends the sends, bounces and complaints of the configuration set to CloudWatch, by set name', () => {
      const destinations = Object.values(
        resourcesOf(template, 'AWS::SES::ConfigurationSetEventDestination'),
      ).map(props);
      expect(destinations).toHaveLength(1);
      const destination = destinations[0] as {
        ConfigurationSetName: unknown;
        EventDestination: Record<string, unknown>;
      };
      expect(namesConfigurationSet(n, destination.ConfigurationSetName, stage)).toBe(true);
      expect(destination.EventDestination).toMatchObject({
        Enabled: true,
        MatchingEventTypes: expect.arrayContaining(['send', 'bounce', 'complaint']),
        CloudWatchDestination: {
          DimensionConfigurations: [
            {
              DimensionName: SES_DIMENSION,
              DimensionValueSource: 'messageTag',
              DefaultDimensionValue: expect.anything(),
            },
          ],
        },
      });
      const [dimension] = (
        destination.EventDestination.CloudWatchDestination as {
          DimensionConfigurations: { DefaultDimensionValue: unknown }[];
        }
      ).DimensionConfigurations;
      expect(namesConfigurationSet(n, dimension?.DefaultDimensionValue, stage)).toBe(true);
    });

    it(`has the configuration set ${configurationSetName(stage)}, sending enabled`, () => {
      const set = resourcesOf(template, 'AWS::SES::ConfigurationSet')[n.configurationSetId] as Resource;
      expect(props(set)).toMatchObject({
        Name: configurationSetName(stage),
        SendingOptions: { SendingEnabled: true },
      });
    });
  });

  describe('notifier', () => {
    it('runs on Node.js 22, arm64, traced, with a 60 s timeout, for this stage', () => {
      expect(props(n.notifier)).toMatchObject({
        FunctionName: `scheduled-payments-${stage}-notifications_send-notifications`,
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        Timeout: 60,
        TracingConfig: { Mode: 'Active' },
        Description: `${NOTIFIER_HANDLER} (${stage})`,
      });
    });

    it('gets the sender address, the configuration set, the table, its queue and its rate, and nothing else beyond the defaults', () => {
      const variables = (props(n.notifier).Environment as { Variables: Record<string, unknown> }).Variables;
      expect(Object.keys(variables).sort()).toEqual(
        [
          'EMAIL_SEND_CONCURRENCY',
          'EMAIL_SEND_RATE',
          'NOTIFICATION_QUEUE_URL',
          'NODE_OPTIONS',
          'POWERTOOLS_LOG_LEVEL',
          'POWERTOOLS_SERVICE_NAME',
          'SERVICE_STAGE',
          'SES_CONFIGURATION_SET',
          'SES_FROM_ADDRESS',
          'TABLE_NAME',
        ].sort(),
      );
      expect(variables).toMatchObject({
        SERVICE_STAGE: stage,
        POWERTOOLS_SERVICE_NAME: 'scheduled-payments',
        SES_FROM_ADDRESS: senderOf(stage),
        TABLE_NAME: { Ref: n.tableId },
        // SES's rate of a new account, shared by two senders at most.
        EMAIL_SEND_RATE: '14',
        EMAIL_SEND_CONCURRENCY: '2',
        NOTIFICATION_QUEUE_URL: { Ref: n.workQueueId },
      });
      expect(namesConfigurationSet(n, variables.SES_CONFIGURATION_SET, stage)).toBe(true);
    });

    it(`may send e-mail only from the sender address, ${stage === 'prod' ? 'as its domain identity' : 'as any identity (SES sandbox)'}, through the configuration set`, () => {
      expectSendEmailOnlyAs(n, stage, domainOf(stage));
      const ses = roleStatements(template, roleIdOf(n.notifier)).filter((s) =>
        actionsOf(s).some((a) => a.startsWith('ses:')),
      );
      expect(ses.flatMap(actionsOf)).toEqual(['ses:SendEmail']);
      for (const s of ses) {
        expect(s.Effect).toBe('Allow');
        expect(s.Condition).toEqual({ StringEquals: { 'ses:FromAddress': senderOf(stage) } });
      }
    });

    it('holds nothing else than the table, its queue (to consume it and to put retries back) and X-Ray', () => {
      const roleId = roleIdOf(n.notifier);
      const role = resourcesOf(template, 'AWS::IAM::Role')[roleId] as Resource;
      // Logs go through the AWS managed basic execution role, and only that.
      expect((props(role).ManagedPolicyArns as unknown[]).map(flatten)).toEqual([
        'arn:${AWS::Partition}:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole',
      ]);

      const tableArn = `\${${n.tableId}.Arn}`;
      const allowed = (action: string, resource: string): boolean => {
        if (action.startsWith('ses:')) return action === 'ses:SendEmail'; // checked exactly above
        if (XRAY_ACTIONS.has(action)) return resource === '*';
        if (TABLE_ACTIONS.has(action)) return resource === tableArn || resource === `${tableArn}/index/*`;
        if (QUEUE_ACTIONS.has(action) || CONSUME_ACTIONS.has(action)) return resource === workQueueArn();
        return false;
      };
      const pairs: [string, string][] = [];
      for (const s of roleStatements(template, roleId)) {
        // The one Deny: no write of the registry, grants or audit (least-privilege.test.ts).
        if (s.Effect === 'Deny' && s.Sid === 'NoWritesOfRegistryGrantsOrAudit') continue;
        // Prod's table and queues keys go with the table and the queue (kms.test.ts).
        if (isDataKeyStatement(s)) continue;
        expect(s.Effect).toBe('Allow');
        for (const key of ['NotAction', 'NotResource']) expect(s).not.toHaveProperty(key);
        // Only the SES statement has a condition (asserted above).
        if (!actionsOf(s).includes('ses:SendEmail')) expect(s).not.toHaveProperty('Condition');
        for (const action of actionsOf(s))
          for (const resource of resourcesOfStatement(s)) pairs.push([action, resource]);
      }
      expect(pairs.filter(([a, r]) => !allowed(a, r))).toEqual([]);

      // And what it needs is there.
      const has = (action: string, resource: string): boolean =>
        pairs.some(([a, r]) => a === action && r === resource);
      // The table actions its code uses (lib/cdk/access.ts), no more: it reads and updates items.
      for (const action of actionsUsed(NOTIFIER_HANDLER, 'dynamodb'))
        expect([action, has(action, tableArn)]).toEqual([action, true]);
      expect([...new Set(pairs.filter(([a]) => a.startsWith('dynamodb:')).map(([a]) => a))].sort()).toEqual(
        actionsUsed(NOTIFIER_HANDLER, 'dynamodb'),
      );
      for (const action of CONSUME_ACTIONS)
        expect([action, has(action, workQueueArn())]).toEqual([action, true]);
      expect(has('sqs:SendMessage', workQueueArn())).toBe(true);
      // Not the stream (the forwarder reads it), not the dead-letter queue (SQS moves messages).
      expect(pairs.filter(([, r]) => r === streamArn() || r === queueArn())).toEqual([]);
    });
  });

  describe('stream', () => {
    it('has a stream with new images on the table', () => {
      const table = resourcesOf(template, 'AWS::DynamoDB::Table')[n.tableId] as Resource;
      const viewType = (props(table).StreamSpecification as { StreamViewType?: string } | undefined)
        ?.StreamViewType;
      expect(['NEW_IMAGE', 'NEW_AND_OLD_IMAGES']).toContain(viewType);
    });

    it('feeds new outbox items and new events to the stream forwarder in batches of 100 with partial failures, bisection and retries', () => {
      const mappings = Object.values(resourcesOf(template, 'AWS::Lambda::EventSourceMapping'))
        .map(props)
        .filter((p) => flatten(p.FunctionName) === `\${${n.forwarderId}}`);
      expect(mappings).toHaveLength(1);
      const mapping = mappings[0] as Record<string, unknown>;
      expect(mapping).toMatchObject({
        EventSourceArn: getAtt(n.tableId, 'StreamArn'),
        StartingPosition: 'TRIM_HORIZON',
        BatchSize: 100,
        MaximumRetryAttempts: 10,
        BisectBatchOnFunctionError: true,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        MaximumRecordAgeInSeconds: 86400,
        DestinationConfig: { OnFailure: { Destination: getAtt(queueId, 'Arn') } },
      });
      expect(mapping.Enabled ?? true).toBe(true);

      const filters = (mapping.FilterCriteria as { Filters: { Pattern: string }[] }).Filters;
      // Outbox items for e-mail, event items for webhooks (lib/cdk/webhooks.ts); nothing else.
      expect(filters.map((f) => JSON.parse(f.Pattern) as unknown)).toEqual(
        ['outbox', 'event'].map((entity) => ({
          eventName: ['INSERT'],
          dynamodb: { NewImage: { entity: { S: [entity] } } },
        })),
      );
    });

    it('is the only consumer of the stream', () => {
      const consumers = Object.values(resourcesOf(template, 'AWS::Lambda::EventSourceMapping'))
        .map(props)
        .filter((p) => flatten(p.EventSourceArn) === streamArn());
      expect(consumers.map((p) => p.FunctionName)).toEqual([{ Ref: n.forwarderId }]);
    });
  });

  describe("dead-letter queue (the forwarder's on-failure destination, the notifier queue's redrive target)", () => {
    it('keeps failed records and messages 14 days, encrypted (prod: the queues key; dev: SQS managed keys)', () => {
      const queue = resourcesOf(template, 'AWS::SQS::Queue')[queueId] as Resource;
      expect(props(queue)).toMatchObject({ MessageRetentionPeriod: 1209600, ...queueEncryptionOf(stage) });
    });

    it('refuses every request without TLS', () => {
      const policies = Object.values(resourcesOf(template, 'AWS::SQS::QueuePolicy'))
        .map(props)
        .filter((p) => (p.Queues as unknown[]).some((q) => flatten(q) === `\${${queueId}}`));
      expect(policies).toHaveLength(1);
      const statements = (policies[0]?.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement;
      expect(statements).toContainEqual({
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 'sqs:*',
        Resource: getAtt(queueId, 'Arn'),
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      });
      // Nobody is granted anything through the queue policy.
      expect(statements.filter((s) => s.Effect !== 'Deny')).toEqual([]);
    });
  });

  describe('alarms', () => {
    const alarmsOn = (
      namespace: string,
      metricName: string,
      dimensions: unknown,
    ): Record<string, unknown>[] =>
      Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm'))
        .map(props)
        .filter(
          (a) =>
            a.Namespace === namespace &&
            a.MetricName === metricName &&
            JSON.stringify(a.Dimensions) === JSON.stringify(dimensions),
        );
    const expectOneAlarm = (alarms: Record<string, unknown>[], name: string): void => {
      expect(resourcesOf(template, 'AWS::SNS::Topic')[topicRef.Ref]).toBeDefined();
      expect(alarms).toHaveLength(1);
      expect(alarms[0]).toMatchObject({
        AlarmName: `scheduled-payments-${stage}-${name}`,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        EvaluationPeriods: 1,
        AlarmActions: [topicRef],
      });
    };

    it('alarms the topic on the first message in the dead-letter queue', () => {
      expectOneAlarm(
        alarmsOn('AWS/SQS', 'ApproximateNumberOfMessagesVisible', [
          { Name: 'QueueName', Value: getAtt(queueId, 'QueueName') },
        ]),
        'notifier-dead-letters',
      );
    });

    it('alarms the topic when the forwarder is 10 minutes behind the stream (it reports failures, never throws)', () => {
      const alarms = alarmsOn('AWS/Lambda', 'IteratorAge', [
        { Name: 'FunctionName', Value: { Ref: n.forwarderId } },
      ]);
      expect(alarms).toHaveLength(1);
      expect(alarms[0]).toMatchObject({
        AlarmName: `scheduled-payments-${stage}-notifier-iterator-age`,
        Statistic: 'Maximum',
        Threshold: 600_000,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmActions: [topicRef],
      });
      // The forwarder's Errors metric stays at 0 when records fail: no alarm watches it.
      expect(
        alarmsOn('AWS/Lambda', 'Errors', [{ Name: 'FunctionName', Value: { Ref: n.forwarderId } }]),
      ).toEqual([]);
    });

    it("alarms the topic when the notifier queue's oldest message is 3 hours old (sending slower than the outbox fills)", () => {
      const alarms = alarmsOn('AWS/SQS', 'ApproximateAgeOfOldestMessage', [
        { Name: 'QueueName', Value: getAtt(n.workQueueId, 'QueueName') },
      ]);
      expect(alarms).toHaveLength(1);
      expect(alarms[0]).toMatchObject({
        AlarmName: `scheduled-payments-${stage}-notifier-queue-age`,
        Statistic: 'Maximum',
        Threshold: 3 * 3600,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmActions: [topicRef],
      });
    });

    it.each([
      ['ses-bounce-rate', 'Bounce', 5],
      ['ses-complaint-rate', 'Complaint', 0.1],
    ])(
      'alarms the topic on %s: %s events per send of the hour, in percent, at %s',
      (name, event, threshold) => {
        const alarm = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm'))
          .map(props)
          .find((a) => a.AlarmName === `scheduled-payments-${stage}-${name}`);
        expect(alarm).toMatchObject({ Threshold: threshold, AlarmActions: [topicRef] });
        const metrics = (alarm?.Metrics ?? []) as {
          Expression?: string;
          MetricStat?: {
            Metric: { Namespace: string; MetricName: string; Dimensions: { Name: string; Value: unknown }[] };
          };
        }[];
        expect(metrics.find((m) => m.Expression !== undefined)?.Expression).toBe(
          'IF(sent >= 20, 100 * events / sent, 0)',
        );
        const stats = metrics.flatMap((m) => (m.MetricStat === undefined ? [] : [m.MetricStat.Metric]));
        expect(stats.map((m) => [m.Namespace, m.MetricName]).sort()).toEqual(
          [
            ['AWS/SES', event],
            ['AWS/SES', 'Send'],
          ].sort(),
        );
        for (const m of stats) {
          expect(m.Dimensions.map((d) => d.Name)).toEqual([SES_DIMENSION]);
          expect(namesConfigurationSet(n, m.Dimensions[0]?.Value, stage)).toBe(true);
        }
      },
    );
  });
});

describe('senderAddress context', () => {
  const stacks = new Map<Stage, ServiceStack>();
  beforeAll(() => {
    // Both stages in one app: one synthesis.
    for (const stack of addServiceStacks(testApp({ ...PROD_CONTEXT, senderAddress: CUSTOM_SENDER })))
      stacks.set(stack.stage, stack);
  }, SYNTH_TIMEOUT_MS);

  it.each(['dev', 'prod'] as const)(
    'makes its domain the %s identity, the sender and the only identity the notifier may send as',
    (stage) => {
      const stack = stacks.get(stage) as ServiceStack;
      const template = stageTemplate(stack);
      const n = notificationsOf(placeOf(stack), template, stage);
      const identity = resourcesOf(template, 'AWS::SES::EmailIdentity')[n.identityId] as Resource;
      expect(props(identity).EmailIdentity).toBe(CUSTOM_DOMAIN);
      const variables = (props(n.notifier).Environment as { Variables: Record<string, unknown> }).Variables;
      expect(variables.SES_FROM_ADDRESS).toBe(CUSTOM_SENDER);
      expectSendEmailOnlyAs(n, stage, CUSTOM_DOMAIN);
      expect(sesResources(n).join(' ')).not.toContain(DEFAULT_DOMAIN);
    },
    SYNTH_TIMEOUT_MS,
  );

  it.each(['payments', 'payments@', '@'])('refuses the sender address %j', (senderAddress) => {
    expect(() => addServiceStacks(testApp({ stage: 'dev', senderAddress }))).toThrow(
      /senderAddress must be an e-mail address/,
    );
  });
});
