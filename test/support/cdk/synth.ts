/**
 * Shared helpers of the infra tests: build a stage's stack exactly as bin/app.ts does, and read its
 * templates: each stack's own (stageStacks), or all of them as one (stageTemplate).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stage as CdkStage, NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import cdkJson from '../../../cdk.json';
import { addServiceStacks } from '#lib/cdk/app';
import { acknowledgementsOf } from '#lib/cdk/nag';
import type { ServiceStack } from '#lib/cdk/service-stack';
import type { Stage } from '#contract/stage';

/**
 * A CDK app with cdk.json's feature flags and no asset bundling: `aws:cdk:bundling-stacks` set to
 * no stack makes NodejsFunction skip esbuild, which would otherwise run once per function.
 *
 * Without the construct's creation stack trace that CDK records in the cloud assembly's metadata
 * (never in a template; `cdk synth --debug` shows it): capturing it at every CloudFormation element
 * was a twelfth of the tier's CPU.
 *
 * CDK's built-in CloudFormation validation (as `cdk synth` runs it; cdk.json makes its findings
 * errors) runs only where `validation` is true: test/infra/readiness.test.ts validates each
 * stage's templates, and test/infra/app.test.ts a full synthesis of both. Elsewhere a synthesis
 * would start its engine again (3 s of CPU) to check the same resources.
 */
export function testApp(context: Record<string, unknown> = {}, { validation = false } = {}): App {
  return new App({
    context: {
      ...cdkJson.context,
      'aws:cdk:bundling-stacks': [],
      'aws:cdk:disable-creation-stack-traces': true,
      ...context,
    },
    builtinCloudFormationValidation: validation,
  });
}

/**
 * The context prod cannot synthesize without (lib/cdk/app.ts): an account, a region, a real sender
 * and its processor: here the sandbox, said explicitly, so that the tier's prod template is the
 * sandbox's (test/infra/stripe-stage.test.ts and test/infra/readiness.test.ts synthesize a Stripe
 * prod).
 */
export const PROD_CONTEXT = {
  prodAccount: '222222222222',
  region: 'eu-west-1',
  senderAddress: 'payments@payments.example.org',
  prodProcessor: 'sandbox',
} as const;

/** The context `cdk synth -c stage=<stage>` builds a stage with (prod's with PROD_CONTEXT). */
export const stageContext = (stage: Stage): Record<string, unknown> => ({
  stage,
  ...(stage === 'prod' ? PROD_CONTEXT : {}),
});

/**
 * A stage's stack as `cdk synth -c stage=<stage>` builds it (stageContext), with its templates as
 * one (stageTemplate). Synthesized without CDK's CloudFormation validation (testApp): the
 * engine's start and its pass over the templates were about half of each infra file's CPU, and
 * these same templates pass it once per run in test/infra/readiness.test.ts.
 */
export function synthStage(stage: Stage): { stack: ServiceStack; template: Template } {
  const [stack, ...others] = addServiceStacks(testApp(stageContext(stage)));
  if (stack === undefined || others.length > 0) throw new Error(`expected one stack for stage ${stage}`);
  return { stack, template: stageTemplate(stack) };
}

/** Where a stack is: its region and account resolved and flattened (`${AWS::Region}`, `${AWS::AccountId}` where the deploy decides). */
export interface StackPlace {
  region: string;
  account: string;
}

export const placeOf = (stack: Stack): StackPlace => ({
  region: flatten(stack.resolve(stack.region)),
  account: flatten(stack.resolve(stack.account)),
});

/** What the infra files read of a stage's stack besides its merged template. */
export interface StageFacts extends StackPlace {
  acknowledgements: ReturnType<typeof acknowledgementsOf>;
  terminationProtection: boolean;
  /** Each CloudFormation stack's own template, as stageStacks lists them (the stage stack's first). */
  stacks: { id: string; template: Record<string, unknown> }[];
  /** The text of each state machine definition staged as a file asset, by its object key. */
  stagedDefinitions: Record<string, string>;
}

/** What a stage's stack object tells the infra files (StageFacts), read once it is synthesized. */
function factsOf(stack: Stack, template: Template): StageFacts {
  const stagedDefinitions: Record<string, string> = {};
  for (const machine of Object.values(template.findResources('AWS::StepFunctions::StateMachine'))) {
    const key = (machine.Properties as { DefinitionS3Location?: { Key?: unknown } } | undefined)
      ?.DefinitionS3Location?.Key;
    if (typeof key === 'string') stagedDefinitions[key] = stagedAssetText(stack, key);
  }
  return {
    ...placeOf(stack),
    acknowledgements: acknowledgementsOf(stack),
    terminationProtection: stack.terminationProtection,
    stacks: stageStacks(stack).map(({ id, template: t }) => ({ id, template: t.toJSON() })),
    stagedDefinitions,
  };
}

