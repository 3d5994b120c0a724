/**
 * The processing tasks in the bench process, without the state machine: the same handlers the
 * runtime binds to the Task states (BeginGroup, AuthorizeBatch, CompleteGroup), imported here and
 * pointed at the runtime's DynamoDB Local and table, with the group claimed as a trigger claims
 * it. This is "the transactions core on the same DynamoDB Local": per payment, runSale (the
 * sandbox processor included) and setAuthResponse, PROCESS_CONCURRENCY at a time, in batches of
 * PROCESS_BATCH_SIZE, over up to PROCESS_FAN_OUT key ranges at once, exactly as in the runtime, minus the local Step Functions, the HTTP trigger
 * and the runtime's event loop.
 *
 * The lambdas read their configuration from the environment at load (batch size, concurrency,
 * table, endpoint), so the environment is set first and the modules are imported after.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { BatchState, ProcessingState } from '../../lambdas/domain/processing';
import { countCall } from './count-call';
import type { BenchRuntime } from './runtime';

type Task<I, O> = (input: I, context: Context) => Promise<O>;

export interface LocalCore {
  /** Claims the group as a trigger does (pending → processing, with the execution's name). */
  /** Claims the group as a trigger does; the attempt's execution name. */
  claim(groupId: string): Promise<string>;
  begin: Task<{ paymentGroupId: string; merchantId: string; executionName: string }, ProcessingState>;
  authorizeBatch: Task<BatchState, BatchState>;
  complete: Task<ProcessingState, ProcessingState>;
  /** A Lambda context for one in-process invocation. */
  context(name: string): Context;
  /** DynamoDB calls the handlers made in this process so far, by command name (see count-call.ts). */
  calls: Record<string, number>;
  /**
   * Batch size, concurrency per task and key ranges at once the handlers run with (the runtime's,
   * from the same environment).
   */
  batchSize: number;
  concurrency: number;
  fanOut: number;
}

let loaded: Promise<LocalCore> | undefined;

export function localCore(runtime: BenchRuntime, settlementSeconds: number): Promise<LocalCore> {
  loaded ??= load(runtime, settlementSeconds);
  return loaded;
}

async function load(runtime: BenchRuntime, settlementSeconds: number): Promise<LocalCore> {
  const info = JSON.parse(readFileSync(join(runtime.dataDir, 'runtime.json'), 'utf8')) as { stage?: string };
  // What lib/local/runtime.ts gives the runtime's handlers (localAwsEnv and the rest).
  Object.assign(process.env, {
    TABLE_NAME: runtime.tableName,
    SERVICE_STAGE: info.stage ?? 'dev',
    AWS_ENDPOINT_URL_DYNAMODB: runtime.dynamodbEndpoint,
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN',
    SETTLEMENT_PERIOD_SECONDS: String(settlementSeconds),
    SETTLEMENT_OFFSET_SECONDS: '0',
  });
  const [begin, authorize, complete, store, ddbModule] = await Promise.all([
    import('../../lambdas/process-group/begin-group'),
    import('../../lambdas/process-group/authorize-batch'),
    import('../../lambdas/process-group/complete-group'),
    import('../../lambdas/store/claims'),
    import('../../lambdas/shared/ddb'),
  ]);
  const { lambdaContext } = await import('../../lib/local/http-server');

  // Count the handlers' calls on their one client (the store's and the sandbox processor's).
  const calls: Record<string, number> = {};
  const client = ddbModule.ddb();
  const send = client.send.bind(client) as (...args: unknown[]) => unknown;
  client.send = ((command: object, ...rest: unknown[]) => {
    countCall(calls, command);
    return send(command, ...rest);
  }) as DynamoDBDocumentClient['send'];

  return {
    async claim(groupId) {
      const group = await store.claimStore().read(groupId);
      const outcome = group
        ? await store.claimStore().claim(group, new Date())
        : { claimed: false as const, group };
      if (!outcome.claimed)
        throw new Error(`group ${groupId} could not be claimed (${outcome.group?.status})`);
      return outcome.executionName;
    },
    begin: begin.handler as unknown as LocalCore['begin'],
    authorizeBatch: authorize.handler as unknown as LocalCore['authorizeBatch'],
    complete: complete.handler as unknown as LocalCore['complete'],
    context: (name) => lambdaContext(name, 900_000),
    calls,
    batchSize: Number(process.env.PROCESS_BATCH_SIZE || 250),
    concurrency: Number(process.env.PROCESS_CONCURRENCY || 16),
    fanOut: Number(process.env.PROCESS_FAN_OUT || 8),
  };
}
