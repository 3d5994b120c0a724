/**
 * The whole service on this machine (docs/architecture.md#local-runtime): DynamoDB Local with
 * the service table and seeded identities, the API from the route table behind a local
 * Cognito-style authorizer, and the token endpoint. Used by `npm start` (bin/local.ts), the
 * end-to-end tests and the bench.
 */
// First: before any handler loads the Tracer (x-ray.ts).
import './x-ray';
import { writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Server } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { routeList as routes } from '#contract/routes/index';
import { apiScope, parseStage, type Stage } from '../../contract/stage';
import { tableName as tableNameOf } from '../../contract/table';
import { STATE_MACHINE_NAME, VOID_OR_REFUND_STATE_MACHINE_NAME } from '../../contract/processing';
import { loadOrCreateKey, tokenIssuer } from './auth';
import { freePort, localAwsEnv, startDynamoDbLocal, type DynamoDbLocal } from './dynamodb-local';
import { createHttpServer, type ApiHandler, type LocalRoute } from './http-server';
import { createSfnServer } from './step-functions';
import { localProcessing } from './processing';
import { installFaults } from './faults';
import { docsRoutes, rootRoute } from './docs';
import type { DeadLetter } from './dead-letters';
import { startLocalNotifications, startSes, type LocalSes } from './notifications';
import { localWebhookEnv, startLocalWebhooks } from './webhooks';
import { localIdempotencyEnv } from './idempotency-key';
import { localClients, localMerchants } from './identities';
import { ensureTable } from './table';
import { MerchantAdmin } from '../../lambdas/store/merchant-admin';
import type { LocalStripe } from './stripe-local';
import { localProcessorEventsRoute } from './processor-events';

interface RuntimeOptions {
  port: number;
  /** aws-ses-v2-local's port (its web page and GET /store); default 8005. */
  sesPort?: number;
  /** DynamoDB Local's and the local Step Functions endpoint's ports; default: free ones. */
  dynamodbPort?: number;
  sfnPort?: number;
  stage?: Stage;
  /** Where data (database, signing key, runtime.json) lives; default `.data`. */
  dataDir?: string;
  /** Keep DynamoDB data in memory only (tests). */
  inMemory?: boolean;
  /**
   * A DynamoDB (Local) that is already running and outlives this runtime (the crash test's: a
   * killed runtime comes back in about two seconds, as a Lambda does, without restarting Java).
   * Not started or stopped here; the table is created in it when missing.
   */
  dynamodbEndpoint?: string;
}

interface Runtime {
  readonly url: string;
  readonly dynamodbEndpoint: string;
  readonly tableName: string;
  readonly sesUrl: string;
  stop(): Promise<void>;
}

/** What `npm run admin -- --local` and tests read to find a running local runtime. */
export const runtimeFile = (dataDir: string) => join(dataDir, 'runtime.json');

async function seedIdentities(db: DynamoDBDocumentClient, tableName: string): Promise<void> {
  const registry = new MerchantAdmin(db, tableName);
  for (const merchant of localMerchants) await registry.register(merchant);
  for (const client of localClients)
    for (const mid of client.merchants) await registry.grant(client.clientId, mid, 'npm start (seed)');
}

/**
 * `GET /__local/emails`: the local SES store (`GET /store` of aws-ses-v2-local, `{emails: [...]}`),
 * answered on the API's address.
 */
const sesStore =
  (sesUrl: string): LocalRoute =>
  async () => {
    const response = await fetch(`${sesUrl}/store`);
    return { status: response.status, body: await response.json() };
  };

