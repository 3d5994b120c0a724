/**
 * Local e-mail: aws-ses-v2-local (its web page and `GET /store` show every e-mail sent) and a
 * DynamoDB Streams reader that hands the table's stream to the stream forwarder (which puts each
 * new outbox item on the notifier's queue, lib/local/queue.ts) as real `DynamoDBStreamEvent`s,
 * with Lambda's semantics for a stream source: records in order per shard, a batch retried (with
 * backoff) from the first record the handler reports as failed, and after the retries the batch
 * goes to an on-failure destination (here: `GET /__local/dlq`). Like an event source mapping, the
 * reader keeps its place: each shard's last handled record is written to `stream-checkpoints.json`
 * in the data directory after its batch, and a restarted runtime goes on after it (a batch cut
 * off by a kill comes again: at least once). Without a checkpoint it starts at the trim horizon.
 *
 * `GET /__local/notifications` shows where the pipeline stands, so that a test can wait until
 * whatever could still send an e-mail has run: the start of the reader's last pass that found
 * every shard read to its end (every record written before it handed on, retries included), and
 * the messages on the notifier's queue (waiting, delayed or being handled).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
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
import { pipelineMetrics, QUIET_STREAM_WAIT } from './pipeline-metrics';
import { invokeAs, type LocalRoute } from './http-server';
import { backoffDelay } from '../../lambdas/shared/backoff';
import { sleep } from '../../lambdas/shared/clock';
import { awsClient } from '../../lambdas/shared/tracer';

type StreamHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse | void>;

/** The local SES's listening address, stopped with the runtime. */
export interface LocalSes {
  close(): Promise<void>;
}

/**
 * aws-ses-v2-local on `port`, loaded at its first connection: the package and its mail parser
 * were a sixth of a runtime start's CPU, and most runtimes (the tests', restarted ones) send no
 * e-mail. The port is listened on at once (a busy one fails the start, as Node's `listen` reports
 * it: bin/local.ts names SES_PORT for it); each connection, held paused until the server is
 * loaded, is handed to it. The server itself listens on another loopback port, which no one is
 * told.
 */
export async function startSes(port: number): Promise<LocalSes> {
  let ses: Promise<Server> | undefined;
  const load = () =>
    (ses ??= import('aws-ses-v2-local').then(({ default: server }) =>
      (server as unknown as (config: { host: string; port: number }) => Promise<Server>)({
        host: '127.0.0.1',
        port: 0,
      }),
    ));
  const front = createServer({ pauseOnConnect: true }, (socket) => {
    load().then(
      (server) => {
        if (socket.destroyed) return;
        server.emit('connection', socket);
        socket.resume();
      },
      (error: unknown) => {
        console.error('the local SES did not start', error);
        socket.destroy();
      },
    );
  });
  await new Promise<void>((ok, fail) => {
    front.once('error', fail);
    front.listen(port, '127.0.0.1', () => ok());
  });
  return {
    async close() {
      const closed = new Promise<void>((ok) => front.close(() => ok()));
      const server = await ses?.catch(() => undefined);
      // Its idle keep-alive connections end now (the sockets count on `front` until they close).
      server?.close();
      await closed;
    },
  };
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

/**
 * Each shard's last handled sequence number, kept in a file that outlives the process; keyed by
 * the stream's ARN too (a table made again has a new stream, whose shards start over).
 */
function checkpoints(file: string | undefined) {
  const kept: Record<string, string> =
    file !== undefined && existsSync(file)
      ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>)
      : {};
  return {
    of: (shard: string): string | undefined => kept[shard],
    save(shard: string, sequenceNumber: string | undefined): void {
      if (file === undefined || sequenceNumber === undefined) return;
      kept[shard] = sequenceNumber;
      // Written whole, then renamed: a kill never leaves half a file.
      writeFileSync(`${file}.tmp`, JSON.stringify(kept));
      renameSync(`${file}.tmp`, file);
    },
  };
}

/**
 * Reads the table's stream and invokes `handler`; `stop()` ends the loop. With `dataDir`, the
 * reader's place is kept there across restarts.
 */
