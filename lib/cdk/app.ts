/**
 * The stages of the service as stacks of a CDK app. Shared by bin/app.ts and the infra tests, so
 * that both build exactly the same stacks.
 *
 * Context (`-c key=value`):
 * - `stage`            synthesize only this stage (`dev` or `prod`); default both
 * - `devAccount`, `prodAccount`  the stage's AWS account; default CDK_DEFAULT_ACCOUNT
 * - `region`           the region of both stages; default CDK_DEFAULT_REGION when an account is known
 * - `authDomainSuffix` suffix of the Cognito domain prefix; default derived from the stack id
 * - `senderAddress`    sender of the payor e-mails (its domain is the SES identity)
 *
 * With neither account nor region known the stacks are environment-agnostic, so synth works
 * offline without credentials. CDK_DEFAULT_REGION alone does not pin a stack: the CLI sets it to
 * us-east-1 whenever nothing is configured, and an offline synth would bake that region in.
 */
import type { App, Environment } from 'aws-cdk-lib';
import { parseStage, stages, type Stage } from '../../contract/stage';
import { ServiceStack } from './service-stack';

/** The stack name of a stage. */
export const stackName = (stage: Stage): string => `ScheduledPayments-${stage}`;

function context(app: App, key: string): string | undefined {
  const value: unknown = app.node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`context ${key} must be a string`);
  return value;
}

function environment(app: App, stage: Stage): Environment | undefined {
  const account = context(app, `${stage}Account`) ?? process.env.CDK_DEFAULT_ACCOUNT;
  const region =
    context(app, 'region') ?? (account === undefined ? undefined : process.env.CDK_DEFAULT_REGION);
  return account === undefined && region === undefined ? undefined : { account, region };
}

/** Add the stacks of every stage, or only of the `stage` context value. */
export function addServiceStacks(app: App): ServiceStack[] {
  const only = context(app, 'stage');
  const selected: readonly Stage[] = only === undefined ? stages : [parseStage(only)];
  return selected.map(
    (stage) =>
      new ServiceStack(app, stackName(stage), {
        stage,
        env: environment(app, stage),
        authDomainSuffix: context(app, 'authDomainSuffix'),
        senderAddress: context(app, 'senderAddress'),
      }),
  );
}
