/**
 * The functions' webhook settings for an integration file on its own table: a sealing key of its
 * own (a key file in a temporary directory), receivers on loopback allowed, the retry schedule
 * shortened a thousandfold; the configuration reloaded.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServiceEvent } from '#domain/events';
import { reloadConfigForTests } from '#shared/config';
import { Batch } from '#core/webhook-batch';
import { handleMessage } from '#core/webhook-delivery';
import { useWebhookQueue, type EventMessage, type WebhookMessage } from '#shared/webhook-queue';

export function useWebhookTestEnv(tableName: string, prefix: string): void {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  writeFileSync(join(dir, 'key'), randomBytes(32).toString('base64'));
  Object.assign(process.env, {
    TABLE_NAME: tableName,
    SERVICE_STAGE: 'dev',
    WEBHOOK_SECRET_KEY: `file:${join(dir, 'key')}`,
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    WEBHOOK_RETRY_SCALE: '0.001',
  });
  reloadConfigForTests();
}

/** The webhook queue's message for a stored event, as the outbox forwarder sends it (its fan-out). */
export const eventMessage = (e: ServiceEvent): EventMessage => ({
  kind: 'event',
  eventId: e.id,
  merchantId: e.merchantId,
  objectId: e.objectId,
  sequence: e.sequence,
  type: e.type,
  createdAt: e.createdAt,
});

/**
 * The webhook queue in the test process, on a clock of its own: each message kept with the time
 * it is due; `pump` hands them to the delivery function in time order, moving the clock on.
 */
export class TestWebhookQueue {
  readonly messages: { message: WebhookMessage; at: number }[] = [];

  constructor(public clock = Date.now()) {}

  /** The functions' queue is this one until `useWebhookQueue(undefined)`. */
  install(): this {
    useWebhookQueue({
      send: async (messages) => {
        for (const m of messages) this.add(m.message, m.delaySeconds);
        return [];
      },
    });
    return this;
  }

  add(message: WebhookMessage, delaySeconds = 0): void {
    this.messages.push({ message, at: this.clock + delaySeconds * 1000 });
  }

  /** A batch of the delivery function at the queue's time. */
  batch(): Batch {
    return new Batch(() => new Date(this.clock));
  }

  /** The messages a batch sent, queued. */
  keep(batch: Batch): void {
    for (const m of batch.messages) this.add(m.message, m.delaySeconds);
  }

  /** Handles every message as it comes due, at most `limit` rounds. */
  async pump(limit = 200): Promise<void> {
    for (let rounds = 0; this.messages.length > 0 && rounds < limit; rounds++) {
      this.messages.sort((a, b) => a.at - b.at);
      this.clock = Math.max(this.clock, this.messages[0]!.at);
      const due = this.messages.filter((m) => m.at <= this.clock);
      this.messages.splice(0, due.length);
      const batch = this.batch();
      for (const { message } of due) await handleMessage(message, batch);
      this.keep(batch);
    }
  }
}
