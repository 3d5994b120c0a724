/**
 * Webhooks in the cloud (docs/decisions.md "Webhooks"): the customer-managed KMS key that seals
 * endpoint secrets (rotation on); the webhook queue (encrypted, TLS only) with its dead-letter
 * queue, which the stream forwarder fills with one message per new event; the delivery function
 * that consumes it at a bounded concurrency (its reserved concurrency and the event source's
 * maximum); the recovery of lost deliveries every minute; the alarms (`webhook-deliveries-failing`: failed attempts in
 * every 5 minutes of an hour; dead letters; recovery errors). Grants are least privilege: only the
 * create and rotate functions may encrypt, only they (to answer a retried request its secret) and
 * the delivery function may decrypt, and only the functions that send to the queue may.
 *
 * The stack wires it in two places: `new ServiceWebhooks(...)` after notifications (it extends the
 * stream forwarder) and `bindApiFunction` in the API's configureFunction.
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import { scheduledTarget } from './scheduled-job';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { Stage } from '../../contract/stage';
import {
  WEBHOOK_DELIVERY,
  WEBHOOK_DELIVERY_HANDLER,
  WEBHOOK_FAILURES_METRIC,
  WEBHOOK_RECOVERY_HANDLER,
  WEBHOOK_RECOVERY_INTERVAL_MINUTES,
} from '../../contract/webhooks';
import { serviceAlarm } from './alarms';
import { actionsOf, bindTable, grantSendMessages, readsSetting } from './access';
import { queueEncryption } from './keys';
import { handlerSlug, SERVICE_NAME, ServiceFunction } from './service-function';

interface ServiceWebhooksProps {
  readonly stage: Stage;
  readonly table: dynamodb.ITable;
  readonly alarmTopic: sns.ITopic;
  /**
   * The customer-managed key of the queues (prod, lib/cdk/keys.ts).
   * @default - SQS-managed encryption
   */
  readonly queueKey?: kms.IKey;
  /** The table's stream forwarder: it puts each new event on the webhook queue. */
  readonly forwarder: lambda.Function;
  /**
   * Delivery invocations at once on the webhook queue (its event source's maximum concurrency).
   * The slow lane's source adds WEBHOOK_DELIVERY.slowConcurrency, and the function's reserved
   * concurrency is both plus WEBHOOK_DELIVERY.reserveHeadroom, so that neither source is
   * throttled. Each runs up to 10 attempts at once, at most 4 to one endpoint. Default: the
   * `webhookConcurrency` context value, else WEBHOOK_DELIVERY.prodConcurrency in prod (the busiest
   * slot's webhooks) and WEBHOOK_DELIVERY.concurrency in dev.
   */
  readonly concurrency?: number;
  /**
   * Where the delivery function goes (a nested stack of the stage); the key, the queues, the rule
   * and the alarms stay in this construct's stack.
   * @default - this construct
   */
  readonly functionScope?: Construct;
  /**
   * Where the scheduled recovery of lost deliveries goes (the stage's scheduled jobs' stack).
   * @default - functionScope
   */
  readonly scheduledScope?: Construct;
}

const DELIVERY_TIMEOUT_SECONDS = WEBHOOK_DELIVERY.timeoutSeconds;

function concurrencyOf(scope: Construct, given: number | undefined, stage: Stage): number {
  const raw: unknown =
    given ??
    scope.node.tryGetContext('webhookConcurrency') ??
    (stage === 'prod' ? WEBHOOK_DELIVERY.prodConcurrency : WEBHOOK_DELIVERY.concurrency);
  const value = typeof raw === 'string' ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 2 || value > 100)
    throw new Error(`webhookConcurrency must be an integer from 2 to 100, got "${String(raw)}"`);
  return value;
}

