/**
 * Whether an alarm's metric is one the service actually emits: an AWS metric of a resource of the
 * same template (with the dimensions AWS publishes it under, and only for what the resource does,
 * e.g. IteratorAge only for a stream consumer, ThrottledRequests only for operations the
 * functions call), or a custom metric a metric filter of the template or the functions' code
 * produces.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Template } from 'aws-cdk-lib/assertions';
import { props, resourcesOf } from '#support/cdk/synth';

interface AlarmMetric {
  readonly namespace: string;
  readonly metricName: string;
  readonly dimensions: Readonly<Record<string, unknown>>;
}

type RawMetric = { Namespace?: string; MetricName?: string; Dimensions?: { Name: string; Value: unknown }[] };

const metricOf = (m: RawMetric): AlarmMetric => ({
  namespace: String(m.Namespace),
  metricName: String(m.MetricName),
  dimensions: Object.fromEntries((m.Dimensions ?? []).map((d) => [d.Name, d.Value])),
});

/** The metrics an alarm reads: its one metric, or every metric of its math expression. */
export function metricsOfAlarm(alarm: Record<string, unknown>): AlarmMetric[] {
  if (alarm.MetricName !== undefined) return [metricOf(alarm as RawMetric)];
  return ((alarm.Metrics ?? []) as { MetricStat?: { Metric: RawMetric } }[]).flatMap((m) =>
    m.MetricStat === undefined ? [] : [metricOf(m.MetricStat.Metric)],
  );
}

const REPO = join(__dirname, '..', '..', '..');

/** Every TypeScript source the functions are built from (lambdas/ and contract/), read once. */
let functionSources: string | undefined;
function sources(): string {
  functionSources ??= ['lambdas', 'contract']
    .flatMap((dir) =>
      (readdirSync(join(REPO, dir), { recursive: true }) as string[])
        .filter((f) => f.endsWith('.ts'))
        .map((f) => readFileSync(join(REPO, dir, f), 'utf8')),
    )
    .join('\n');
  return functionSources;
}

/** DynamoDB document-client commands → the operation DynamoDB reports them under. */
const OPERATION_OF_COMMAND: Record<string, string> = {
  GetCommand: 'GetItem',
  PutCommand: 'PutItem',
  UpdateCommand: 'UpdateItem',
  DeleteCommand: 'DeleteItem',
  QueryCommand: 'Query',
  ScanCommand: 'Scan',
  BatchGetCommand: 'BatchGetItem',
  BatchWriteCommand: 'BatchWriteItem',
  TransactWriteCommand: 'TransactWriteItems',
  TransactGetCommand: 'TransactGetItems',
};

