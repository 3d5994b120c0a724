/**
 * Webhooks as Stripe sends them: each event POSTed as JSON with a `Stripe-Signature` header made
 * by the `stripe` package's own signer (`t=<time>,v1=<HMAC-SHA256 of "<time>.<body>">`), the time
 * read from the stand-in's clock. One attempt per event; `redeliver` sends the failed ones again.
 */
import Stripe from 'stripe';

export interface WebhookTarget {
  url: string;
  /** The endpoint's signing secret (`whsec_...`). */
  secret: string;
}

export interface Delivery {
  eventId: string;
  type: string;
  /** The receiver's status, or 0 when it could not be reached. */
  status: number;
}

export class WebhookSender {
  readonly deliveries: Delivery[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly failed: Stripe.Event[] = [];

  constructor(
    private readonly target: WebhookTarget,
    private readonly clock: () => number,
  ) {}

  send(event: Stripe.Event): void {
    const sending = this.deliver(event).finally(() => this.inFlight.delete(sending));
    this.inFlight.add(sending);
  }

  private async deliver(event: Stripe.Event): Promise<void> {
    const payload = JSON.stringify(event, null, 2);
    const header = Stripe.webhooks.generateTestHeaderString({
      payload,
      secret: this.target.secret,
      timestamp: Math.floor(this.clock() / 1000),
    });
    let status: number;
    try {
      const response = await fetch(this.target.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': header },
        body: payload,
        signal: AbortSignal.timeout(10_000),
      });
      status = response.status;
      await response.arrayBuffer();
    } catch {
      status = 0;
    }
    this.deliveries.push({ eventId: event.id, type: event.type, status });
    if (status < 200 || status >= 300) this.failed.push(event);
  }

  /** Waits for the deliveries under way. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  redeliver(): void {
    for (const event of this.failed.splice(0)) this.send(event);
  }
}
