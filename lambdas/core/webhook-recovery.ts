/**
 * Webhook recovery (docs/decisions.md "Webhooks"): a replay sends an endpoint the merchant's events
 * since a time again, page by page; the recovery enqueues every pending delivery whose message is
 * lost, was never sent, or waits longer than a queue delay.
 */
import { eventEnabled } from '#domain/events';
import { pendingDelivery } from '#domain/webhooks';
import { mapLimit } from '#shared/concurrency';
import { logger } from '#shared/logger';
import { webhookQueue, type ReplayMessage } from '#shared/webhook-queue';
import { eventCursorStore } from '#store/event-cursors';
import { READ_LIMITS } from '#store/read-limits';
import { dueShards, webhookDeliveryStore } from '#store/webhook-deliveries';
import { webhookEndpointStore } from '#store/webhook-endpoints';
import { Batch, deliveryMessage, iso, lostAfterMs } from './webhook-batch';
import { clock } from '#shared/clock';

/** One page of a replay, oldest event first; the next page is the next message. */
export async function replayPage(m: ReplayMessage, batch: Batch): Promise<void> {
  const store = webhookDeliveryStore();
  const now = batch.now();
  const endpoint = await webhookEndpointStore().get(m.merchantId, m.webhookEndpointId);
  if (!endpoint || endpoint.status !== 'enabled') return;
  // An endpoint receives the events created from its own creation on, replayed or not.
  const since = m.since > endpoint.dateCreated ? m.since : endpoint.dateCreated;
  const { events, after } = await eventCursorStore().eventsBetween(
    m.merchantId,
    since,
    m.until,
    m.after,
    READ_LIMITS.webhookReplay,
  );
  const wanted = events.filter((e) => eventEnabled(e.type, endpoint.enabledEvents));
  await mapLimit(wanted, 8, async (event) => {
    const checkAt = iso(now.getTime() + lostAfterMs());
    const d = pendingDelivery(endpoint.webhookEndpointId, m.merchantId, event, now, checkAt);
    if ((await store.replay(d, now)) === 'reset') batch.enqueue(deliveryMessage(d));
  });
  // Within one page the resets above ran at once: the order rule still holds, since a delivery
  // whose earlier event is pending waits for it, whichever was reset first. The next page's
  // message is sent now: if it cannot be, this page fails and runs again (its resets find the
  // deliveries pending and change nothing).
  if (after !== undefined) {
    const failed = await webhookQueue().send([{ message: { ...m, after }, delaySeconds: 0 }]);
    if (failed.length > 0) throw new Error('the next replay page could not be queued');
  }
  logger.info('webhook replay page', {
    webhookEndpointId: m.webhookEndpointId,
    events: events.length,
    sent: wanted.length,
  });
}

/**
 * The webhook recovery: every pending delivery whose `checkAt` has passed gets a new message (its
 * message was lost, never sent, or its retry was longer than a queue delay), and its `checkAt`
 * moves on. Bounded: READ_LIMITS.webhookSweep per shard and run.
 */
export async function recoverDeliveries(now: Date = clock.now()): Promise<{ enqueued: number }> {
  const store = webhookDeliveryStore();
  const batch = new Batch(() => now);
  for (const shard of dueShards()) {
    const due = await store.due(shard, now, READ_LIMITS.webhookSweep);
    await mapLimit(due, 16, async (d) => {
      if (await store.touch(d, iso(now.getTime() + lostAfterMs()))) batch.enqueue(deliveryMessage(d));
    });
  }
  const failed = await webhookQueue().send(batch.messages);
  if (failed.length > 0)
    logger.warn('webhook recovery: messages not enqueued; the next run tries again', {
      failed: failed.length,
    });
  return { enqueued: batch.messages.length - failed.length };
}
