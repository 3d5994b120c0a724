/**
 * The local runtime's in-process SQS queue (lib/local/queue.ts polls it). Given a journal file,
 * the queue outlives the process as SQS does: each message sent and each deleted is appended to
 * it, and a restarted runtime takes up the messages not deleted (those in flight at a kill are
 * handed out again: at least once).
 */
import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { MessageQueue, Queued } from '../../lambdas/shared/sqs-queue';

export interface Message {
  id: string;
  body: string;
  visibleAt: number;
  receiveCount: number;
  sentAt: number;
}

/** A line of a queue's journal: a message sent, or one deleted. */
type JournalLine = { sent: Message } | { deleted: string };

export class LocalQueue<M = unknown> implements MessageQueue<M> {
  private readonly messages = new Map<string, Message>();

  constructor(
    readonly name = 'notifications',
    private readonly journal?: string,
  ) {
    if (journal === undefined) return;
    if (existsSync(journal)) {
      for (const line of readFileSync(journal, 'utf8').split('\n')) {
        if (line.trim() === '') continue;
        let entry: JournalLine;
        try {
          entry = JSON.parse(line) as JournalLine;
        } catch {
          continue; // the last line, cut off by a kill
        }
        if ('sent' in entry) this.messages.set(entry.sent.id, { ...entry.sent, receiveCount: 0 });
        else this.messages.delete(entry.deleted);
      }
    }
    // Compacted: the messages taken up, one line each.
    writeFileSync(
      journal,
      [...this.messages.values()].map((m) => `${JSON.stringify({ sent: m })}\n`).join(''),
    );
  }

  async send(messages: Queued<M>[]): Promise<number[]> {
    const now = Date.now();
    const lines: string[] = [];
    for (const { message, delaySeconds } of messages) {
      const id = randomUUID();
      const body = JSON.stringify(message);
      const sent = { id, body, visibleAt: now + delaySeconds * 1000, receiveCount: 0, sentAt: now };
      this.messages.set(id, sent);
      lines.push(JSON.stringify({ sent }));
    }
    if (this.journal !== undefined && lines.length > 0) appendFileSync(this.journal, `${lines.join('\n')}\n`);
    return [];
  }

  /** Up to `max` visible messages, made invisible for `visibilityMs`. */
  receive(max: number, visibilityMs: number): Message[] {
    const now = Date.now();
    const taken: Message[] = [];
    for (const message of this.messages.values()) {
      if (taken.length >= max) break;
      if (message.visibleAt > now) continue;
      message.visibleAt = now + visibilityMs;
      message.receiveCount++;
      taken.push(message);
    }
    return taken;
  }

  delete(id: string): void {
    if (this.messages.delete(id) && this.journal !== undefined)
      appendFileSync(this.journal, `${JSON.stringify({ deleted: id })}\n`);
  }

  /** The bodies of the messages not deleted yet: waiting, delayed or being handled. */
  bodies(): string[] {
    return [...this.messages.values()].map((m) => m.body);
  }

  get size(): number {
    return this.messages.size;
  }
}
