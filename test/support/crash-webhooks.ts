/**
 * The crash test's webhook side (issue 18, "What it must show": the runtime killed with SIGKILL
 * during a burst of changes loses no event and sends none for a change that did not happen). A
 * receiver on loopback, verifying every delivery with `standardwebhooks`, is subscribed before
 * the workload starts to the events of the money the clients move and of the groups
 * (SUBSCRIBED); after the last restart the deliveries are swept until every such event written
 * since is received, or a bound passes. The events in the table are the changes that happened
 * (each written in its change's transaction): each must have arrived, and nothing may arrive that
 * is not one of them. (Not every payment's events: the groups' thousand payment events reach one
 * endpoint at tens a second on an idle machine, and on a loaded CI machine would add most of a
 * minute to the test.)
 */
import { sleep } from '#shared/clock';
import { CRASH_MID, type CrashClient } from '#support/crash-client';
import { readTable } from '#support/crash-oracle';
import type { Receiver } from '#support/webhook-receiver';

interface DeliveryFindings {
  /** Events of the subscribed types written since the endpoint was made. */
  written: number;
  /** Of those, not received (verified) within the bound. */
  missing: string[];
  /** Received events that are not in the table: a change that did not happen. */
  phantom: string[];
  /** Requests whose signature did not verify. */
  unverified: number;
  /** Sale ids that the client saw approved and whose transaction.approved event was not received. */
  approvedUnannounced: string[];
}

/** The event types the receiver is subscribed to. */
const SUBSCRIBED = ['transaction.*', 'refund.*', 'group.*'];
const subscribed = (type: string): boolean => SUBSCRIBED.some((t) => type.startsWith(t.slice(0, -1)));

/** Subscribes `receiver` to SUBSCRIBED of the crash merchant; its creation time. */
export async function subscribe(client: CrashClient, receiver: Receiver): Promise<string> {
  const reply = await client.call<{ secret: string; dateCreated: string }>(
    'POST',
    `/v1/rest/merchants/${CRASH_MID}/webhook-endpoints`,
    { url: receiver.url('/hooks'), enabledEvents: SUBSCRIBED, description: 'crash test' },
  );
  if (reply?.status !== 201) throw new Error(`webhook endpoint: ${reply?.status} ${reply?.text}`);
  receiver.secrets = [reply.body.secret];
  return reply.body.dateCreated;
}

/** Sweeps the deliveries (a second apart) until every event written since `since` is received, at most `ms`. */
export async function awaitDeliveries(
  client: CrashClient,
  dataDir: string,
  receiver: Receiver,
  since: string,
  approved: Iterable<string>,
  ms: number,
): Promise<DeliveryFindings> {
  const until = Date.now() + ms;
  for (;;) {
    const events = (await readTable(dataDir, ['event'])).get('event') ?? [];
    const written = events
      .filter((e) => String(e.createdAt) >= since && subscribed(String(e.type)))
      .map((e) => String(e.id));
    const arrived = new Set(receiver.received.filter((r) => r.verified).map((r) => r.event.id));
    const missing = written.filter((id) => !arrived.has(id));
    if (missing.length === 0 || Date.now() > until) {
      // Phantoms are judged on what had arrived before a second read of the table: each of those
      // was written before it was sent, so before that scan began, and is in it. (Compared with a
      // read made earlier, an event still being written, a group finishing, that arrived during or
      // after that read would look like a change that did not happen.)
      const received = [...receiver.received];
      const eventsNow = new Set(
        ((await readTable(dataDir, ['event'])).get('event') ?? []).map((e) => String(e.id)),
      );
      const announced = new Set(
        receiver.received.filter((r) => r.event.type === 'transaction.approved').map((r) => r.event.objectId),
      );
      return {
        written: written.length,
        missing,
        phantom: [...new Set(received.map((r) => r.event.id))].filter((id) => !eventsNow.has(id)),
        unverified: receiver.received.filter((r) => !r.verified).length,
        approvedUnannounced: [...approved].filter((id) => !announced.has(id)),
      };
    }
    await client.local('/__local/webhooks/sweep', {});
    await sleep(1_000);
  }
}