export class ServiceWebhooks extends Construct {
  readonly key: kms.Key;
  readonly queue: sqs.Queue;
  /** The slow lane: deliveries of endpoints that answer slowly, at their own concurrency. */
  readonly slowQueue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly deliverer: NodejsFunction;
  readonly recovery: NodejsFunction;
  readonly failingAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: ServiceWebhooksProps) {
    super(scope, id);
    const { stage, table } = props;
    const prod = stage === 'prod';
    const concurrency = concurrencyOf(this, props.concurrency, stage);

    this.key = new kms.Key(this, 'SecretsKey', {
      alias: `alias/${SERVICE_NAME}-${stage}-webhook-secrets`,
      description: `Seals the webhook endpoints' signing secrets (${stage})`,
      enableKeyRotation: true,
      // A deleted key loses every secret: prod keeps it when the stack goes (as it keeps the table).
      removalPolicy: prod ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(prod ? 30 : 7),
    });

    this.deadLetterQueue = new sqs.Queue(this, 'WebhookFailures', {
      queueName: `${SERVICE_NAME}-${stage}-webhook-failures`,
      retentionPeriod: Duration.days(14),
      ...queueEncryption(props.queueKey),
      enforceSSL: true,
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself the dead-letter queue of the webhook queue; its messages raise an alarm and stay 14 days, and their deliveries stay pending for the recovery.',
    });
    this.queue = new sqs.Queue(this, 'WebhookQueue', {
      queueName: `${SERVICE_NAME}-${stage}-webhooks`,
      // AWS's advice for a Lambda source: six times the function's timeout.
      visibilityTimeout: Duration.seconds(6 * DELIVERY_TIMEOUT_SECONDS),
      retentionPeriod: Duration.days(4),
      ...queueEncryption(props.queueKey),
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: WEBHOOK_DELIVERY.maxReceiveCount },
    });
    this.slowQueue = new sqs.Queue(this, 'WebhookSlowQueue', {
      queueName: `${SERVICE_NAME}-${stage}-webhooks-slow`,
      visibilityTimeout: Duration.seconds(6 * DELIVERY_TIMEOUT_SECONDS),
      retentionPeriod: Duration.days(4),
      ...queueEncryption(props.queueKey),
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: WEBHOOK_DELIVERY.maxReceiveCount },
    });

    const queueUrl = { WEBHOOK_QUEUE_URL: this.queue.queueUrl };
    const functionScope = props.functionScope ?? this;
    this.deliverer = new ServiceFunction(functionScope, handlerSlug(WEBHOOK_DELIVERY_HANDLER), {
      handler: WEBHOOK_DELIVERY_HANDLER,
      stage,
      // A batch of 10 attempts at once, each at most 10 s, with the writes around them.
      timeout: Duration.seconds(DELIVERY_TIMEOUT_SECONDS),
      environment: {
        ...queueUrl,
        WEBHOOK_SLOW_QUEUE_URL: this.slowQueue.queueUrl,
        WEBHOOK_SECRET_KEY: `kms:${this.key.keyArn}`,
      },
    }).fn;
    bindTable(this.deliverer, table, WEBHOOK_DELIVERY_HANDLER);
    grantSendMessages(this.queue, this.deliverer);
    grantSendMessages(this.slowQueue, this.deliverer);
    this.deliverer.addToRolePolicy(keyStatement(this.key, 'kms:Decrypt'));
    // Bounded: one slow merchant's burst cannot take the account's concurrency, and a slow
    // endpoint's attempts wait on the slow lane's invocations, not on everyone's.
    const cfn = this.deliverer.node.defaultChild as lambda.CfnFunction;
    cfn.reservedConcurrentExecutions =
      concurrency + WEBHOOK_DELIVERY.slowConcurrency + WEBHOOK_DELIVERY.reserveHeadroom;
    for (const [queue, maxConcurrency] of [
      [this.queue, concurrency],
      [this.slowQueue, WEBHOOK_DELIVERY.slowConcurrency],
    ] as const)
      this.deliverer.addEventSource(
        new SqsEventSource(queue, {
          batchSize: WEBHOOK_DELIVERY.batchSize,
          maxConcurrency,
          reportBatchItemFailures: true,
        }),
      );

    this.recovery = new ServiceFunction(
      props.scheduledScope ?? functionScope,
      handlerSlug(WEBHOOK_RECOVERY_HANDLER),
      {
        handler: WEBHOOK_RECOVERY_HANDLER,
        stage,
        timeout: Duration.seconds(60),
        environment: queueUrl,
      },
    ).fn;
    bindTable(this.recovery, table, WEBHOOK_RECOVERY_HANDLER);
    grantSendMessages(this.queue, this.recovery);
    new events.Rule(this, 'SweepEvery', {
      ruleName: `${SERVICE_NAME}-${stage}-webhook-sweep`,
      description: 'Re-enqueues webhook deliveries that are due and whose message is lost',
      schedule: events.Schedule.rate(Duration.minutes(WEBHOOK_RECOVERY_INTERVAL_MINUTES)),
      // A missed run is not retried: the next one, a minute later, does the same work.
      targets: [scheduledTarget(this.recovery, 0)],
    });

    // The stream forwarder puts each new event on the queue (its filter admits event items).
    props.forwarder.addEnvironment('WEBHOOK_QUEUE_URL', this.queue.queueUrl);
    grantSendMessages(this.queue, props.forwarder);

    const alarm = (name: string, metric: cloudwatch.IMetric, description: string, evaluationPeriods = 1) =>
      serviceAlarm(this, stage, props.alarmTopic, name, metric, description, { evaluationPeriods });
    this.failingAlarm = alarm(
      'webhook-deliveries-failing',
      new cloudwatch.Metric({
        namespace: WEBHOOK_FAILURES_METRIC.namespace,
        metricName: WEBHOOK_FAILURES_METRIC.name,
        dimensionsMap: { [WEBHOOK_FAILURES_METRIC.dimension]: stage },
        statistic: 'Sum',
        period: Duration.minutes(5),
      }),
      'Webhook attempts have failed in every 5 minutes of the last hour (see the runbook: npm run admin -- webhooks --failing)',
      12,
    );
    alarm(
      'webhook-dead-letters',
      this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
      'Webhook messages the delivery function could not handle 5 times: their deliveries stay pending for the recovery (see the runbook)',
    );
    alarm(
      'webhook-sweep-errors',
      this.recovery.metricErrors({ period: Duration.minutes(15) }),
      'The webhook recovery failed: lost delivery messages wait for its next run (see the runbook)',
    );
  }

  /**
   * An API function, by what its code uses (lib/cdk/access.ts): the secrets key, with the KMS
   * actions it calls (create and rotate seal), when it reads WEBHOOK_SECRET_KEY; the queue when it
   * reads WEBHOOK_QUEUE_URL (replay); nothing otherwise.
   */
  bindApiFunction(fn: lambda.Function, handler: string): void {
    if (readsSetting(handler, 'webhookSecretKey')) {
      fn.addEnvironment('WEBHOOK_SECRET_KEY', `kms:${this.key.keyArn}`);
      for (const action of actionsOf(handler, 'kms')) fn.addToRolePolicy(keyStatement(this.key, action));
    }
    if (readsSetting(handler, 'webhookQueueUrl')) {
      fn.addEnvironment('WEBHOOK_QUEUE_URL', this.queue.queueUrl);
      grantSendMessages(this.queue, fn);
    }
  }
}

/** One KMS action on the secrets key alone. */
const keyStatement = (key: kms.IKey, action: string) =>
  new iam.PolicyStatement({ actions: [action], resources: [key.keyArn] });
