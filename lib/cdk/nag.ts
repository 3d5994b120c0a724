/**
 * cdk-nag (AwsSolutions pack) acknowledgements: each names its rule (with the finding for
 * rules that report several), the construct it is placed on, and the reason. The infra tests
 * (test/infra/readiness.test.ts) run the pack on both stages and fail on any finding not acknowledged
 * here, so a new resource that breaks a rule needs a reason of its own. Wildcard resources are
 * acknowledged by what they are (X-Ray, table indexes, function versions, sandbox identities),
 * never blindly: an unknown wildcard stays a finding. The pack walks the nested stacks too.
 */
import { Stack, Validations } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct, IConstruct } from 'constructs';

/** The parts of the service stack whose findings are acknowledged by construct. */
interface NagTargets {
  readonly userPool: Construct;
  readonly api: apigw.RestApi;
}

const acknowledge = (scope: IConstruct, id: string, reason: string): void =>
  Validations.of(scope).acknowledge({ id: `AwsSolutions-${id}`, reason });

/** A resolved CloudFormation value in cdk-nag's notation: `<Id.Attr>`, `<Ref>`, joins joined. */
function nagNotation(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    if ('Ref' in obj) return `<${String(obj.Ref)}>`;
    if ('Fn::GetAtt' in obj) return `<${(obj['Fn::GetAtt'] as string[]).join('.')}>`;
    if ('Fn::Join' in obj) {
      const [separator, parts] = obj['Fn::Join'] as [string, unknown[]];
      return parts.map(nagNotation).join(separator);
    }
  }
  return JSON.stringify(value);
}

/** Actions that take no resource (IAM needs "*"), by what uses them. */
const NO_RESOURCE_ACTIONS: readonly (readonly [RegExp, string])[] = [
  [/^xray:(PutTraceSegments|PutTelemetryRecords|GetSamplingRules|GetSamplingTargets)$/, 'X-Ray tracing'],
  [
    /^logs:((Create|Delete|Get|Update)LogDelivery|ListLogDeliveries|DescribeLogGroups|DescribeResourcePolicies|PutResourcePolicy)$/,
    "CloudWatch Logs delivery of the state machine's logs",
  ],
  [/^dynamodb:ListStreams$/, "the stream event source's ListStreams"],
];

/** The reason a wildcard resource of a statement is what it must be, or undefined. */
function wildcardReason(resource: string, actions: readonly string[]): string | undefined {
  const all = (prefix: string): boolean => actions.every((a) => a.startsWith(prefix));
  if (resource === '*') {
    const families = actions.map((a) => NO_RESOURCE_ACTIONS.find(([pattern]) => pattern.test(a))?.[1]);
    if (families.some((f) => f === undefined)) return undefined;
    return `${[...new Set(families)].join(', ')}: these actions take no resource, so "*".`;
  }
  // An ARN is `<Id.Arn>` in its own stack, and a parameter or a nested stack's output named
  // `…Arn` in another (`<referenceto…TableXXXXArn>`, `<…NestedStackResource.Outputs.…Arn>`).
  if (/^<[^>]+Arn>\/index\/\*$/.test(resource) && all('dynamodb:'))
    return "Queries on the service table's global secondary indexes, named by the table's ARN.";
  if (/^<[^>]+Arn>:\*$/.test(resource) && all('lambda:InvokeFunction'))
    return 'Invoking a task function by any version or alias of that one function (CDK grantInvoke).';
  if (/:states:.+:execution:.+:\*$/.test(resource) && all('states:'))
    return 'The executions of one state machine, named by execution (CDK grantRead/grantExecution on the state machine).';
  if (/:ses:.+:identity\/\*$/.test(resource) && all('ses:SendEmail'))
    return 'Dev only: in the SES sandbox SES also authorizes the verified recipient identities; the sender stays fixed by the ses:FromAddress condition.';
  return undefined;
}

/**
 * Acknowledge each wildcard resource of the stack's IAM policies (its nested stacks' included)
 * whose every statement has a known reason (one finding may come from several statements: their
 * reasons are joined). A policy is read as its own stack writes it: a value of another stack is a
 * parameter or an output there, which CDK settles only when it prepares the app for synthesis.
 */
