/**
 * Paces one container's sends: EMAIL_SEND_RATE per second is the whole service's budget, shared
 * by the EMAIL_SEND_CONCURRENCY containers the queue's event source runs at most, so each takes
 * one send slot every `concurrency / rate` seconds (14/s over 2 containers: one send every
 * 143 ms each). A throttle means SES's budget of this second is spent: the pacer then holds its
 * next slot back for a while, so the other e-mails of the batch do not run into it too.
 */
import { clock, sleep } from '#shared/clock';

export class Pacer {
  private next = 0;

  constructor(
    private readonly intervalMs: number,
    private readonly now: () => number = clock.nowMs,
  ) {}

  static of(ratePerSecond: number, concurrency: number): Pacer {
    return new Pacer((1000 * concurrency) / ratePerSecond);
  }

  /** Waits for this container's next send slot. */
  async take(): Promise<void> {
    const now = this.now();
    const slot = Math.max(now, this.next);
    this.next = slot + this.intervalMs;
    if (slot > now) await sleep(slot - now);
  }

  /** After a throttle: no slot before `ms` from now. */
  holdBack(ms: number): void {
    this.next = Math.max(this.next, this.now() + ms);
  }
}
