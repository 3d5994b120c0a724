/**
 * The peak-slot model's clock: a discrete-event queue (a binary heap ordered by time, then by the
 * order events were scheduled, so two events at the same instant run first-scheduled first and a
 * run is the same every time), and a seeded random source for the model's jitter and workload.
 */

type Action = () => void;

interface Entry {
  readonly at: number;
  readonly seq: number;
  readonly action: Action;
}

const before = (a: Entry, b: Entry) => a.at < b.at || (a.at === b.at && a.seq < b.seq);

export class EventQueue {
  private readonly heap: Entry[] = [];
  private seq = 0;
  /** The time of the event being run (seconds from the slot's start). */
  now = 0;
  /** Events run so far. */
  processed = 0;

  get size(): number {
    return this.heap.length;
  }

  /** Runs `action` at `at` (never before now: an event cannot change the past). */
  at(at: number, action: Action): void {
    if (!(at >= this.now)) throw new Error(`event at ${at} before now (${this.now})`);
    const heap = this.heap;
    heap.push({ at, seq: this.seq++, action });
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  /** Runs `action` `delay` seconds from now. */
  after(delay: number, action: Action): void {
    this.at(this.now + Math.max(0, delay), action);
  }

  private pop(): Entry | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top;
    heap[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && before(heap[l]!, heap[m]!)) m = l;
      if (r < heap.length && before(heap[r]!, heap[m]!)) m = r;
      if (m === i) break;
      [heap[i], heap[m]] = [heap[m]!, heap[i]!];
      i = m;
    }
    return top;
  }

  /** Runs events in order until none is left or the next is after `until`. */
  run(until = Infinity): void {
    for (;;) {
      const next = this.heap[0];
      if (next === undefined || next.at > until) return;
      this.pop();
      this.now = next.at;
      this.processed++;
      next.action();
    }
  }
}

/** mulberry32: a small, fast, seeded generator of uniform numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
