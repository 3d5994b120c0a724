/**
 * Where an event's time goes on its way to a webhook, as the local runtime sees it (`GET
 * /__local/metrics`, `pipeline`): the stream reader (its reads, and how far behind the table each
 * batch was when the forwarder got it), and per queue the time a message waited to be received
 * after it became visible, the invocations and their handler time. The bench's delivery section
 * reads them before and after its group and reports the difference.
 */

/**
 * The wait after a read of the stream that found nothing: 200 ms just after records came (a burst's
 * next records are read at once), doubling to a second while the stream stays quiet. A quiet runtime
 * (most of a test's life, and a developer's `npm start`) then reads it once a second, not five
 * times: almost half the CPU an idle runtime and its DynamoDB Local spent.
 */
export const QUIET_STREAM_WAIT = { firstMs: 200, maxMs: 1000 };

/** Count, total and largest of a duration (ms). */
class Timing {
  count = 0;
  totalMs = 0;
  maxMs = 0;

  add(ms: number): void {
    this.count++;
    this.totalMs += ms;
    if (ms > this.maxMs) this.maxMs = ms;
  }

  toJSON() {
    return {
      count: this.count,
      totalMs: Math.round(this.totalMs),
      meanMs: this.count === 0 ? 0 : Math.round((this.totalMs / this.count) * 10) / 10,
      maxMs: Math.round(this.maxMs),
    };
  }
}

interface QueueMetrics {
  sent: number;
  /** From the moment a message could be received (sent, or its delay over) to its receipt. */
  waitMs: Timing;
  /** One per invocation: its handler time, and how many messages it was given. */
  invocationMs: Timing;
  messages: number;
}

export const pipelineMetrics = {
  stream: {
    /** GetRecords calls that returned records, and passes over every shard that found none. */
    reads: 0,
    idlePasses: 0,
    /** The stream's open shards (each pass reads every one in turn), and each pass that found records. */
    shards: 0,
    passMs: new Timing(),
    records: 0,
    readMs: new Timing(),
    /** The forwarder's invocations. */
    forwardMs: new Timing(),
    /** A batch's first new event: from its createdAt to the forwarder. */
    lagMs: new Timing(),
  },
  queues: {} as Record<string, QueueMetrics>,
};

export function queueMetrics(name: string): QueueMetrics {
  return (pipelineMetrics.queues[name] ??= {
    sent: 0,
    waitMs: new Timing(),
    invocationMs: new Timing(),
    messages: 0,
  });
}
