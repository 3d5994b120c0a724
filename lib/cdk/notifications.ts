/**
 * E-mail in the cloud (docs/decisions.md, "E-mail pacing"): the SES identity and configuration
 * set; the stream forwarder that consumes the table's stream (only new outbox items reach it: an
 * event-source filter) and puts one message per item on the notifier's SQS queue; the notifier
 * that consumes the queue at a bounded concurrency and paces its sends to `emailSendRate`; one
 * dead-letter queue for both, alarmed, with the queue's age and the stream's lag. The
 * configuration set's sending events become CloudWatch metrics with bounce and complaint alarms.
 */
import { Duration, Names, Stack, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { serviceAlarm, type AlarmOptions } from './alarms';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as ses from 'aws-cdk-lib/aws-ses';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { NOTIFIER_HANDLER, OUTBOX_FORWARDER_HANDLER } from '../../contract/processing';
import type { Stage } from '../../contract/stage';
import { bindTable, grantSendMessages, grantStreamRead, queueDestination } from './access';
import type * as kms from 'aws-cdk-lib/aws-kms';
import { queueEncryption } from './keys';
import { handlerSlug, SERVICE_NAME, ServiceFunction } from './service-function';

interface ServiceNotificationsProps {
  readonly stage: Stage;
  readonly table: dynamodb.Table;
  readonly alarmTopic: sns.ITopic;
  /**
   * The customer-managed key of the queues (prod, lib/cdk/keys.ts).
   * @default - SQS-managed encryption
   */
  readonly queueKey?: kms.IKey;
  /**
   * Sender address of the e-mails. Its domain becomes the SES identity (verify it by publishing
   * the DKIM records SES shows for it).
   * @default payments@scheduled-payments.example
   */
  readonly senderAddress?: string;
  /**
   * E-mails per second, all senders together (SES's maximum send rate of the account, 14 for a
   * new one). Default: the `emailSendRate` context value, else 14.
   */
  readonly emailSendRate?: number;
  /**
   * Where the functions go (a nested stack of the stage); the rest stays here.
   * @default - this construct
   */
  readonly functionScope?: Construct;
}

const NOTIFIER_TIMEOUT_SECONDS = 60;

/** The `emailSendRate` prop or context value (per deploy, so per stage), 1 to 1000; default 14. */
function emailSendRate(scope: Construct, given: number | undefined): number {
  const raw: unknown = given ?? scope.node.tryGetContext('emailSendRate') ?? 14;
  const rate = typeof raw === 'string' ? Number(raw) : raw;
  if (typeof rate !== 'number' || !Number.isInteger(rate) || rate < 1 || rate > 1000)
    throw new Error(
      `emailSendRate must be an integer from 1 to 1000 e-mails per second, got "${String(raw)}"`,
    );
  return rate;
}

export class ServiceNotifications extends Construct {
  readonly notifier: NodejsFunction;
  readonly identity: ses.EmailIdentity;
  readonly configurationSet: ses.ConfigurationSet;
  readonly deadLetterQueue: sqs.Queue;
  /** The notifier's queue: one message per outbox item, consumed at the e-mail rate. */
  readonly queue: sqs.Queue;
  /** The stream consumer that fills the queue. */
  readonly forwarder: NodejsFunction;

  constructor(scope: Construct, id: string, props: ServiceNotificationsProps) {
    super(scope, id);
    const { stage, table } = props;
    const sender = props.senderAddress ?? 'payments@scheduled-payments.example';
    const match = /^[^\s@]+@((?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,})$/.exec(sender);
    if (!match)
      throw new Error(`senderAddress must be an e-mail address on a public domain, got "${sender}"`);
    const domain = match[1]!;

    this.identity = new ses.EmailIdentity(this, 'Identity', { identity: ses.Identity.domain(domain) });
    this.configurationSet = new ses.ConfigurationSet(this, 'ConfigurationSet', {
      configurationSetName: `${SERVICE_NAME}-${stage}`,
      reputationMetrics: true,
      sendingEnabled: true,
    });

    const sendRate = emailSendRate(this, props.emailSendRate);
    // Each container sends at most about 10 e-mails a second one after another (SES answers in
    // tens of milliseconds), so the rate sets how many run at once; 2 is SQS's least maximum.
    const concurrency = Math.max(2, Math.ceil(sendRate / 10));

    // Messages the notifier could not handle in maxReceiveCount receives (throttles never count:
    // they go back as new messages), and stream records the forwarder could not enqueue.
    this.deadLetterQueue = new sqs.Queue(this, 'NotifierFailures', {
      queueName: `${SERVICE_NAME}-${stage}-notifier-failures`,
      retentionPeriod: Duration.days(14),
      ...queueEncryption(props.queueKey),
      enforceSSL: true,
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        "This queue is itself the dead-letter queue (of the notifier's queue and the forwarder's stream); its messages raise an alarm and stay 14 days.",
    });
    this.queue = new sqs.Queue(this, 'NotifierQueue', {
      queueName: `${SERVICE_NAME}-${stage}-notifications`,
      // AWS's advice for a Lambda source: six times the function's timeout.
      visibilityTimeout: Duration.seconds(6 * NOTIFIER_TIMEOUT_SECONDS),
      retentionPeriod: Duration.days(4),
      ...queueEncryption(props.queueKey),
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: 5 },
    });

    const forwarder = new ServiceFunction(
      props.functionScope ?? this,
      handlerSlug(OUTBOX_FORWARDER_HANDLER),
      {
        handler: OUTBOX_FORWARDER_HANDLER,
        stage,
        timeout: Duration.seconds(30),
        // TABLE_NAME: every function's configuration names the table (lambdas/shared/config.ts);
        // the forwarder is granted no access to it.
        environment: { NOTIFICATION_QUEUE_URL: this.queue.queueUrl, TABLE_NAME: table.tableName },
      },
    ).fn;
    grantSendMessages(this.queue, forwarder);
    // The stream as the forwarder's event source, with the grants a stream reader needs and no
    // more (CDK's DynamoEventSource also grants kms:DescribeKey on the table key, which reading
    // never calls). The mapping's id is DynamoEventSource's: the same resource as before.
    forwarder.addEventSourceMapping(`DynamoDBEventSource:${Names.nodeUniqueId(table.node)}`, {
      eventSourceArn: table.tableStreamArn,
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      batchSize: 100,
      retryAttempts: 10,
      bisectBatchOnError: true,
      reportBatchItemFailures: true,
      maxRecordAge: Duration.days(1),
      onFailure: queueDestination(this.deadLetterQueue),
      // New outbox items (e-mails) and new events (webhooks, lib/cdk/webhooks.ts).
      filters: ['outbox', 'event'].map((entity) =>
        lambda.FilterCriteria.filter({
          eventName: lambda.FilterRule.isEqual('INSERT'),
          dynamodb: { NewImage: { entity: { S: lambda.FilterRule.isEqual(entity) } } },
        }),
      ),
    });
    grantStreamRead(forwarder, table);
    this.forwarder = forwarder;

    const { fn } = new ServiceFunction(props.functionScope ?? this, handlerSlug(NOTIFIER_HANDLER), {
      handler: NOTIFIER_HANDLER,
      stage,
      timeout: Duration.seconds(NOTIFIER_TIMEOUT_SECONDS),
      environment: {
        SES_FROM_ADDRESS: sender,
        SES_CONFIGURATION_SET: this.configurationSet.configurationSetName,
        NOTIFICATION_QUEUE_URL: this.queue.queueUrl,
        EMAIL_SEND_RATE: String(sendRate),
        EMAIL_SEND_CONCURRENCY: String(concurrency),
      },
    });
    bindTable(fn, table, NOTIFIER_HANDLER);
    fn.addToRolePolicy(sendPolicy(this, stage, domain, sender, this.configurationSet));
    // Retries go back on the queue as new messages (with a delay).
    grantSendMessages(this.queue, fn);
    fn.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: 10,
        maxConcurrency: concurrency,
        reportBatchItemFailures: true,
      }),
    );
    this.notifier = fn;

    this.configurationSet.addEventDestination('Reputation', {
      configurationSetEventDestinationName: 'reputation',
      destination: ses.EventDestination.cloudWatchDimensions([
        {
          name: SES_DIMENSION,
          source: ses.CloudWatchDimensionSource.MESSAGE_TAG,
          // The notifier tags nothing: every message of the set gets the set's name.
          defaultValue: this.configurationSet.configurationSetName,
        },
      ]),
      events: [ses.EmailSendingEvent.SEND, ses.EmailSendingEvent.BOUNCE, ses.EmailSendingEvent.COMPLAINT],
    });

    const alarm = (name: string, metric: cloudwatch.IMetric, description: string, options?: AlarmOptions) =>
      serviceAlarm(this, stage, props.alarmTopic, name, metric, description, options);
    alarm(
      'notifier-dead-letters',
      this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
      'E-mails the notifier or the stream forwarder gave up on: their outbox items stay pending (see the runbook)',
    );
    // The forwarder reports failed records instead of throwing, so its Errors metric stays at 0;
    // a stuck or failing stream shows as records waiting longer and longer.
    alarm(
      'notifier-iterator-age',
      forwarder.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(5) }),
      'The stream forwarder is 10 minutes or more behind the table stream: e-mails are late (see the runbook)',
      { threshold: Duration.minutes(10).toMilliseconds() },
    );
    // A new message waits its turn at the e-mail rate; throttled ones go back as new messages, so
    // only a queue that does not drain grows old. 100,000 receipts at 14/s take 2 hours.
    alarm(
      'notifier-queue-age',
      this.queue.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum', period: Duration.minutes(5) }),
      'An e-mail has waited 3 hours or more in the notifier queue: sending is slower than the outbox fills (see the runbook)',
      { threshold: Duration.hours(3).toSeconds() },
    );
    const sesMetric = (metricName: string): cloudwatch.Metric =>
      new cloudwatch.Metric({
        namespace: 'AWS/SES',
        metricName,
        dimensionsMap: { [SES_DIMENSION]: this.configurationSet.configurationSetName },
        statistic: 'Sum',
        period: Duration.hours(1),
      });
    // SES reviews an account from a 5% bounce rate (0.1% complaints) and may suspend it above:
    // alarm at those rates, once an hour holds enough messages for a rate to mean something.
    const rate = (metricName: string): cloudwatch.MathExpression =>
      new cloudwatch.MathExpression({
        expression: 'IF(sent >= 20, 100 * events / sent, 0)',
        usingMetrics: { events: sesMetric(metricName), sent: sesMetric('Send') },
        period: Duration.hours(1),
      });
    alarm('ses-bounce-rate', rate('Bounce'), 'Bounce rate of the hour at 5% or more (see the runbook)', {
      threshold: 5,
    });
    alarm(
      'ses-complaint-rate',
      rate('Complaint'),
      'Complaint rate of the hour at 0.1% or more (see the runbook)',
      { threshold: 0.1 },
    );
  }
}

/** Name of the CloudWatch dimension of the configuration set's sending events. */
export const SES_DIMENSION = 'ConfigurationSet';

/**
 * Send as the sender address only, through the configuration set. In the SES sandbox SES also
 * authorizes the (verified) recipient identities, so dev may use any identity of the account
 * with the sender fixed by `ses:FromAddress`; prod names its domain identity only.
 */
function sendPolicy(
  scope: Construct,
  stage: Stage,
  domain: string,
  sender: string,
  configurationSet: ses.ConfigurationSet,
): iam.PolicyStatement {
  const { partition, region, account } = Stack.of(scope);
  const identity = `arn:${partition}:ses:${region}:${account}:identity/${stage === 'prod' ? domain : '*'}`;
  return new iam.PolicyStatement({
    actions: ['ses:SendEmail'],
    resources: [
      identity,
      `arn:${partition}:ses:${region}:${account}:configuration-set/${configurationSet.configurationSetName}`,
    ],
    conditions: { StringEquals: { 'ses:FromAddress': sender } },
  });
}
