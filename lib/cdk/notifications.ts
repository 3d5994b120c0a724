/**
 * E-mail in the cloud: the SES identity and configuration set, and the notifier that consumes the
 * table's stream (only new outbox items reach it: an event-source filter), with partial batch
 * responses, retries, and an SQS on-failure destination whose messages raise an alarm; the
 * configuration set's sending events become CloudWatch metrics with bounce and complaint alarms.
 */
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { serviceAlarm, type AlarmOptions } from './alarms';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as ses from 'aws-cdk-lib/aws-ses';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { NOTIFIER_HANDLER } from '../../contract/processing';
import type { Stage } from '../../contract/stage';
import { bindTable, handlerSlug, SERVICE_NAME, ServiceFunction } from './service-function';

export interface ServiceNotificationsProps {
  readonly stage: Stage;
  readonly table: dynamodb.Table;
  readonly alarmTopic: sns.ITopic;
  /**
   * Sender address of the e-mails. Its domain becomes the SES identity (verify it by publishing
   * the DKIM records SES shows for it).
   * @default payments@scheduled-payments.example
   */
  readonly senderAddress?: string;
}

export class ServiceNotifications extends Construct {
  readonly notifier: NodejsFunction;
  readonly identity: ses.EmailIdentity;
  readonly configurationSet: ses.ConfigurationSet;
  readonly deadLetterQueue: sqs.Queue;

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

    const { fn } = new ServiceFunction(this, handlerSlug(NOTIFIER_HANDLER), {
      handler: NOTIFIER_HANDLER,
      stage,
      timeout: Duration.seconds(60),
      environment: {
        SES_FROM_ADDRESS: sender,
        SES_CONFIGURATION_SET: this.configurationSet.configurationSetName,
      },
    });
    bindTable(fn, table, 'readWrite');
    fn.addToRolePolicy(sendPolicy(this, stage, domain, sender, this.configurationSet));
    this.notifier = fn;

    this.deadLetterQueue = new sqs.Queue(this, 'NotifierFailures', {
      queueName: `${SERVICE_NAME}-${stage}-notifier-failures`,
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        "This queue is itself the stream's on-failure destination; its messages raise an alarm and stay 14 days.",
    });
    fn.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: lambda.StartingPosition.TRIM_HORIZON,
        batchSize: 25,
        retryAttempts: 10,
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        maxRecordAge: Duration.days(1),
        onFailure: new SqsDlq(this.deadLetterQueue),
        filters: [
          lambda.FilterCriteria.filter({
            eventName: lambda.FilterRule.isEqual('INSERT'),
            dynamodb: { NewImage: { entity: { S: lambda.FilterRule.isEqual('outbox') } } },
          }),
        ],
      }),
    );

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
      'Stream records the notifier gave up on: their outbox items stay pending or failed (see the runbook)',
    );
    // The notifier reports failed records instead of throwing, so its Errors metric stays at 0;
    // a stuck or failing stream shows as records waiting longer and longer.
    alarm(
      'notifier-iterator-age',
      fn.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(5) }),
      'The notifier is 10 minutes or more behind the table stream: e-mails are late (see the runbook)',
      { threshold: Duration.minutes(10).toMilliseconds() },
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