function startStreamReader(
  tableName: string,
  handler: StreamHandler,
  deadLetters: DeadLetter[],
  dataDir?: string,
) {
  const ddb = awsClient(new DynamoDBClient({}));
  // Each read's records are not walked by the SDK's logger middleware (awsClient).
  const streams = awsClient(new DynamoDBStreamsClient({ endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB }));
  let running = true;
  /** When the last pass that found no record in any shard began (ms since the epoch). */
  let caughtUpAt: number | undefined;
  const iterators = new Map<string, string | null>(); // shardId → iterator (null: closed)
  const place = checkpoints(dataDir === undefined ? undefined : join(dataDir, 'stream-checkpoints.json'));

  /** Hands the records to the handler until done (true), dead-lettered (true) or stopped (false). */
  const deliver = async (shardId: string, records: StreamRecord[], streamArn: string): Promise<boolean> => {
    let pending = records;
    for (let attempt = 0; pending.length > 0 && running; attempt++) {
      let failedFrom: number;
      let reason: string;
      try {
        // How far behind the table the stream is: the batch's first new event, by its createdAt
        // (DynamoDB Local's ApproximateCreationDateTime is rounded down to the minute).
        const event = pending.find(
          (r) => r.eventName === 'INSERT' && r.dynamodb?.NewImage?.entity?.S === 'event',
        );
        const createdAt = event?.dynamodb?.NewImage?.createdAt?.S;
        if (attempt === 0 && createdAt) pipelineMetrics.stream.lagMs.add(Date.now() - Date.parse(createdAt));
        const began = performance.now();
        const result = await invokeAs('OutboxForwarder', 60_000, (context) =>
          handler({ Records: pending.map((r) => toLambdaRecord(r, streamArn)) }, context),
        );
        pipelineMetrics.stream.forwardMs.add(performance.now() - began);
        const failed = new Set((result?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
        failedFrom = pending.findIndex((r) => failed.has(r.dynamodb?.SequenceNumber ?? ''));
        reason = 'reported as failed by the handler';
      } catch (error) {
        failedFrom = 0;
        reason = (error as Error).message;
      }
      if (failedFrom < 0) return true;
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
        return true;
      }
      await sleep(backoffDelay(attempt + 1, STREAM_RETRY_BACKOFF));
    }
    return pending.length === 0;
  };

  /** The shard's iterator after its checkpoint (if the stream still holds it), else at the trim horizon. */
  const iteratorOf = async (streamArn: string, shardId: string): Promise<string | undefined> => {
    const after = place.of(`${streamArn} ${shardId}`);
    if (after !== undefined) {
      try {
        const { ShardIterator } = await streams.send(
          new GetShardIteratorCommand({
            StreamArn: streamArn,
            ShardId: shardId,
            ShardIteratorType: 'AFTER_SEQUENCE_NUMBER',
            SequenceNumber: after,
          }),
        );
        return ShardIterator;
      } catch (error) {
        console.error(`local stream reader: shard ${shardId} read from its start again`, error);
      }
    }
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shardId,
        ShardIteratorType: 'TRIM_HORIZON',
      }),
    );
    return ShardIterator;
  };

  const loop = async () => {
    const { Table } = await ddb.send(new DescribeTableCommand({ TableName: tableName }));
    const streamArn = Table?.LatestStreamArn;
    if (!streamArn) throw new Error(`table ${tableName} has no stream`);
    let lastDescribe = 0;
    let quietPasses = 0;
    while (running) {
      if (Date.now() - lastDescribe > 5000) {
        lastDescribe = Date.now();
        const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
        for (const shard of StreamDescription?.Shards ?? []) {
          if (iterators.has(shard.ShardId!)) continue;
          iterators.set(shard.ShardId!, (await iteratorOf(streamArn, shard.ShardId!)) ?? null);
        }
        pipelineMetrics.stream.shards = [...iterators.values()].filter((i) => i !== null).length;
      }
      let idle = true;
      const passBegan = Date.now();
      for (const [shardId, iterator] of iterators) {
        if (!iterator || !running) continue;
        const began = performance.now();
        const out = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 100 }));
        iterators.set(shardId, out.NextShardIterator ?? null);
        if (out.Records && out.Records.length > 0) {
          pipelineMetrics.stream.readMs.add(performance.now() - began);
          pipelineMetrics.stream.reads++;
          pipelineMetrics.stream.records += out.Records.length;
          idle = false;
          if (await deliver(shardId, out.Records, streamArn))
            place.save(
              `${streamArn} ${shardId}`,
              out.Records[out.Records.length - 1]!.dynamodb?.SequenceNumber,
            );
        }
      }
      if (!idle) pipelineMetrics.stream.passMs.add(Date.now() - passBegan);
      if (idle) {
        pipelineMetrics.stream.idlePasses++;
        caughtUpAt = passBegan;
        await sleep(backoffDelay(++quietPasses, QUIET_STREAM_WAIT));
      } else quietPasses = 0;
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
    caughtUpAt: () => caughtUpAt,
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
/** With `durableDir` (a table that outlives the process), the queue and the stream's place are kept there. */
export async function startLocalNotifications(
  tableName: string,
  deadLetters: DeadLetter[],
  durableDir?: string,
) {
  const { useOutboxQueue } = await import('../../lambdas/shared/outbox-queue');
  const { LocalQueue, startQueuePoller } = await import('./queue');
  const forwarder = (await import(`../../lambdas/${OUTBOX_FORWARDER_HANDLER}`)) as { handler: StreamHandler };
  const notifier = (await import(`../../lambdas/${NOTIFIER_HANDLER}`)) as {
    handler: Parameters<typeof startQueuePoller>[1];
  };
  const queue = new LocalQueue<import('../../lambdas/shared/outbox-queue').OutboxMessage>(
    'notifications',
    durableDir && join(durableDir, 'queue-notifications.jsonl'),
  );
  useOutboxQueue(queue);
  const reader = startStreamReader(tableName, forwarder.handler, deadLetters, durableDir);
  const poller = startQueuePoller(queue, notifier.handler, localQueueOptions(), deadLetters);
  // Local-only, for the tests of a duplicate delivery: a message handed to the notifier several
  // times at once, and the messages still on the queue (a copy put back for later among them).
  const redeliver: LocalRoute = async (_req, body) => {
    const { message, times } = JSON.parse(body || '{}') as { message?: unknown; times?: unknown };
    if (typeof message !== 'object' || message === null || !Number.isInteger(times) || (times as number) < 1)
      return { status: 400, body: { message: 'body: {"message": {...}, "times": <1 or more>}' } };
    return { status: 200, body: await poller.redeliver(message as never, times as number) };
  };
  const state: LocalRoute = async () => {
    const caughtUpAt = reader.caughtUpAt();
    return {
      status: 200,
      body: {
        streamCaughtUpAt: caughtUpAt === undefined ? null : new Date(caughtUpAt).toISOString(),
        queued: queue.bodies().map((body) => JSON.parse(body) as unknown),
      },
    };
  };
  return {
    routes: [
      ['GET /__local/notifications', state],
      ['POST /__local/notifications/redeliver', redeliver],
    ] as [string, LocalRoute][],
    async stop() {
      await reader.stop();
      await poller.stop();
    },
  };
}
