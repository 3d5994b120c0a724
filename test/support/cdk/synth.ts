/** Shared helpers of the infra tests: build a stage's stack exactly as bin/app.ts does. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stage as CdkStage, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import cdkJson from '../../../cdk.json';
import { addServiceStacks } from '#lib/cdk/app';
import type { ServiceStack } from '#lib/cdk/service-stack';
import type { Stage } from '#contract/stage';

/**
 * A CDK app with cdk.json's feature flags and no asset bundling: `aws:cdk:bundling-stacks` set to
 * no stack makes NodejsFunction skip esbuild, which would otherwise run once per function.
 */
export function testApp(context: Record<string, unknown> = {}): App {
  return new App({ context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [], ...context } });
}

/** The context prod cannot synthesize without (lib/cdk/app.ts): an account, a region, a real sender. */
export const PROD_CONTEXT = {
  prodAccount: '222222222222',
  region: 'eu-west-1',
  senderAddress: 'payments@payments.example.org',
} as const;

/** A stage's stack as `cdk synth -c stage=<stage>` builds it (prod with PROD_CONTEXT). */
export function synthStage(stage: Stage): { stack: ServiceStack; template: Template } {
  const [stack, ...others] = addServiceStacks(testApp({ stage, ...(stage === 'prod' ? PROD_CONTEXT : {}) }));
  if (stack === undefined || others.length > 0) throw new Error(`expected one stack for stage ${stage}`);
  return { stack, template: Template.fromStack(stack) };
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

/** Physical name of a handler's function (ServiceFunction's default). */
export const functionName = (stage: Stage, handler: string): string =>
  `scheduled-payments-${stage}-${handler.replace(/[^A-Za-z0-9]+/g, '-')}`;

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
export function stagedAssetText(stack: Stack, objectKey: string): string {
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