/** StageFacts' stacks, each template readable with Template's assertions. */
export const stackTemplates = (facts: StageFacts): { id: string; template: Template }[] =>
  facts.stacks.map(({ id, template }) => ({
    id,
    template: Template.fromJSON(template, { skipCyclicalDependenciesCheck: true }),
  }));

/**
 * A stage's templates as one, with what the files read of its stack (StageFacts), synthesized once
 * per run of the infra tier: the first file that asks writes them into the tier's directory
 * (INFRA_TEMPLATE_DIR, made by test/support/cdk/global-setup.ts), the others read them. Each file
 * synthesizing both stages itself cost the tier a third of its time. Files that need more of the
 * stack object use synthStage.
 */
export function stageSynthOf(stage: Stage): { template: Template } & StageFacts {
  const dir = process.env.INFRA_TEMPLATE_DIR;
  const synthesized = (): { template: Template } & StageFacts => {
    const { stack, template } = synthStage(stage);
    return { template, ...factsOf(stack, template) };
  };
  if (dir === undefined) return synthesized();
  const file = join(dir, `${stage}.json`);
  if (existsSync(file)) {
    const { template, ...facts } = JSON.parse(readFileSync(file, 'utf8')) as {
      template: Record<string, unknown>;
    } & StageFacts;
    return { template: Template.fromJSON(template, { skipCyclicalDependenciesCheck: true }), ...facts };
  }
  const { template, ...facts } = synthesized();
  // Written whole, then renamed: another worker never reads half a file.
  const partial = `${file}.${process.pid}`;
  writeFileSync(partial, JSON.stringify({ template: template.toJSON(), ...facts }));
  renameSync(partial, file);
  return { template, ...facts };
}

/** A stage's templates as one, synthesized once per run of the infra tier (stageSynthOf). */
export const stageTemplateOf = (stage: Stage): Template => stageSynthOf(stage).template;

type Json = Record<string, unknown> & {
  Resources: Record<string, Record<string, unknown>>;
  Parameters?: Record<string, unknown>;
  Outputs?: Record<string, { Value: unknown }>;
};

/** A stack's template as JSON, synthesizing the app once (Template.fromStack caches the assembly). */
const templateOf = (stack: Stack): Json => Template.fromStack(stack).toJSON() as Json;

/**
 * Every CloudFormation stack of a stage: the stage stack, then its nested stacks (construct tree
 * order), each with its construct id (the stage stack's is its stack name) and template.
 */
export function stageStacks(stack: Stack): { id: string; stack: Stack; template: Template }[] {
  const nested = stack.node.findAll().filter((c): c is NestedStack => c instanceof NestedStack);
  return [stack, ...nested].map((s) => ({
    id: s === stack ? s.stackName : s.node.id,
    stack: s,
    template: Template.fromStack(s),
  }));
}

/**
 * A stage's templates as one: the resources and outputs of the stage stack and of every nested
 * stack, with each value a nested stack receives (its parameters) or hands out (its outputs)
 * replaced by what it stands for. A function's TABLE_NAME reads `{Ref: <the table's id>}` and a
 * method's integration `<the function's id>.Arn`, as in a single template; tests look resources up
 * across the stacks without knowing which holds what (stageStacks says that). Logical ids are
 * unique across the stage's templates (checked); the nested stacks' own AWS::CloudFormation::Stack
 * resources stay in it.
 */
