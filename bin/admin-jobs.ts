/**
 * The jobs `npm run admin` runs (bin/admin.ts): with --stage, the stage's own function invoked
 * (bin/admin-cloud.ts: its settings, role and processor credentials); locally, the functions' code
 * here with the local runtime's settings.
 */
import type { LambdaClient } from '@aws-sdk/client-lambda';
import type { Stage } from '../contract/stage';

/** A stage's reconciliation: its own function, with its settings and role (bin/admin-cloud.ts). */
export async function reconcileInStage(stage: Stage, payload: { since: string; staleMinutes?: number }) {
  const { invokeReconciliation } = await import('./admin-cloud');
  return withLambda((lambda) => invokeReconciliation(lambda, stage, payload));
}

/** A stage's account updater: its own function, with its processor and credentials. */
export async function accountUpdaterInStage(stage: Stage) {
  const { invokeAccountUpdater } = await import('./admin-cloud');
  return withLambda((lambda) => invokeAccountUpdater(lambda, stage));
}

/** A Lambda client that waits for a job's 15 minutes, for one call. */
async function withLambda<T>(call: (lambda: LambdaClient) => Promise<T>): Promise<T> {
  const { LambdaClient } = await import('@aws-sdk/client-lambda');
  const lambda = new LambdaClient({ requestHandler: { requestTimeout: 16 * 60_000 } });
  try {
    return await call(lambda);
  } finally {
    lambda.destroy();
  }
}

/** The local runtime's account updater: the functions' code here, with the runtime's settings. */
export async function accountUpdaterHere(env: Record<string, string>) {
  // The functions' code reads its configuration from the environment on first use; the report
  // says what the run's info log would (stdout stays the report alone, e.g. with --json).
  Object.assign(process.env, env, { POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN' });
  const { ACCOUNT_UPDATER_JOB } = await import('../contract/account-updater');
  const { runAccountUpdater } = await import('../lambdas/core/account-updater');
  return runAccountUpdater(new Date(), Date.now() + ACCOUNT_UPDATER_JOB.budgetSeconds * 1000);
}

/** The local runtime's reconciliation: the functions' code here, with the runtime's settings. */
export async function reconcileHere(
  env: Record<string, string>,
  options: { since: string; staleMinutes?: number },
) {
  // The functions' code reads its configuration from the environment on first use; the report
  // says what the sweep's info log would (stdout stays the report alone, e.g. with --json).
  Object.assign(process.env, env, { POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN' });
  const { reconcile } = await import('../lambdas/core/reconcile');
  return reconcile(options);
}
