/**
 * The stages of the service as stacks of a CDK app. Shared by bin/app.ts and the infra tests, so
 * that both build exactly the same stacks.
 *
 * Context (`-c key=value`):
 * - `stage`            synthesize only this stage (`dev` or `prod`)
 * - `devAccount`       dev's AWS account; default CDK_DEFAULT_ACCOUNT
 * - `prodAccount`      prod's AWS account; required for prod
 * - `region`           the region of both stages; required for prod; for dev default
 *                      CDK_DEFAULT_REGION when an account is known
 * - `senderAddress`    sender of the payor e-mails (its domain is the SES identity); required for
 *                      prod, on a domain you can verify (not `.example`)
 * - `devSenderAddress` dev's sender when dev and prod differ; default `senderAddress`
 * - `authDomainSuffix` suffix of the Cognito domain prefix; default derived from the stack id
 * - `apiGatewayCloudWatchRole` `false` where the account's API Gateway logging role is managed
 *                      elsewhere; default `true`
 * - `settlementPeriodSeconds` dev's sandbox settlement period (default 3600; e.g. 300 for testers)
 *
 * Without `stage`, dev is always synthesized and prod only when its context is complete (otherwise
 * a warning says what is missing), so `npm run synth` works offline. With `-c stage=prod`, missing
 * prod context is an error. Two stages in one account and region are refused: they would both
 * manage the account's API Gateway logging role and the same SES identities.
 */
import type { App, Environment } from 'aws-cdk-lib';
import { parseStage, stages, type Stage } from '../../contract/stage';
import { ServiceStack } from './service-stack';

/** The stack name of a stage. */
const stackName = (stage: Stage): string => `ScheduledPayments-${stage}`;

function context(app: App, key: string): string | undefined {
  const value: unknown = app.node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'string') throw new Error(`context ${key} must be a string`);
  return value;
}

/** A sender address whose domain SES can verify: a public domain, not a reserved test one. */
function verifiableSender(sender: string): boolean {
  const domain = /^[^\s@]+@((?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,})$/.exec(sender)?.[1]?.toLowerCase();
  return domain !== undefined && !/\.(example|test|invalid|localhost)$/.test(domain);
}

/** What prod lacks to synthesize, as context keys with the reason. */
function missingProdContext(app: App): string[] {
  const missing: string[] = [];
  if (context(app, 'prodAccount') === undefined) missing.push('prodAccount (the production account id)');
  if (context(app, 'region') === undefined) missing.push('region');
  const sender = context(app, 'senderAddress');
  if (sender === undefined || !verifiableSender(sender))
    missing.push(`senderAddress on a domain SES can verify (got ${sender ?? 'none'}; .example is not)`);
  return missing;
}

function environment(app: App, stage: Stage): Environment | undefined {
  if (stage === 'prod') return { account: context(app, 'prodAccount'), region: context(app, 'region') };
  const account = context(app, 'devAccount') ?? process.env.CDK_DEFAULT_ACCOUNT;
  const region =
    context(app, 'region') ?? (account === undefined ? undefined : process.env.CDK_DEFAULT_REGION);
  return account === undefined && region === undefined ? undefined : { account, region };
}

/** Refuse two stages that would share an account and a region. */
function refuseCollisions(envs: readonly { stage: Stage; env: Environment | undefined }[]): void {
  const seen = new Map<string, Stage>();
  for (const { stage, env } of envs) {
    if (env?.account === undefined || env.region === undefined) continue;
    const key = `${env.account}/${env.region}`;
    const other = seen.get(key);
    if (other !== undefined)
      throw new Error(
        `stages ${other} and ${stage} would both deploy to account ${env.account} in ${env.region}: ` +
          'they would manage the same account-level API Gateway logging role and SES identity. ' +
          'Give them different accounts (-c devAccount=… -c prodAccount=…) or synthesize one stage (-c stage=…).',
      );
    seen.set(key, stage);
  }
}

function settlementPeriod(app: App): number | undefined {
  const raw = context(app, 'settlementPeriodSeconds');
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 60 || value > 86_400)
    throw new Error(`context settlementPeriodSeconds must be an integer from 60 to 86400, got "${raw}"`);
  return value;
}

/** Add the stacks of every stage, or only of the `stage` context value. */
export function addServiceStacks(app: App): ServiceStack[] {
  const only = context(app, 'stage');
  const missing = missingProdContext(app);
  let selected: readonly Stage[] = only === undefined ? stages : [parseStage(only)];
  if (selected.includes('prod') && missing.length > 0) {
    const message = `prod needs explicit context: ${missing.map((m) => `-c ${m}`).join(', ')}`;
    if (only !== undefined) throw new Error(message);
    // Offline synth of both stages: dev alone, with the reason prod is left out.
    console.error(`warning: ${stackName('prod')} not synthesized: ${message}`);
    selected = selected.filter((s) => s !== 'prod');
  }
  // Collisions are checked on every stage whose account is known, synthesized or not: deploying
  // the stages one at a time (-c stage=…) with the same account and region collides just as well.
  // A stage left out counts with its explicit context only (not the caller's default account).
  refuseCollisions(
    stages.map((stage) => ({
      stage,
      env: selected.includes(stage)
        ? environment(app, stage)
        : { account: context(app, `${stage}Account`), region: context(app, 'region') },
    })),
  );
  const apiCloudWatchRole = context(app, 'apiGatewayCloudWatchRole') !== 'false';
  return selected.map(
    (stage) =>
      new ServiceStack(app, stackName(stage), {
        stage,
        env: environment(app, stage),
        authDomainSuffix: context(app, 'authDomainSuffix'),
        senderAddress:
          stage === 'dev'
            ? (context(app, 'devSenderAddress') ?? context(app, 'senderAddress'))
            : context(app, 'senderAddress'),
        apiCloudWatchRole,
        settlementPeriodSeconds: stage === 'dev' ? settlementPeriod(app) : undefined,
      }),
  );
}