export function stageTemplate(stack: Stack): Template {
  const templates = new Map<Stack, Json>();
  const get = (s: Stack): Json => {
    let t = templates.get(s);
    if (t === undefined) templates.set(s, (t = templateOf(s)));
    return t;
  };
  /**
   * The nested stack whose AWS::CloudFormation::Stack resource has this logical id in `parent`: the
   * parent's nested stacks by that id, looked up once per parent (a walk of its whole construct tree).
   */
  const nestedOf = new Map<Stack, Map<string, NestedStack>>();
  const nestedByResource = (parent: Stack, logicalId: string): NestedStack | undefined => {
    let byId = nestedOf.get(parent);
    if (byId === undefined) {
      byId = new Map();
      for (const c of parent.node.findAll())
        if (c instanceof NestedStack && c.nestedStackParent === parent && c.nestedStackResource !== undefined)
          byId.set(parent.resolve(c.nestedStackResource.logicalId) as string, c);
      nestedOf.set(parent, byId);
    }
    return byId.get(logicalId);
  };

  const resolveIn = (s: Stack, value: unknown): unknown => {
    if (Array.isArray(value)) return value.map((v) => resolveIn(s, v));
    if (value === null || typeof value !== 'object') return value;
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj);
    if (keys.length === 1 && typeof obj.Ref === 'string' && s instanceof NestedStack) {
      const parameter = get(s).Parameters?.[obj.Ref];
      if (parameter !== undefined) {
        const parent = s.nestedStackParent!;
        const resource = get(parent).Resources[parent.resolve(s.nestedStackResource!.logicalId) as string]!;
        const passed = (resource.Properties as { Parameters: Record<string, unknown> }).Parameters[obj.Ref];
        return resolveIn(parent, passed);
      }
    }
    const getAtt = obj['Fn::GetAtt'];
    if (keys.length === 1 && Array.isArray(getAtt) && String(getAtt[1]).startsWith('Outputs.')) {
      const nested = nestedByResource(s, String(getAtt[0]));
      if (nested !== undefined) {
        const output = get(nested).Outputs?.[String(getAtt[1]).slice('Outputs.'.length)];
        if (output === undefined) throw new Error(`no output ${String(getAtt[1])} in ${nested.node.path}`);
        return resolveIn(nested, output.Value);
      }
    }
    return Object.fromEntries(keys.map((k) => [k, resolveIn(s, obj[k])]));
  };

  const merged: Json = { ...get(stack), Resources: {} };
  for (const { stack: s } of stageStacks(stack)) {
    for (const [id, resource] of Object.entries(get(s).Resources)) {
      if (id in merged.Resources) throw new Error(`logical id ${id} is in two stacks of ${stack.stackName}`);
      merged.Resources[id] = resolveIn(s, resource) as Record<string, unknown>;
    }
  }
  merged.Outputs = resolveIn(stack, get(stack).Outputs ?? {}) as Json['Outputs'];
  return Template.fromJSON(merged, { skipCyclicalDependenciesCheck: true });
}

export type Resource = { Type: string; Properties?: Record<string, unknown> } & Record<string, unknown>;

/** Resources of a type, by logical id. */
export const resourcesOf = (template: Template, type: string): Record<string, Resource> =>
  template.findResources(type) as Record<string, Resource>;

export const props = (resource: Resource): Record<string, unknown> => resource.Properties ?? {};

/**
 * A CloudFormation value as a string, with `Ref`/`Fn::GetAtt` written as `${Ref}`/`${Id.Attr}` and
 * `Fn::Join` joined, so ARNs built by CDK can be compared with plain strings.
 */
export function flatten(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    if ('Ref' in obj) return `\${${String(obj.Ref)}}`;
    if ('Fn::GetAtt' in obj) return `\${${(obj['Fn::GetAtt'] as string[]).join('.')}}`;
    if ('Fn::Join' in obj) {
      const [separator, parts] = obj['Fn::Join'] as [string, unknown[]];
      return parts.map(flatten).join(separator);
    }
  }
  return JSON.stringify(value);
}

/**
 * Physical name of a handler's function (ServiceFunction's default): the module path with `_`
 * between folder and file, `scheduled-payments-<stage>-groups_create-group`.
 */
export const functionName = (stage: Stage, handler: string): string =>
  `scheduled-payments-${stage}-${handler.replace(/\//g, '_').replace(/[^A-Za-z0-9_]+/g, '-')}`;

/** Logical id of the function of a handler module, found by its physical name. */
export function functionIdOf(template: Template, stage: Stage, handler: string): string {
  const name = functionName(stage, handler);
  const ids = Object.entries(resourcesOf(template, 'AWS::Lambda::Function'))
    .filter(([, r]) => props(r).FunctionName === name)
    .map(([id]) => id);
  if (ids.length !== 1) throw new Error(`expected one function named ${name}, found ${ids.length}`);
  return ids[0] as string;
}

export type Statement = { Effect: string; Action: string | string[]; Resource: unknown } & Record<
  string,
  unknown
>;