const refOf = (value: unknown): string | undefined => (value as { Ref?: string } | undefined)?.Ref;
const getAttOf = (value: unknown): [string, string] | undefined =>
  (value as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt'];

type Check = (template: Template, metric: AlarmMetric) => string | undefined;

/** A dimension that must name a resource of `type` by Ref. */
const refTo =
  (type: string, dimension: string): Check =>
  (template, { dimensions }) =>
    resourcesOf(template, type)[refOf(dimensions[dimension]) ?? ''] === undefined
      ? `${dimension} is not a ${type} of the stack`
      : undefined;

const AWS_METRICS: Record<string, { names: readonly string[]; check: Check }> = {
  'AWS/Lambda': {
    names: ['Errors', 'Throttles', 'Invocations', 'Duration', 'IteratorAge'],
    check: (template, metric) => {
      const problem = refTo('AWS::Lambda::Function', 'FunctionName')(template, metric);
      if (problem !== undefined || metric.metricName !== 'IteratorAge') return problem;
      const consumes = Object.values(resourcesOf(template, 'AWS::Lambda::EventSourceMapping')).some(
        (m) => refOf(props(m).FunctionName) === refOf(metric.dimensions.FunctionName),
      );
      return consumes ? undefined : 'IteratorAge of a function that consumes no stream';
    },
  },
  'AWS/SQS': {
    names: ['ApproximateNumberOfMessagesVisible', 'ApproximateAgeOfOldestMessage'],
    check: (template, { dimensions }) => {
      const [id, attribute] = getAttOf(dimensions.QueueName) ?? [];
      return attribute === 'QueueName' && resourcesOf(template, 'AWS::SQS::Queue')[id ?? ''] !== undefined
        ? undefined
        : 'QueueName is not a queue of the stack';
    },
  },
  'AWS/States': {
    names: [
      'ExecutionsFailed',
      'ExecutionsTimedOut',
      'ExecutionsAborted',
      'ExecutionsStarted',
      'ExecutionsSucceeded',
      'ExecutionThrottled',
    ],
    check: refTo('AWS::StepFunctions::StateMachine', 'StateMachineArn'),
  },
  'AWS/ApiGateway': {
    names: ['5XXError', '4XXError', 'Count', 'Latency', 'IntegrationLatency'],
    check: (template, { dimensions }) => {
      const apis = Object.values(resourcesOf(template, 'AWS::ApiGateway::RestApi')).map((a) => props(a).Name);
      if (!apis.includes(dimensions.ApiName)) return 'ApiName is not the REST API of the stack';
      const stages = resourcesOf(template, 'AWS::ApiGateway::Stage');
      const stage = stages[refOf(dimensions.Stage) ?? ''];
      const named = Object.values(stages).some((s) => props(s).StageName === dimensions.Stage);
      return stage !== undefined || named ? undefined : 'Stage is not a stage of the REST API';
    },
  },
  'AWS/DynamoDB': {
    names: ['ThrottledRequests', 'ReadThrottleEvents', 'WriteThrottleEvents', 'SystemErrors'],
    check: (template, metric) => {
      const problem = refTo('AWS::DynamoDB::Table', 'TableName')(template, metric);
      if (problem !== undefined || metric.dimensions.Operation === undefined) return problem;
      const used = Object.entries(OPERATION_OF_COMMAND)
        .filter(([command]) => new RegExp(`\\b${command}\\b`).test(sources()))
        .map(([, operation]) => operation);
      return used.includes(String(metric.dimensions.Operation))
        ? undefined
        : `Operation ${String(metric.dimensions.Operation)} is never called by the functions`;
    },
  },
  'AWS/WAFV2': {
    names: ['BlockedRequests', 'AllowedRequests', 'CountedRequests'],
    check: (template, { dimensions }) => {
      const acl = Object.values(resourcesOf(template, 'AWS::WAFv2::WebACL'))
        .map(props)
        .find((a) => a.Name === dimensions.WebACL);
      if (acl === undefined) return 'WebACL is not a web ACL of the stack';
      const rules = (acl.Rules as { VisibilityConfig: { MetricName: string } }[]).map(
        (r) => r.VisibilityConfig.MetricName,
      );
      return dimensions.Rule === undefined || rules.includes(String(dimensions.Rule))
        ? undefined
        : 'Rule is not a metric name of a rule of the web ACL';
    },
  },
  'AWS/SES': {
    names: ['Send', 'Delivery', 'Bounce', 'Complaint', 'Reject'],
    check: (template, { metricName, dimensions }) => {
      const ok = Object.values(resourcesOf(template, 'AWS::SES::ConfigurationSetEventDestination')).some(
        (d) => {
          const destination = props(d).EventDestination as {
            MatchingEventTypes: string[];
            CloudWatchDestination?: {
              DimensionConfigurations: { DimensionName: string; DefaultDimensionValue: unknown }[];
            };
          };
          return (
            destination.MatchingEventTypes.includes(metricName.toLowerCase()) &&
            (destination.CloudWatchDestination?.DimensionConfigurations ?? []).some(
              (c) =>
                Object.keys(dimensions).length === 1 &&
                JSON.stringify(dimensions[c.DimensionName]) === JSON.stringify(c.DefaultDimensionValue),
            )
          );
        },
      );
      return ok ? undefined : 'no configuration-set event destination publishes it with these dimensions';
    },
  },
};

/** Why the service would never emit this metric, or undefined when it does. */
export function emittedMetricProblem(template: Template, metric: AlarmMetric): string | undefined {
  const label = `${metric.namespace} ${metric.metricName}`;
  const aws = AWS_METRICS[metric.namespace];
  if (aws !== undefined) {
    if (!aws.names.includes(metric.metricName)) return `${label} is not a metric this check knows`;
    const problem = aws.check(template, metric);
    return problem === undefined ? undefined : `${label}: ${problem}`;
  }
  if (metric.namespace.startsWith('AWS/')) return `${label}: no resource of the stack publishes there`;
  // A custom metric: a metric filter of the stack, or the functions' code (embedded metric format).
  const filtered = Object.values(resourcesOf(template, 'AWS::Logs::MetricFilter')).some((f) =>
    (props(f).MetricTransformations as { MetricNamespace: string; MetricName: string }[]).some(
      (t) => t.MetricNamespace === metric.namespace && t.MetricName === metric.metricName,
    ),
  );
  const inCode = sources().includes(`'${metric.metricName}'`) || sources().includes(`"${metric.metricName}"`);
  return filtered || inCode ? undefined : `${label}: neither a metric filter nor the functions emit it`;
}
