/**
 * What `npm run admin` does differently for a deployed stage:
 *
 * - `reconcile --stage` invokes the stage's own reconciliation function (Lambda Invoke), so the
 *   sweeper runs with the stage's settlement settings, its role and its processor credentials,
 *   never the operator's machine's defaults. The operator needs `lambda:InvokeFunction` on that
 *   function only (docs/operating.md "Runbook"). `account-updater --stage` likewise invokes the
 *   stage's account updater function.
 * - `grant` and `revoke` name who made the change in their audit record: the caller's AWS identity
 *   (STS GetCallerIdentity) for a stage, the OS user for the local runtime.
 */
import { userInfo } from 'node:os';
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import { GetCallerIdentityCommand, type STSClient } from '@aws-sdk/client-sts';
import { ACCOUNT_UPDATER_JOB } from '../contract/account-updater';
import { RECONCILIATION } from '../contract/processing';
import type { Stage } from '../contract/stage';
import type { AccountUpdaterReport } from '../lambdas/core/account-updater';
import type { ReconcileReport } from '../lambdas/core/reconcile';
import { functionNameOf } from '../lib/cdk/service-function';

/** What the reconciliation function reads of its event (lambdas/scheduled/reconcile.ts). */
export interface ReconcilePayload {
  since: string;
  staleMinutes?: number;
}

/** The deployed reconciliation function of a stage, by the naming rule of every function. */
export const reconciliationFunctionName = (stage: Stage): string =>
  functionNameOf(stage, RECONCILIATION.handler);

/**
 * Runs the stage's reconciliation function once and answers its report. A function error (its
 * payload says which) is thrown with the function's message.
 */
export const invokeReconciliation = (
  lambda: LambdaClient,
  stage: Stage,
  payload: ReconcilePayload,
): Promise<ReconcileReport> => invokeJob(lambda, reconciliationFunctionName(stage), payload);

/**
 * Runs the stage's account updater function once (its processor and credentials: on a Stripe
 * stage, the connected accounts' card updates; run here, the operator's machine has neither and
 * would move the stage's cursor past updates it never listed) and answers its report.
 */
export const invokeAccountUpdater = (lambda: LambdaClient, stage: Stage): Promise<AccountUpdaterReport> =>
  invokeJob(lambda, functionNameOf(stage, ACCOUNT_UPDATER_JOB.handler), {});

/** Invokes a job's function synchronously: its answer, or its error thrown with its message. */
async function invokeJob<T>(lambda: LambdaClient, functionName: string, payload: object): Promise<T> {
  const answer = await lambda.send(
    new InvokeCommand({
      FunctionName: functionName,
      InvocationType: 'RequestResponse',
      Payload: new TextEncoder().encode(JSON.stringify(payload)),
    }),
  );
  const text = answer.Payload === undefined ? '' : new TextDecoder().decode(answer.Payload);
  if (answer.FunctionError !== undefined) {
    let message = text;
    try {
      message = (JSON.parse(text) as { errorMessage?: string }).errorMessage ?? text;
    } catch {
      // Not JSON: the raw text says it.
    }
    throw new Error(`${functionName} failed (${answer.FunctionError}): ${message}`);
  }
  return JSON.parse(text) as T;
}

/** Who runs the command: the caller's AWS identity (its ARN) for a stage. */
export async function cloudActor(sts: STSClient): Promise<string> {
  const { Arn } = await sts.send(new GetCallerIdentityCommand({}));
  if (Arn === undefined) throw new Error('STS GetCallerIdentity answered no ARN');
  return Arn;
}

/** Who runs the command against the local runtime: the OS user. */
export const localActor = (): string => `local:${userInfo().username}`;
