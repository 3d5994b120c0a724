/**
 * One stage of the service, deployed as one stack with nested stacks (lib/cdk/stacks.ts): this
 * stack holds the table, authentication, the API, the state machines, the queues, the SES
 * identity, the alarms and the dashboard; its nested stacks hold the functions, by concern.
 */
import { CfnOutput, Stack, Tags, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { Stage } from '../../contract/stage';
import { ServiceApi, type ServiceApiProps } from './api';
import { StripeEventsRoute } from './processor-events';
import { PROCESSOR_EVENTS } from '../../contract/notices';
import { ServiceAuth } from './auth';
import { SERVICE_NAME } from './service-function';
import { ServiceTable } from './table';
import { ServiceProcessing } from './processing';
import { ServiceSweeper } from './sweeper';
import { ServiceAccountUpdater } from './account-updater';
import { NoticeBackstop } from './notice-backstop';
import { ServiceReturnRates } from './return-rates';
import { ServiceNotifications } from './notifications';
import { ServiceReconciliation } from './reconciliation';
import { ServiceSeries } from './series';
import { ServiceMonitoring } from './monitoring';
import { ServiceVoidOrRefund } from './void-or-refund';
import { ServiceWebhooks } from './webhooks';
import { addNagSuppressions } from './nag';
import { apiStackOf, NestedStacks } from './stacks';
import {
  PROCESSOR_CONTEXT,
  PROCESSOR_RATE_CONTEXT,
  SETTLEMENT_PERIOD_CONTEXT,
  StripeSecretKey,
} from './processor';
import type { ProcessorName } from '../../contract/processor';
import { bindStateMachineIfUsed } from './access';
import { ServiceWaf } from './waf';
import { IdempotencyHashKey } from './idempotency-key';
import { encryptLogGroups, ServiceKeys } from './keys';

interface ServiceStackProps extends StackProps {
  /** The stage this stack deploys: names, retention and protection follow it. */
  readonly stage: Stage;
  /**
   * Suffix of the Cognito domain prefix `scheduled-payments-<stage>-<suffix>`.
   * @default - derived from the stack id (see ServiceAuthProps.domainSuffix)
   */
  readonly authDomainSuffix?: string;
  /**
   * Create API Gateway's account-level CloudWatch Logs role (needed for access logs).
   * @default true
   */
  readonly apiCloudWatchRole?: boolean;
  /**
   * Per-handler extra configuration, passed to the API construct.
   * @default - none
   */
  readonly configureFunction?: ServiceApiProps['configureFunction'];
  /**
   * Sender address of the payor e-mails (its domain is the SES identity). lib/cdk/app.ts requires
   * a verifiable one for prod.
   * @default payments@scheduled-payments.example
   */
  readonly senderAddress?: string;
  /** @default - true in prod, false otherwise */
  readonly terminationProtection?: boolean;
  /**
   * The sandbox processor's settlement period in seconds (dev only; lib/cdk/processor.ts).
   * @default 3600
   */
  readonly settlementPeriodSeconds?: number;
  /**
   * The stage's payment processor (lib/cdk/processor.ts; lib/cdk/app.ts reads it from the
   * context and refuses prod on the sandbox unless asked for explicitly).
   * @default 'sandbox'
   */
  readonly processor?: ProcessorName;
  /**
   * The stage's processor rate (`PROCESSOR_RATE`, charges a second); e.g. the rate Stripe raised
   * the account's limits to.
   * @default - the processor's (contract/processor.ts DEFAULT_PROCESSOR_RATE)
   */
  readonly processorRate?: number;
}

export class ServiceStack extends Stack {
  readonly stage: Stage;
  /** The stage's payment processor. */
  readonly processor: ProcessorName;
  readonly table: ServiceTable;
  /** The customer-managed keys at rest (prod; none in dev: lib/cdk/keys.ts). */
  readonly keys: ServiceKeys;
  readonly auth: ServiceAuth;
  readonly api: ServiceApi;
  readonly waf: ServiceWaf;
  readonly processing: ServiceProcessing;
  readonly notifications: ServiceNotifications;
  readonly reconciliation: ServiceReconciliation;
  readonly monitoring: ServiceMonitoring;
  readonly voidOrRefund: ServiceVoidOrRefund;
  readonly webhooks: ServiceWebhooks;
  /** The key idempotency keys are kept by (lib/cdk/idempotency-key.ts). */
  readonly idempotencyHashKey: IdempotencyHashKey;
  readonly series: ServiceSeries;
  /** The nested stacks of the stage, made as functions are placed in them. */
  readonly nestedStacks: NestedStacks;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    const {
      stage,
      authDomainSuffix,
      apiCloudWatchRole,
      configureFunction,
      senderAddress,
      settlementPeriodSeconds,
      processor,
      processorRate,
      ...stackProps
    } = props;
    super(scope, id, {
      description: `Scheduled Payments Service (${stage})`,
      ...stackProps,
      terminationProtection: stackProps.terminationProtection ?? stage === 'prod',
    });
    this.stage = stage;
    // Read by bindProcessor; context must be set before any child exists.
    if (settlementPeriodSeconds !== undefined)
      this.node.setContext(SETTLEMENT_PERIOD_CONTEXT, settlementPeriodSeconds);
    // Read by every function (its bundle's adapter, its timeout) and by bindProcessor.
    this.node.setContext(PROCESSOR_CONTEXT, processor ?? 'sandbox');
    if (processorRate !== undefined) this.node.setContext(PROCESSOR_RATE_CONTEXT, processorRate);
    this.processor = processor ?? 'sandbox';
    Tags.of(this).add('service', SERVICE_NAME);
    Tags.of(this).add('stage', stage);

    this.keys = new ServiceKeys(this, 'Keys', { stage });
    // Before any function: bindProcessor finds it here.
    if (this.processor === 'stripe') new StripeSecretKey(this, StripeSecretKey.ID, { stage });
    this.table = new ServiceTable(this, 'Data', { stage, encryptionKey: this.keys.table });
    if (this.keys.logs !== undefined) encryptLogGroups(this, this.keys.logs);
    this.auth = new ServiceAuth(this, 'Auth', { stage, domainSuffix: authDomainSuffix });
    // Every function goes to a nested stack by concern; everything else stays here, where its
    // logical id (and so the resource) stays what it was.
    const nested = new NestedStacks(this, stage);
    this.nestedStacks = nested;
    this.processing = new ServiceProcessing(this, 'Processing', {
      stage,
      table: this.table.table,
      taskScope: nested.of('ProcessingFunctions'),
      starterScope: nested.of('ScheduledFunctions'),
    });
    new ServiceSweeper(this, 'Sweeper', {
      stage,
      table: this.table.table,
      alarmTopic: this.processing.alarmTopic,
      functionScope: nested.of('ScheduledFunctions'),
    });
    const stateMachine = this.processing.stateMachine;
    this.notifications = new ServiceNotifications(this, 'Notifications', {
      stage,
      table: this.table.table,
      alarmTopic: this.processing.alarmTopic,
      senderAddress,
      queueKey: this.keys.queues,
      functionScope: nested.of('NotificationFunctions'),
    });
    this.webhooks = new ServiceWebhooks(this, 'Webhooks', {
      stage,
      table: this.table.table,
      alarmTopic: this.processing.alarmTopic,
      forwarder: this.notifications.forwarder,
      queueKey: this.keys.queues,
      functionScope: nested.of('WebhookFunctions'),
      scheduledScope: nested.of('ScheduledFunctions'),
    });
    this.reconciliation = new ServiceReconciliation(this, 'Reconciliation', {
      stage,
      table: this.table.table,
      alarmTopic: this.processing.alarmTopic,
      functionScope: nested.of('ScheduledFunctions'),
    });
    // The daily series job and the account updater: scheduled jobs, with the others.
    this.series = new ServiceSeries(this, 'Series', {
      stage,
      table: this.table.table,
      alarmTopic: this.processing.alarmTopic,
      functionScope: nested.of('ScheduledFunctions'),
    });
    new ServiceAccountUpdater(this, 'AccountUpdater', {
      stage,
      table: this.table.table,
      alarmTopic: this.processing.alarmTopic,
      functionScope: nested.of('ScheduledFunctions'),
    });
    new NoticeBackstop(this, 'NoticeBackstop', {
      stage,
      table: this.table.table,
      alarmTopic: this.processing.alarmTopic,
      functionScope: nested.of('ScheduledFunctions'),
    });
    // The hourly return-rates job: a scheduled job, with the others.
    new ServiceReturnRates(this, 'ReturnRates', {
      stage,
      table: this.table.table,
      alarmTopic: this.processing.alarmTopic,
      functionScope: nested.of('ScheduledFunctions'),
    });
    this.voidOrRefund = new ServiceVoidOrRefund(this, 'VoidOrRefund', {
      stage,
      table: this.table.table,
      alarmTopic: this.processing.alarmTopic,
      functionScope: nested.of('VoidOrRefundFunctions'),
    });
    this.idempotencyHashKey = new IdempotencyHashKey(this, 'IdempotencyHashKey', { stage });
    this.api = new ServiceApi(this, 'Api', {
      stage,
      table: this.table.table,
      userPool: this.auth.userPool,
      cloudWatchRole: apiCloudWatchRole,
      // Each handler's function in the nested stack of its area (lib/cdk/stacks.ts).
      functionScope: (handler) => nested.of(apiStackOf(handler)),
      configureFunction: (fn, handler, handlerRoutes) => {
        // Each function gets the state machines, keys and queues its own code uses, no other
        // (lib/cdk/access.ts): the trigger endpoints start processing executions (outside
        // production only: in prod their function answers 403 and holds nothing), the test
        // clock's settle-now does not.
        bindStateMachineIfUsed(fn, handler, 'stateMachineArn', stateMachine, 'STATE_MACHINE_ARN');
        this.voidOrRefund.bindApiFunction(fn, handler);
        this.webhooks.bindApiFunction(fn, handler);
        this.idempotencyHashKey.bindApiFunction(fn, handler);
        configureFunction?.(fn, handler, handlerRoutes);
      },
    });

    // A Stripe stage takes Stripe's webhooks beside the API (lib/cdk/processor-events.ts).
    if (this.processor === 'stripe')
      new StripeEventsRoute(this, 'StripeEvents', {
        stage,
        table: this.table.table,
        api: this.api.api,
        functionScope: nested.of(apiStackOf(PROCESSOR_EVENTS.stripe.handler)),
      });

    // The web application firewall on the API's stage (lib/cdk/waf.ts).
    this.waf = new ServiceWaf(this, 'Waf', {
      stage,
      api: this.api.api,
      alarmTopic: this.processing.alarmTopic,
    });

    const output = (name: string, value: string, description: string): CfnOutput =>
      new CfnOutput(this, name, { value, description });
    output('ApiUrl', this.api.api.url, 'Base URL of the API ({base_url}), stage path included');
    output('TableName', this.table.table.tableName, 'DynamoDB table');
    output('StateMachineArn', stateMachine.stateMachineArn, 'Group processing state machine');
    output(
      'AlarmTopicArn',
      this.processing.alarmTopic.topicArn,
      'SNS topic of the alarms: subscribe the on-call',
    );
    output('UserPoolId', this.auth.userPool.userPoolId, 'Cognito user pool of the API clients');
    output('TokenUrl', this.auth.tokenUrl, 'OAuth 2.0 token endpoint (client_credentials)');
    output(
      'ClientId',
      this.auth.client.userPoolClientId,
      'App client id; its secret: aws cognito-idp describe-user-pool-client',
    );

    // Keep these two last: they cover every function, alarm and resource built above.
    this.monitoring = new ServiceMonitoring(this, 'Monitoring', {
      stage,
      topic: this.processing.alarmTopic,
      api: this.api.api,
      table: this.table.table,
      stateMachine,
    });
    output('DashboardName', this.monitoring.dashboard.dashboardName, 'CloudWatch dashboard of the stage');
    addNagSuppressions(this, { userPool: this.auth.userPool, api: this.api.api });
  }
}
