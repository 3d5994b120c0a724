/**
 * Webhooks in the cloud (issue 18, lib/cdk/webhooks.ts): the KMS key of the secrets (customer
 * managed, rotation on, kept in prod), granted to the create and rotate functions (encrypt) and the
 * delivery function (decrypt) only; the webhook queue (encrypted, TLS only, dead-letter queue); the
 * delivery function at a bounded concurrency; the recovery of lost deliveries every minute; the alarms.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import type { Stage } from '#contract/stage';
import {
  WEBHOOK_DELIVERY,
  WEBHOOK_DELIVERY_HANDLER,
  WEBHOOK_FAILURES_METRIC,
  WEBHOOK_RECOVERY_HANDLER,
} from '#contract/webhooks';
import {
  actionsOf,
  flatten,
  functionIdOf,
  functionName,
  props,
  resourcesOf,
  resourcesOfStatement,
  roleIdOf,
  roleStatements,
  SYNTH_TIMEOUT_MS,
  stageTemplateOf,
  type Resource,
  isDataKeyArn,
  isDataKeyStatement,
  queueEncryptionOf,
} from '#support/cdk/synth';

describe.each(['dev', 'prod'] as const)('webhooks (%s)', (stage: Stage) => {
  let template: Template;
  beforeAll(() => {
    template = stageTemplateOf(stage);
  }, SYNTH_TIMEOUT_MS);

  const byName = (type: string, key: string, value: string): [string, Resource] => {
    const found = Object.entries(resourcesOf(template, type)).filter(([, r]) => props(r)[key] === value);
    expect(found).toHaveLength(1);
    return found[0]!;
  };
  const keyId = () =>
    Object.keys(resourcesOf(template, 'AWS::KMS::Key')).find((id) => id.startsWith('WebhooksSecretsKey'))!;
  const queue = () => byName('AWS::SQS::Queue', 'QueueName', `scheduled-payments-${stage}-webhooks`);
  const slowQueue = () => byName('AWS::SQS::Queue', 'QueueName', `scheduled-payments-${stage}-webhooks-slow`);
  const dlq = () => byName('AWS::SQS::Queue', 'QueueName', `scheduled-payments-${stage}-webhook-failures`);
  const fn = (handler: string) => {
    const id = functionIdOf(template, stage, handler);
    return [id, resourcesOf(template, 'AWS::Lambda::Function')[id]!] as const;
  };

  it('seals secrets with one customer-managed KMS key, rotated yearly, kept in prod', () => {
    // Prod's keys at rest are kms.test.ts's; this is the one that seals the secrets.
    const keys = Object.entries(resourcesOf(template, 'AWS::KMS::Key')).filter(
      ([id]) => !id.startsWith('Keys'),
    );
    expect(keys).toHaveLength(1);
    const key = keys[0]![1];
    expect(props(key)).toMatchObject({ EnableKeyRotation: true });
    expect(key.DeletionPolicy).toBe(stage === 'prod' ? 'Retain' : 'Delete');
    const [, alias] = byName(
      'AWS::KMS::Alias',
      'AliasName',
      `alias/scheduled-payments-${stage}-webhook-secrets`,
    );
    expect(flatten(props(alias).TargetKeyId)).toBe(`\${${keyId()}.Arn}`);
  });

  it('may be used by the create and rotate functions (encrypt; decrypt to answer a retried request its secret again) and the delivery function (decrypt), nobody else', () => {
    const users: [string, string][] = [];
    for (const f of Object.values(resourcesOf(template, 'AWS::Lambda::Function'))) {
      if (props(f).Role === undefined) continue;
      for (const s of roleStatements(template, roleIdOf(f))) {
        // Prod's table and queues keys are kms.test.ts's (a statement may name them beside this one).
        const keys = resourcesOfStatement(s).filter((r) => !isDataKeyArn(r));
        if (keys.length === 0) continue;
        for (const a of actionsOf(s).filter((x) => x.startsWith('kms:'))) {
          expect(keys).toEqual([`\${${keyId()}.Arn}`]);
          users.push([String(props(f).FunctionName), a]);
        }
      }
    }
    expect(users.sort()).toEqual(
      [
        [functionName(stage, 'webhooks/create-endpoint'), 'kms:Decrypt'],
        [functionName(stage, 'webhooks/create-endpoint'), 'kms:Encrypt'],
        [functionName(stage, WEBHOOK_DELIVERY_HANDLER), 'kms:Decrypt'],
        [functionName(stage, 'webhooks/rotate-secret'), 'kms:Decrypt'],
        [functionName(stage, 'webhooks/rotate-secret'), 'kms:Encrypt'],
      ].sort(),
    );
  });

  it.each([
    ['webhook queue', queue],
    ['slow lane', slowQueue],
  ])(
    'queues work encrypted, over TLS only, with a dead-letter queue after 5 receives (%s)',
    (_name, which) => {
      const [queueId, q] = which();
      const [dlqId] = dlq();
      expect(props(q)).toMatchObject({
        ...queueEncryptionOf(stage),
        VisibilityTimeout: 360,
        RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: 5 },
      });
      const policies = Object.values(resourcesOf(template, 'AWS::SQS::QueuePolicy')).filter((p) =>
        (props(p).Queues as unknown[]).some((x) => flatten(x) === `\${${queueId}}`),
      );
      expect(JSON.stringify(policies)).toContain('"aws:SecureTransport":"false"');
    },
  );

  it("delivers at a bounded concurrency, the slow lane beside the queue: reserved concurrency and the event sources' maxima, as the local runtime sets them", () => {
    const [id, deliver] = fn(WEBHOOK_DELIVERY_HANDLER);
    // The queue's 10 (prod's 40: the busiest slot's webhooks), the slow lane's 2, and 2 more so
    // that neither source is throttled.
    const queueConcurrency = stage === 'prod' ? 40 : 10;
    expect(props(deliver)).toMatchObject({ ReservedConcurrentExecutions: queueConcurrency + 4, Timeout: 60 });
    expect(WEBHOOK_DELIVERY).toMatchObject({
      concurrency: 10,
      prodConcurrency: 40,
      slowConcurrency: 2,
      reserveHeadroom: 2,
    });
    const variables = (props(deliver).Environment as { Variables: Record<string, unknown> }).Variables;
    expect(flatten(variables.WEBHOOK_QUEUE_URL)).toBe(`\${${queue()[0]}}`);
    expect(flatten(variables.WEBHOOK_SLOW_QUEUE_URL)).toBe(`\${${slowQueue()[0]}}`);
    expect(flatten(variables.WEBHOOK_SECRET_KEY)).toBe(`kms:\${${keyId()}.Arn}`);
    const mappings = Object.values(resourcesOf(template, 'AWS::Lambda::EventSourceMapping'))
      .map(props)
      .filter((p) => flatten(p.FunctionName) === `\${${id}}`);
    expect(mappings).toEqual([
      expect.objectContaining({
        EventSourceArn: { 'Fn::GetAtt': [queue()[0], 'Arn'] },
        BatchSize: WEBHOOK_DELIVERY.batchSize,
        ScalingConfig: { MaximumConcurrency: queueConcurrency },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      }),
      expect.objectContaining({
        EventSourceArn: { 'Fn::GetAtt': [slowQueue()[0], 'Arn'] },
        BatchSize: WEBHOOK_DELIVERY.batchSize,
        ScalingConfig: { MaximumConcurrency: WEBHOOK_DELIVERY.slowConcurrency },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      }),
    ]);
  });

  it('recovers lost deliveries every minute with the table and the queue, nothing else', () => {
    const [id, recovery] = fn(WEBHOOK_RECOVERY_HANDLER);
    const rules = Object.values(resourcesOf(template, 'AWS::Events::Rule')).filter((r) =>
      ((props(r).Targets ?? []) as { Arn: unknown }[]).some((t) => flatten(t.Arn) === `\${${id}.Arn}`),
    );
    expect(rules.map((r) => props(r).ScheduleExpression)).toEqual(['rate(1 minute)']);
    // Prod's table and queues keys go with the table and the queue (kms.test.ts).
    const actions = roleStatements(template, roleIdOf(recovery))
      .filter((s) => !isDataKeyStatement(s))
      .flatMap(actionsOf);
    expect(actions.filter((a) => !/^(dynamodb|sqs|xray):/.test(a))).toEqual([]);
    expect(actions).toContain('sqs:SendMessage');
  });

  it('alarms when attempts failed in every 5 minutes of an hour, on dead letters and on recovery errors', () => {
    const alarm = (name: string) =>
      props(byName('AWS::CloudWatch::Alarm', 'AlarmName', `scheduled-payments-${stage}-${name}`)[1]);
    expect(alarm('webhook-deliveries-failing')).toMatchObject({
      Namespace: WEBHOOK_FAILURES_METRIC.namespace,
      MetricName: WEBHOOK_FAILURES_METRIC.name,
      Dimensions: [{ Name: WEBHOOK_FAILURES_METRIC.dimension, Value: stage }],
      Statistic: 'Sum',
      Period: 300,
      EvaluationPeriods: 12,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    expect(alarm('webhook-dead-letters')).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible' });
    expect(alarm('webhook-sweep-errors')).toMatchObject({ MetricName: 'Errors' });
  });
});