/** Logical id of a function's execution role. */
export const roleIdOf = (fn: Resource): string =>
  (props(fn).Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];

/** Every statement of the AWS::IAM::Policy resources attached to a role. */
export const roleStatements = (template: Template, roleId: string): Statement[] =>
  Object.values(resourcesOf(template, 'AWS::IAM::Policy'))
    .map(props)
    .filter((p) => (p.Roles as { Ref?: string }[]).some((r) => r.Ref === roleId))
    .flatMap((p) => (p.PolicyDocument as { Statement: Statement[] }).Statement);

export const actionsOf = (statement: Statement): string[] => [statement.Action].flat();
export const resourcesOfStatement = (statement: Statement): string[] =>
  [statement.Resource].flat().map(flatten);

/**
 * The text of a file asset as synthesized for deployment (its staged copy in the cloud assembly),
 * found by its S3 object key in the stack's asset manifest.
 */
function stagedAssetText(stack: Stack, objectKey: string): string {
  const { directory } = CdkStage.of(stack)?.synth() ?? {};
  if (directory === undefined) throw new Error('stack is not in a stage');
  const manifest = JSON.parse(readFileSync(join(directory, `${stack.artifactId}.assets.json`), 'utf8')) as {
    files: Record<string, { source: { path: string }; destinations: Record<string, { objectKey: string }> }>;
  };
  const assets = Object.values(manifest.files).filter((f) =>
    Object.values(f.destinations).some((d) => d.objectKey === objectKey),
  );
  if (assets.length !== 1)
    throw new Error(`expected one asset with key ${objectKey}, found ${assets.length}`);
  return readFileSync(join(directory, (assets[0] as { source: { path: string } }).source.path), 'utf8');
}

/** A whole stage synthesizes in a few seconds, the first one in a process in more than Jest's 5 s default. */
export const SYNTH_TIMEOUT_MS = 60_000;

/**
 * Whether a statement is a function's use of prod's table or queues key (lib/cdk/keys.ts): those
 * go with its table and queue access, and test/infra/kms.test.ts checks each one.
 */
export const isDataKeyStatement = (statement: Statement): boolean =>
  statement.Effect === 'Allow' &&
  actionsOf(statement).every((a) => a.startsWith('kms:')) &&
  resourcesOfStatement(statement).every(isDataKeyArn);

/** Whether a (flattened) resource is prod's table or queues key. */
export const isDataKeyArn = (resource: string): boolean =>
  /^\$\{Keys(Table|Queues)Key[0-9A-F]+\.Arn\}$/.test(resource);

/** A queue's encryption on a stage: prod's queues key (kms.test.ts says which), dev's SQS-managed keys. */
export const queueEncryptionOf = (stage: Stage): Record<string, unknown> =>
  stage === 'prod' ? { KmsMasterKeyId: expect.anything() } : { SqsManagedSseEnabled: true };

/** The path of each API Gateway resource of `template`, by logical id (`/rest/merchants/{MID}`). */
export function resourcePaths(template: Template): Map<string, string> {
  const resources = resourcesOf(template, 'AWS::ApiGateway::Resource');
  const paths = new Map<string, string>();
  const pathOf = (id: string): string => {
    const known = paths.get(id);
    if (known !== undefined) return known;
    const resource = resources[id];
    if (resource === undefined) throw new Error(`no resource ${id}`);
    const parent = props(resource).ParentId as { Ref?: string };
    // A parent that is not a Ref is the API's RootResourceId.
    const path = `${parent.Ref === undefined ? '' : pathOf(parent.Ref)}/${String(props(resource).PathPart)}`;
    paths.set(id, path);
    return path;
  };
  for (const id of Object.keys(resources)) pathOf(id);
  return paths;
}

/**
 * A function's embedded-metric-format log line read back as CloudWatch reads it: the metric's
 * namespace and name, its one dimension (as an alarm names it) and the count it carries.
 */
export function emittedMetric(line: string): {
  namespace: string;
  name: string;
  dimension: { Name: string; Value: unknown };
  value: unknown;
} {
  const parsed = JSON.parse(line) as {
    _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] };
    [key: string]: unknown;
  };
  const [emitted] = parsed._aws.CloudWatchMetrics;
  const dimension = emitted!.Dimensions[0]![0]!;
  const name = emitted!.Metrics[0]!.Name;
  return {
    namespace: emitted!.Namespace,
    name,
    dimension: { Name: dimension, Value: parsed[dimension] },
    value: parsed[name],
  };
}
