/**
 * E-mail in the cloud: the SES identity and configuration set, and the notifier that consumes the
 * table's stream (only new outbox items reach it: an event-source filter), with partial batch
 * responses, retries, and an SQS on-failure destination whose messages raise an alarm.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { serviceAlarm } from './alarms';
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
    // Least privilege: send as this identity, through this configuration set, nothing else.
    const { partition, region, account } = Stack.of(this);
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['ses:SendEmail'],
        resources: [
          `arn:${partition}:ses:${region}:${account}:identity/${domain}`,
          `arn:${partition}:ses:${region}:${account}:configuration-set/${this.configurationSet.configurationSetName}`,
        ],
      }),
    );
    this.notifier = fn;

    this.deadLetterQueue = new sqs.Queue(this, 'NotifierFailures', {
      queueName: `${SERVICE_NAME}-${stage}-notifier-failures`,
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
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

    const alarm = (name: string, metric: cloudwatch.IMetric, description: string) =>
      serviceAlarm(this, stage, props.alarmTopic, name, metric, description);
    alarm(
      'notifier-dead-letters',
      this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5) }),
      'Stream records the notifier gave up on: their outbox items stay pending or failed (see the runbook)',
    );
    alarm('notifier-errors', fn.metricErrors({ period: Duration.minutes(5) }), 'The notifier failed a batch');
  }
}
