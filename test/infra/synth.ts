/** Shared helpers of the infra tests: build a stage's stack exactly as bin/app.ts does. */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import cdkJson from '../../cdk.json';
import { addServiceStacks } from '../../lib/cdk/app';
import type { ServiceStack } from '../../lib/cdk/service-stack';
import type { Stage } from '../../lib/stage';

/**
 * A CDK app with cdk.json's feature flags and no asset bundling: `aws:cdk:bundling-stacks` set to
 * no stack makes NodejsFunction skip esbuild, which would otherwise run once per function.
 */
export function testApp(context: Record<string, unknown> = {}): App {
  return new App({ context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [], ...context } });
}

export function synthStage(stage: Stage): { stack: ServiceStack; template: Template } {
  const [stack, ...others] = addServiceStacks(testApp({ stage }));
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
