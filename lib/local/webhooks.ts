/**
 * Local webhooks, as in the cloud (lib/cdk/webhooks.ts): the stream forwarder (started with the
 * e-mail stand-ins) puts each new event on the webhook queue, an in-process queue here
 * (lib/local/queue.ts) that invokes the delivery function's own handler at a bounded concurrency,
 * beside the slow lane's queue (the deliveries of endpoints that answer slowly) at its own;
 * a timer runs the webhook recovery every LOCAL_WEBHOOK_SWEEP_SECONDS (60; 0: none) and
 * `POST /__local/webhooks/sweep` runs it now. Secrets are sealed with a key file in the data
 * directory (made on first start, readable by its owner only); WEBHOOK_ALLOW_LOOPBACK lets
 * endpoints on 127.0.0.1 and localhost receive them. `GET /__local/webhooks` lists every delivery
 * of every endpoint with its attempts and status codes (`?webhookEndpointId=` for one endpoint).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import {
  WEBHOOK_DELIVERY,
  WEBHOOK_DELIVERY_HANDLER,
  WEBHOOK_RECOVERY_HANDLER,
} from '../../contract/webhooks';
import type { DeadLetter } from './dead-letters';
import { invokeAs, type LocalRoute } from './http-server';
import { LocalQueue, startQueuePoller } from './queue';
import { awsClient } from '../../lambdas/shared/tracer';

type QueueHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;
type RecoveryHandler = (input: unknown, context: Context) => Promise<unknown>;

/** The environment of the functions locally: a key file for secrets, loopback endpoints allowed. */
export function localWebhookEnv(dataDir: string): Record<string, string> {
  const keyFile = join(dataDir, 'webhook-secrets.key');
  if (!existsSync(keyFile)) writeFileSync(keyFile, randomBytes(32).toString('base64'), { mode: 0o600 });
  return { WEBHOOK_SECRET_KEY: `file:${keyFile}`, WEBHOOK_ALLOW_LOOPBACK: 'true' };
}

/**
 * The delivery function's event sources, as lib/cdk/webhooks.ts sets them (contract/webhooks.ts
 * WEBHOOK_DELIVERY): the webhook queue at the cloud's default concurrency (LOCAL_WEBHOOK_CONCURRENCY
 * sets another, as `webhookConcurrency` does there), the slow lane at its own.
 */
const localQueueOptions = (lane: 'main' | 'slow') => ({
  name: 'WebhookDelivery',
  batchSize: WEBHOOK_DELIVERY.batchSize,
  concurrency:
    lane === 'slow'
      ? WEBHOOK_DELIVERY.slowConcurrency
      : Math.max(
          1,
          Number(process.env.LOCAL_WEBHOOK_CONCURRENCY ?? WEBHOOK_DELIVERY.concurrency) ||
            WEBHOOK_DELIVERY.concurrency,
        ),
  // The delivery function's timeout: a message is never handed out again while it may still run.
  visibilityTimeoutSeconds: WEBHOOK_DELIVERY.timeoutSeconds,
  maxReceiveCount: WEBHOOK_DELIVERY.maxReceiveCount,
});

/** With `durableDir` (a table that outlives the process), the queue is kept there. */
export async function startLocalWebhooks(tableName: string, deadLetters: DeadLetter[], durableDir?: string) {
  const { useWebhookQueue } = await import('../../lambdas/shared/webhook-queue');
  const deliver = (await import(`../../lambdas/${WEBHOOK_DELIVERY_HANDLER}`)) as { handler: QueueHandler };
  const recovery = (await import(`../../lambdas/${WEBHOOK_RECOVERY_HANDLER}`)) as {
    handler: RecoveryHandler;
  };
  type Message = import('../../lambdas/shared/webhook-queue').WebhookMessage;
  const queue = new LocalQueue<Message>('webhooks', durableDir && join(durableDir, 'queue-webhooks.jsonl'));
  const slowQueue = new LocalQueue<Message>(
    'webhooks-slow',
    durableDir && join(durableDir, 'queue-webhooks-slow.jsonl'),
  );
  useWebhookQueue(queue, slowQueue);
  const poller = startQueuePoller(queue, deliver.handler, localQueueOptions('main'), deadLetters);
  const slowPoller = startQueuePoller(slowQueue, deliver.handler, localQueueOptions('slow'), deadLetters);

  const runRecovery = () =>
    invokeAs('WebhookRecovery', 60_000, (context) =>
      recovery.handler({ time: new Date().toISOString() }, context),
    );
  const seconds = Number(process.env.LOCAL_WEBHOOK_SWEEP_SECONDS ?? 60);
  const timer =
    seconds > 0
      ? setInterval(() => {
          runRecovery().catch((error: unknown) => console.error('local webhook recovery failed', error));
        }, seconds * 1000)
      : undefined;
  timer?.unref();

  const db = DynamoDBDocumentClient.from(awsClient(new DynamoDBClient({})));
  const list: LocalRoute = async (req) => {
    const endpointId = new URL(req.url ?? '/', 'http://local').searchParams.get('webhookEndpointId');
    const items: Record<string, unknown>[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const out = await db.send(
        new ScanCommand({
          TableName: tableName,
          FilterExpression: 'entity = :e',
          ExpressionAttributeValues: { ':e': 'webhook-delivery' },
          ExclusiveStartKey,
        }),
      );
      items.push(...(out.Items ?? []));
      ExclusiveStartKey = out.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    const deliveries = items
      .filter((i) => endpointId === null || i.webhookEndpointId === endpointId)
      .map(
        ({
          pk: _pk,
          sk: _sk,
          gsi1pk: _a,
          gsi1sk: _b,
          gsi2pk: _c,
          gsi2sk: _d,
          entity: _e,
          expiresAt: _x,
          ...d
        }) => d,
      )
      .sort((a, b) =>
        `${String(a.createdAt)}${String(a.eventId)}`.localeCompare(
          `${String(b.createdAt)}${String(b.eventId)}`,
        ),
      );
    return { status: 200, body: deliveries };
  };
  const routes: [string, LocalRoute][] = [
    ['GET /__local/webhooks', list],
    ['POST /__local/webhooks/sweep', async () => ({ status: 200, body: await runRecovery() })],
  ];
  return {
    routes,
    async stop() {
      if (timer) clearInterval(timer);
      await Promise.all([poller.stop(), slowPoller.stop()]);
      db.destroy();
    },
  };
}
