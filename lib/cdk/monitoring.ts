/**
 * The service's monitoring, built last in the stack so that it sees every function: TLS on the
 * alarm topic, the alarms that cover the whole stage (API 5XX rate, Lambda throttles, DynamoDB
 * throttled requests, aborted executions) and one CloudWatch dashboard with every alarm on it.
 */
import { Duration, Stack, Tags } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { Stage } from '../../contract/stage';
import { serviceAlarm } from './alarms';
import { SERVICE_NAME } from './service-function';

interface ServiceMonitoringProps {
  readonly stage: Stage;
  readonly topic: sns.Topic;
  readonly api: apigw.RestApi;
  readonly table: dynamodb.Table;
  readonly stateMachine: sfn.StateMachine;
}

/** The DynamoDB operations the functions call (their SDK commands), for ThrottledRequests. */
const TABLE_OPERATIONS: readonly dynamodb.Operation[] = [
  dynamodb.Operation.GET_ITEM,
  dynamodb.Operation.PUT_ITEM,
  dynamodb.Operation.UPDATE_ITEM,
  dynamodb.Operation.DELETE_ITEM,
  dynamodb.Operation.QUERY,
  dynamodb.Operation.BATCH_GET_ITEM,
  dynamodb.Operation.BATCH_WRITE_ITEM,
  dynamodb.Operation.TRANSACT_WRITE_ITEMS,
];

/** CloudWatch alarms on metric math take at most 10 metrics. */
const MAX_ALARM_METRICS = 10;
const PERIOD = Duration.minutes(5);

export class ServiceMonitoring extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: ServiceMonitoringProps) {
    super(scope, id);
    const { stage, topic, api, table, stateMachine } = props;
    const stack = Stack.of(this);
    enforceTls(topic, stack.account);

    const alarm = (name: string, metric: cloudwatch.IMetric, description: string, threshold = 1) =>
      serviceAlarm(this, stage, topic, name, metric, description, { threshold });

    // 5XXError is the share of requests answered 5xx (0..1): its average is the rate.
    const serverErrors = api.deploymentStage.metricServerError({ statistic: 'Average', period: PERIOD });
    alarm('api-5xx-rate', serverErrors, 'More than 1% of API requests answered 5xx in 5 minutes', 0.01);

    const functions = stack.node
      .findAll()
      .filter((c): c is lambda.Function => c instanceof lambda.Function)
      .sort((a, b) => a.node.path.localeCompare(b.node.path));
    const chunks: lambda.Function[][] = [];
    for (let i = 0; i < functions.length; i += MAX_ALARM_METRICS)
      chunks.push(functions.slice(i, i + MAX_ALARM_METRICS));
    const throttles = chunks.map((chunk, i) => {
      const usingMetrics = Object.fromEntries(
        chunk.map((fn, j) => [`t${i}_${j}`, fn.metricThrottles({ period: PERIOD, statistic: 'Sum' })]),
      );
      const metric = new cloudwatch.MathExpression({
        expression: Object.keys(usingMetrics).join(' + '),
        usingMetrics,
        period: PERIOD,
        label: `Throttles (functions ${i * MAX_ALARM_METRICS + 1}-${i * MAX_ALARM_METRICS + chunk.length})`,
      });
      alarm(
        `lambda-throttles-${i + 1}`,
        metric,
        `Lambda throttled invocations of ${chunk.map((fn) => fn.node.scope?.node.id ?? fn.node.id).join(', ')}`,
      );
      return metric;
    });

    const tableThrottles = table.metricThrottledRequestsForOperations({
      operations: [...TABLE_OPERATIONS],
      period: PERIOD,
    });
    alarm('table-throttled-requests', tableThrottles, 'DynamoDB throttled requests on the service table');

    // Failed and timed-out executions are alarmed where each state machine is built; a stopped
    // (aborted) execution leaves its work half done just the same, on every state machine.
    const stateMachines = stack.node
      .findAll()
      .filter((c): c is sfn.StateMachine => c instanceof sfn.StateMachine);
    for (const machine of stateMachines) {
      const name =
        machine === stateMachine ? 'executions' : kebab(machine.node.scope?.node.id ?? machine.node.id);
      alarm(
        `${name}-aborted`,
        machine.metricAborted({ period: PERIOD }),
        `An execution of ${machine.node.path.split('/').slice(1).join('/')} was stopped by hand: its work is left half done (see the runbook)`,
      );
    }

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: `${SERVICE_NAME}-${stage}`,
      defaultInterval: Duration.hours(6),
    });
    // Dashboard tags are recent in CloudFormation (cfn-lint's schema refuses them): the stack's
    // tags stay off it; its name carries the service and stage.
    for (const key of ['service', 'stage']) Tags.of(this.dashboard).remove(key);
    const alarms = stack.node
      .findAll()
      .filter((c): c is cloudwatch.Alarm => c instanceof cloudwatch.Alarm)
      .sort((a, b) => a.alarmName.localeCompare(b.alarmName));
    const graph = (title: string, left: cloudwatch.IMetric[]): cloudwatch.GraphWidget =>
      new cloudwatch.GraphWidget({ title, left, width: 12 });
    this.dashboard.addWidgets(
      new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms, width: 24 }),
      graph('API requests', [api.deploymentStage.metricCount({ period: PERIOD })]),
      graph('API 5xx rate', [serverErrors]),
      graph('API latency p99', [api.deploymentStage.metricLatency({ statistic: 'p99', period: PERIOD })]),
      graph('Lambda throttles', throttles),
      graph('DynamoDB throttled requests', [tableThrottles]),
      ...stateMachines.map((machine) =>
        graph(`Executions: ${machine.node.scope?.node.id ?? machine.node.id}`, [
          machine.metricStarted({ period: PERIOD }),
          machine.metricSucceeded({ period: PERIOD }),
          machine.metricFailed({ period: PERIOD }),
          machine.metricTimedOut({ period: PERIOD }),
          machine.metricAborted({ period: PERIOD }),
        ]),
      ),
    );
  }
}

/**
 * Refuse every request to the topic that does not use TLS (what `enforceSSL` does at creation;
 * the topic is created elsewhere), and let CloudWatch alarms of this account publish: a topic
 * policy replaces the default one.
 */
function enforceTls(topic: sns.Topic, account: string): void {
  topic.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'AllowPublishThroughSSLOnly',
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: { Bool: { 'aws:SecureTransport': 'false' } },
    }),
  );
  topic.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'AllowCloudWatchAlarms',
      principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: { StringEquals: { 'aws:SourceAccount': account } },
    }),
  );
}

/** `VoidOrRefund` → `void-or-refund`, for alarm names. */
const kebab = (id: string): string => id.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
