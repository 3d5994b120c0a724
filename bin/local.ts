/**
 * `npm start`: the whole service on this machine. Prints one line with the API address when
 * ready; Ctrl-C (SIGINT) or SIGTERM stops everything, DynamoDB Local included.
 *
 * Environment: PORT (3000), SES_PORT (8005), DYNAMODB_PORT and SFN_PORT (picked free),
 * SERVICE_STAGE (dev | prod), DATA_DIR (.data), DYNAMODB_IN_MEMORY (false), DYNAMODB_ENDPOINT
 * (none: a DynamoDB Local of its own), SANDBOX_SETTLEMENT_SECONDS (300), PROCESSOR (sandbox;
 * `stripe`: on the Stripe stand-in, lib/local/stripe-local.ts). Every server listens on
 * 127.0.0.1 only. A busy port names its variable.
 */
import { flushCompileCache } from 'node:module';
import { parseStage } from '../contract/stage';
import { localPorts, type LocalPorts } from '../lib/local/ports';
import { startRuntime } from '../lib/local/runtime';
import { startupErrorMessage } from '../lib/local/startup-errors';

// The ports a variable sets: a busy one is reported with its variable's name.
let ports: Partial<LocalPorts> = {};

async function main(): Promise<void> {
  const set = (ports = localPorts(process.env));
  const runtime = await startRuntime({
    port: set.PORT,
    sesPort: set.SES_PORT,
    dynamodbPort: set.DYNAMODB_PORT,
    sfnPort: set.SFN_PORT,
    stage: parseStage(process.env.SERVICE_STAGE),
    dataDir: process.env.DATA_DIR ?? '.data',
    inMemory: process.env.DYNAMODB_IN_MEMORY === 'true',
    ...(process.env.DYNAMODB_ENDPOINT && { dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT }),
  });
  console.log(
    `Scheduled Payments Service (${process.env.SERVICE_STAGE ?? 'dev'}) ready at ${runtime.url} ` +
      `(docs: ${runtime.url}/docs, client: local-tester, e-mails: ${runtime.sesUrl})`,
  );
  // With NODE_COMPILE_CACHE (the e2e tier's), the compiled modules go there now, not at exit:
  // the next runtime starts from them even while this one runs on or is killed.
  flushCompileCache();
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    runtime.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`error while stopping on ${signal}:`, error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(startupErrorMessage(error, ports));
  process.exit(1);
});
