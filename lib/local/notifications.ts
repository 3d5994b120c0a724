/**
 * Local e-mail: aws-ses-v2-local (its web page and `GET /store` show every e-mail sent) and a
 * DynamoDB Streams reader that hands the table's stream to the stream forwarder (which puts each
 * new outbox item on the notifier's queue, lib/local/queue.ts) as real `DynamoDBStreamEvent`s,
 * with Lambda's semantics for a stream source: records in order per shard, a batch retried (with
 * backoff) from the first record the handler reports as failed, and after the retries the batch
 * goes to an on-failure destination (here: `GET /__local/dlq`).
 */
import type { Server } from 'node:http';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { NOTIFIER_HANDLER, OUTBOX_FORWARDER_HANDLER } from '../../contract/processing';
import type { DeadLetter } from './dead-letters';
import { invokeAs } from './http-server';
import { backoffDelay } from '../../lambdas/shared/backoff';
import { sleep } from '../../lambdas/shared/concurrency';

type StreamHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse | void>;

export async function startSes(port: number): Promise<Server> {
  const { default: server } = (await import('aws-ses-v2-local')) as unknown as {
    default: (config: { host: string; port: number }) => Promise<Server>;
  };
  const ses = await server({ host: '127.0.0.1', port });
  // Express 5 hands a listen error to its callback, so the server resolves without listening: the
  // busy port becomes the error Node's own listen gives (bin/local.ts names SES_PORT for it).
  if (!ses.listening) {
    const message = `listen EADDRINUSE: address already in use 127.0.0.1:${port}`;
    throw Object.assign(new Error(message), { code: 'EADDRINUSE', address: '127.0.0.1', port });
  }
  return ses;
}

const MAX_RETRIES = 10;
/** Waits between deliveries of a failed batch: 0.5 s, doubling, at most 8 s. */
const STREAM_RETRY_BACKOFF = { firstMs: 500, maxMs: 8000 };

function toLambdaRecord(record: StreamRecord, streamArn: string): DynamoDBStreamEvent['Records'][number] {
  const d = record.dynamodb ?? {};
  return {
    eventID: record.eventID,
    eventName: record.eventName as 'INSERT' | 'MODIFY' | 'REMOVE',
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'us-east-1',
    eventSourceARN: streamArn,
    dynamodb: {
      ApproximateCreationDateTime: d.ApproximateCreationDateTime
        ? d.ApproximateCreationDateTime.getTime() / 1000
        : undefined,
      Keys: d.Keys as never,
      NewImage: d.NewImage as never,
      OldImage: d.OldImage as never,
      SequenceNumber: d.SequenceNumber,
      SizeBytes: d.SizeBytes,
      StreamViewType: d.StreamViewType as never,
    },
  };
}

/** Reads the table's stream and invokes `handler`; `stop()` ends the loop. */
export function startStreamReader(tableName: string, handler: StreamHandler, deadLetters: DeadLetter[]) {
  const ddb = new DynamoDBClient({});
  const streams = new DynamoDBStreamsClient({ endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB });
  let running = true;
  const iterators = new Map<string, string | null>(); // shardId → iterator (null: closed)

  const deliver = async (shardId: string, records: StreamRecord[], streamArn: string) => {
    let pending = records;
    for (let attempt = 0; pending.length > 0 && running; attempt++) {
      let failedFrom: number;
      let reason: string;
      try {
        const result = await invokeAs('OutboxForwarder', 60_000, (context) =>
          handler({ Records: pending.map((r) => toLambdaRecord(r, streamArn)) }, context),
        );
        const failed = new Set((result?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
        failedFrom = pending.findIndex((r) => failed.has(r.dynamodb?.SequenceNumber ?? ''));
        reason = 'reported as failed by the handler';
      } catch (error) {
        failedFrom = 0;
        reason = (error as Error).message;
      }
      if (failedFrom < 0) return;
      pending = pending.slice(failedFrom);
      if (attempt >= MAX_RETRIES) {
        deadLetters.push({
          at: new Date().toISOString(),
          shardId,
          sequenceNumbers: pending.map((r) => r.dynamodb?.SequenceNumber ?? ''),
          reason,
        });
        console.error(
          `local stream reader: ${pending.length} record(s) sent to the dead-letter list: ${reason}`,
        );
        return;
      }
      await sleep(backoffDelay(attempt + 1, STREAM_RETRY_BACKOFF));
    }
  };

  const loop = async () => {
    const { Table } = await ddb.send(new DescribeTableCommand({ TableName: tableName }));
    const streamArn = Table?.LatestStreamArn;
    if (!streamArn) throw new Error(`table ${tableName} has no stream`);
    let lastDescribe = 0;
    while (running) {
      if (Date.now() - lastDescribe > 5000) {
        lastDescribe = Date.now();
        const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
        for (const shard of StreamDescription?.Shards ?? []) {
          if (iterators.has(shard.ShardId!)) continue;
          const { ShardIterator } = await streams.send(
            new GetShardIteratorCommand({
              StreamArn: streamArn,
              ShardId: shard.ShardId!,
              ShardIteratorType: 'TRIM_HORIZON',
            }),
          );
          iterators.set(shard.ShardId!, ShardIterator ?? null);
        }
      }
      let idle = true;
      for (const [shardId, iterator] of iterators) {
        if (!iterator || !running) continue;
        const out = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 100 }));
        iterators.set(shardId, out.NextShardIterator ?? null);
        if (out.Records && out.Records.length > 0) {
          idle = false;
          await deliver(shardId, out.Records, streamArn);
        }
      }
      if (idle) await sleep(200);
    }
  };
  const done = (async () => {
    while (running) {
      try {
        await loop();
      } catch (error) {
        if (!running) break;
        console.error('local stream reader failed; restarting in 1 s', error);
        iterators.clear();
        await sleep(1000);
      }
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      ddb.destroy();
      streams.destroy();
    },
  };
}

/** The notifier's queue as the cloud's event source mapping runs it (lib/cdk/notifications.ts). */
const localQueueOptions = () => ({
  batchSize: 10,
  // As many invocations at once as the cloud runs for this rate (about 10 sends a second each).
  concurrency: Math.max(2, Math.ceil(Number(process.env.EMAIL_SEND_RATE ?? 14) / 10)),
  // At least the notifier's timeout, as SQS requires of a Lambda source (the cloud's is 360 s):
  // a message is never handed out again while a delivery of it may still be running.
  visibilityTimeoutSeconds: 60,
  maxReceiveCount: 5,
});

/**
 * E-mail as in the cloud: the stream → the stream forwarder → the notifier's queue (in process)
 * → the notifier, at EMAIL_SEND_RATE. Both handlers are the functions' own modules.
 */
export async function startLocalNotifications(tableName: string, deadLetters: DeadLetter[]) {
  const { useOutboxQueue } = await import('../../lambdas/shared/outbox-queue');
  const { LocalQueue, startQueuePoller } = await import('./queue');
  const forwarder = (await import(`../../lambdas/${OUTBOX_FORWARDER_HANDLER}`)) as { handler: StreamHandler };
  const notifier = (await import(`../../lambdas/${NOTIFIER_HANDLER}`)) as {
    handler: Parameters<typeof startQueuePoller>[1];
  };
  const queue = new LocalQueue<import('../../lambdas/shared/outbox-queue').OutboxMessage>();
  useOutboxQueue(queue);
  const reader = startStreamReader(tableName, forwarder.handler, deadLetters);
  const poller = startQueuePoller(queue, notifier.handler, localQueueOptions(), deadLetters);
  return {
    async stop() {
      await reader.stop();
      await poller.stop();
    },
  };
}