function acknowledgeWildcards(stack: Stack): void {
  for (const policy of stack.node.findAll().filter((c) => c instanceof iam.CfnPolicy)) {
    const document = Stack.of(policy).resolve((policy as iam.CfnPolicy).policyDocument) as {
      Statement: { Action: string | string[]; Resource: unknown }[];
    };
    const reasons = new Map<string, (string | undefined)[]>();
    for (const statement of document.Statement) {
      const actions = [statement.Action].flat();
      for (const resource of [statement.Resource].flat().map(nagNotation)) {
        if (!resource.includes('*')) continue;
        const finding = `IAM5[Resource::${resource}]`;
        reasons.set(finding, [...(reasons.get(finding) ?? []), wildcardReason(resource, actions)]);
      }
    }
    for (const [finding, known] of reasons) {
      if (known.some((r) => r === undefined)) continue;
      acknowledge(policy, finding, [...new Set(known)].join(' '));
    }
  }
}

const BASIC_EXECUTION_ROLE =
  'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]';

/** Every Lambda function of the stack: its runtime and its role's managed policy. */
function acknowledgeFunctions(stack: Stack): void {
  for (const fn of stack.node.findAll().filter((c): c is lambda.Function => c instanceof lambda.Function)) {
    acknowledge(
      fn,
      'L1',
      'Node.js 22 is the runtime the bundles are built for and tested on (npm runs every script and test on Node 22); a runtime upgrade is a change of its own.',
    );
    if (fn.role !== undefined)
      acknowledge(
        fn.role,
        BASIC_EXECUTION_ROLE,
        'AWSLambdaBasicExecutionRole grants only CreateLogGroup, CreateLogStream and PutLogEvents, which every function needs for its logs.',
      );
  }
}

/** Add every acknowledgement of the service stack; call it after every resource exists. */
export function addNagSuppressions(stack: Stack, targets: NagTargets): void {
  acknowledgeFunctions(stack);
  // The wildcards once references across stacks are settled: CDK validates the tree after it has
  // prepared the app, and before cdk-nag (a validation plugin, or the tests) reads it.
  let wildcardsAcknowledged = false;
  stack.node.addValidation({
    validate: () => {
      if (!wildcardsAcknowledged) acknowledgeWildcards(stack);
      wildcardsAcknowledged = true;
      return [];
    },
  });

  const { userPool, api } = targets;
  const noUsers =
    'The pool has no users: only machine clients (client credentials) created by operators; self sign-up is off.';
  acknowledge(userPool, 'COG1', `No passwords: ${noUsers}`);
  acknowledge(userPool, 'COG2', `No sign-ins to protect with MFA: ${noUsers}`);
  acknowledge(userPool, 'COG8', `Plus-tier threat protection guards user sign-ins: ${noUsers}`);

  acknowledge(
    api,
    'APIG2',
    "Request validation is done in the functions against the contract's JSON Schemas, so that every refusal carries the service's error body and names the field.",
  );
  acknowledge(
    api.deploymentStage,
    'APIG6',
    'Execution logging is off so that no request body (card and bank numbers) reaches logs; JSON access logs are on.',
  );
  const cloudWatchRole = api.node.tryFindChild('CloudWatchRole');
  if (cloudWatchRole !== undefined)
    acknowledge(
      cloudWatchRole,
      'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      "API Gateway's account-level logging role needs exactly this AWS managed policy to write access logs.",
    );
}

/** Every acknowledgement in a construct tree: rule, construct path and reason. */
export function acknowledgementsOf(scope: IConstruct): { rule: string; path: string; reason: string }[] {
  return scope.node.findAll().flatMap((c) =>
    c.node.metadata
      .filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((m) =>
        Object.entries(m.data as Record<string, string>).map(([rule, reason]) => ({
          rule: rule.replace(/^annotation::/i, ''),
          path: c.node.path,
          reason,
        })),
      ),
  );
}