export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  const stage = options.stage ?? 'dev';
  const dataDir = resolve(options.dataDir ?? '.data');
  mkdirSync(dataDir, { recursive: true });
  const tableName = tableNameOf(`local-${stage}`);

  const dynamo: DynamoDbLocal = options.dynamodbEndpoint
    ? {
        endpoint: options.dynamodbEndpoint,
        port: Number(new URL(options.dynamodbEndpoint).port),
        stop: () => Promise.resolve(),
      }
    : await startDynamoDbLocal({
        ...(!options.inMemory && { dataDir: join(dataDir, 'dynamodb') }),
        ...(options.dynamodbPort !== undefined && { port: options.dynamodbPort }),
      });
  let server: Server | undefined;
  let sfnServer: Server | undefined;
  let processing: Awaited<ReturnType<typeof localProcessing>> | undefined;
  let ses: LocalSes | undefined;
  let notifications: Awaited<ReturnType<typeof startLocalNotifications>> | undefined;
  let webhooks: Awaited<ReturnType<typeof startLocalWebhooks>> | undefined;
  let stripe: LocalStripe | undefined;
  try {
    // PROCESSOR=stripe: the Stripe stand-in, its variables set before any handler loads. Loaded
    // only then: the stand-in loads the `stripe` package (0.15 s of CPU at each start otherwise).
    let mapMerchants: typeof import('./stripe-local').mapLocalMerchants | undefined;
    if (process.env.PROCESSOR === 'stripe') {
      const { startLocalStripe, mapLocalMerchants } = await import('./stripe-local');
      stripe = await startLocalStripe(dataDir, options.port);
      mapMerchants = mapLocalMerchants;
    }
    const sesPort = options.sesPort ?? 8005;
    ses = await startSes(sesPort);
    const sfnPort = options.sfnPort ?? (await freePort());
    Object.assign(process.env, localAwsEnv(dynamo.endpoint), {
      TABLE_NAME: tableName,
      SERVICE_STAGE: stage,
      POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN',
      // No CloudWatch reads this console: no metrics' EMF lines (JSON) among the runtime's output.
      EMIT_METRICS: 'false',
      // Local settlement cut-offs: every SANDBOX_SETTLEMENT_SECONDS from the epoch
      // (docs/product.md#sandbox-processor).
      SETTLEMENT_PERIOD_SECONDS: process.env.SANDBOX_SETTLEMENT_SECONDS ?? '300',
      SETTLEMENT_OFFSET_SECONDS: '0',
      AWS_ENDPOINT_URL_SFN: `http://127.0.0.1:${sfnPort}`,
      AWS_ENDPOINT_URL_SESV2: `http://127.0.0.1:${sesPort}`,
      SES_FROM_ADDRESS: process.env.SES_FROM_ADDRESS ?? 'payments@scheduled-payments.example',
      // The notifier's invocations share this process: one container paces EMAIL_SEND_RATE.
      EMAIL_SEND_CONCURRENCY: '1',
      STATE_MACHINE_ARN: `arn:aws:states:us-east-1:000000000000:stateMachine:${STATE_MACHINE_NAME(`local-${stage}`)}`,
      VOID_OR_REFUND_STATE_MACHINE_ARN: `arn:aws:states:us-east-1:000000000000:stateMachine:${VOID_OR_REFUND_STATE_MACHINE_NAME(`local-${stage}`)}`,
      // Webhook secrets sealed with a key file of this data directory; loopback receivers allowed.
      ...localWebhookEnv(dataDir),
      // Idempotency keys kept by their keyed hash, under a key file of this data directory.
      ...localIdempotencyEnv(dataDir),
    });
    const client = new DynamoDBClient({});
    await ensureTable(client, tableName);
    await seedIdentities(DynamoDBDocumentClient.from(client), tableName);
    if (mapMerchants) await mapMerchants(DynamoDBDocumentClient.from(client), tableName);
    client.destroy();

    // Each route's module is loaded at its first request, as a Lambda loads its handler at its
    // first invocation: a runtime loads only what it serves (the report's spreadsheet writer was
    // a tenth of a start's CPU; the tests' runtimes, the crash test's 21 among them, never ask).
    const handlers = new Map<string, ApiHandler>();
    for (const module of new Set(routes.map((r) => r.handler))) {
      let loaded: Promise<ApiHandler> | undefined;
      const load = () =>
        (loaded ??= import(`../../lambdas/${module}`).then((m: { handler: ApiHandler }) => m.handler));
      handlers.set(module, async (event, context) => (await load())(event, context));
    }

    processing = await localProcessing(
      process.env.STATE_MACHINE_ARN!,
      process.env.VOID_OR_REFUND_STATE_MACHINE_ARN!,
    );
    const faults = await installFaults();
    const deadLetters: DeadLetter[] = [];
    // Before the stream reader: the forwarder puts new events on the webhook queue.
    // A table that outlives this process (on disk, or another's DynamoDB Local) keeps the queues
    // and the stream reader's place beside it, as SQS and an event source mapping would.
    const durableDir = options.dynamodbEndpoint !== undefined || !options.inMemory ? dataDir : undefined;
    webhooks = await startLocalWebhooks(tableName, deadLetters, durableDir);
    notifications = await startLocalNotifications(tableName, deadLetters, durableDir);
    sfnServer = createSfnServer(processing.sfn, processing.voidOrRefund);
    await new Promise<void>((ok, fail) => {
      sfnServer!.once('error', fail);
      sfnServer!.listen(sfnPort, '127.0.0.1', () => ok());
    });

    const url = `http://127.0.0.1:${options.port}`;
    const key = await loadOrCreateKey(join(dataDir, 'local-signing-key.json'));
    const issuer = tokenIssuer(key, `${url}/local-user-pool`, apiScope(parseStage(stage)), localClients);
    const localRoutes = new Map<string, LocalRoute>([
      ['POST /oauth2/token', (req, body) => issuer.token(req.headers, body, req.socket.remoteAddress)],
      ...processing.localRoutes,
      ['POST /__local/faults', faults],
      ['GET /__local/dlq', async () => ({ status: 200, body: deadLetters })],
      // The local SES store on the API's own address, so that one variable reaches everything.
      ['GET /__local/emails', sesStore(`http://127.0.0.1:${sesPort}`)],
      ...webhooks.routes,
      ...notifications.routes,
      ...(stripe ? [await localProcessorEventsRoute(stage)] : []),
      ...docsRoutes(stage, url),
      rootRoute(url),
    ]);
    server = createHttpServer({ routes, handlers, issuer, stage, localRoutes });
    await new Promise<void>((ok, fail) => {
      server!.once('error', fail);
      server!.listen(options.port, '127.0.0.1', () => ok());
    });
    // Longer than any client keeps an idle connection (fetch: at most 600 s), so that the client,
    // never the runtime, closes it: a connection closed by the server as a client takes it from
    // its pool fails that client's request ("other side closed"); 65 s did, on busy machines.
    server.keepAliveTimeout = 660_000;

    writeFileSync(
      runtimeFile(dataDir),
      JSON.stringify(
        {
          url,
          dynamodbEndpoint: dynamo.endpoint,
          tableName,
          stage,
          sesUrl: `http://127.0.0.1:${sesPort}`,
          processor: stripe ? 'stripe' : 'sandbox',
          ...(stripe && {
            stripeApi: stripe.url,
            // What a function needs to reach the stand-in, for `npm run admin -- reconcile --local`.
            processorEnv: {
              PROCESSOR: 'stripe',
              ...Object.fromEntries(
                ['STRIPE_MODE', 'STRIPE_API', 'STRIPE_SECRET_KEY'].map((name) => [name, process.env[name]]),
              ),
            },
          }),
          pid: process.pid,
          // The settlement schedule its handlers run with, for `npm run admin -- reconcile --local`.
          settlement: {
            SETTLEMENT_PERIOD_SECONDS: process.env.SETTLEMENT_PERIOD_SECONDS,
            SETTLEMENT_OFFSET_SECONDS: process.env.SETTLEMENT_OFFSET_SECONDS,
          },
        },
        null,
        2,
      ),
    );
    return {
      url,
      dynamodbEndpoint: dynamo.endpoint,
      tableName,
      sesUrl: `http://127.0.0.1:${options.sesPort ?? 8005}`,
      async stop() {
        processing!.stopTimer();
        await new Promise<void>((ok) => {
          server!.close(() => ok());
          server!.closeAllConnections();
        });
        await processing!.sfn.stop();
        await processing!.voidOrRefund.stop();
        await new Promise<void>((ok) => sfnServer!.close(() => ok()));
        await notifications!.stop();
        await webhooks!.stop();
        await ses!.close();
        await stripe?.stop();
        await dynamo.stop();
        rmSync(runtimeFile(dataDir), { force: true });
      },
    };
  } catch (error) {
    server?.close();
    sfnServer?.close();
    await ses?.close();
    await notifications?.stop();
    await webhooks?.stop();
    processing?.stopTimer();
    await stripe?.stop();
    await dynamo.stop();
    throw error;
  }
}
