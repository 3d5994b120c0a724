/**
 * The local runtime's queues outlive a kill as SQS does when given a journal (lib/local/queue.ts):
 * the crash test's webhook check found event messages lost with the process that held them.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalQueue } from '#lib/local/local-queue';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'local-queue-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const bodies = (queue: LocalQueue<unknown>) =>
  queue.receive(100, 60_000).map((m) => JSON.parse(m.body) as unknown);

it('a queue made again from its journal holds the messages sent and not deleted, in flight ones included', async () => {
  const journal = join(dir, 'queue.jsonl');
  const before = new LocalQueue<{ n: number }>('test', journal);
  await before.send([1, 2, 3, 4].map((n) => ({ message: { n }, delaySeconds: 0 })));
  const [first, second] = before.receive(2, 60_000);
  before.delete(first!.id);
  // `second` was in flight (invisible) when the process died: it comes again.
  expect(second).toBeDefined();

  const after = new LocalQueue<{ n: number }>('test', journal);
  expect(after.size).toBe(3);
  expect(bodies(after)).toEqual([{ n: 2 }, { n: 3 }, { n: 4 }]);
});

it('a last line cut off by a kill is skipped; the journal is compacted on start', async () => {
  const journal = join(dir, 'queue.jsonl');
  const before = new LocalQueue<{ n: number }>('test', journal);
  await before.send([{ message: { n: 1 }, delaySeconds: 0 }]);
  before.delete(before.receive(1, 60_000)[0]!.id);
  await before.send([{ message: { n: 2 }, delaySeconds: 0 }]);
  appendFileSync(journal, '{"sent":{"id":"cut');

  const after = new LocalQueue<{ n: number }>('test', journal);
  expect(bodies(after)).toEqual([{ n: 2 }]);
  expect(readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(1);
});

it('without a journal nothing is kept', async () => {
  const before = new LocalQueue<{ n: number }>('test');
  await before.send([{ message: { n: 1 }, delaySeconds: 0 }]);
  expect(new LocalQueue('test').size).toBe(0);
});

describe('an idle poller sleeps until a message can be there (nextMessage)', () => {
  beforeEach(() => jest.useFakeTimers({ now: Date.parse('2026-12-01T00:00:00Z') }));
  afterEach(() => jest.useRealTimers());

  /** Whether `promise` has settled once the pending callbacks ran. */
  const settled = async (promise: Promise<void>): Promise<boolean> => {
    let done = false;
    void promise.then(() => (done = true));
    await jest.advanceTimersByTimeAsync(0);
    return done;
  };

  /** The sleep `promise` lasts exactly `ms`: still asleep 1 ms before, awake at it. */
  const wakesAfter = async (promise: Promise<void>, ms: number): Promise<void> => {
    await jest.advanceTimersByTimeAsync(ms - 1);
    expect(await settled(promise)).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(await settled(promise)).toBe(true);
  };

  it('an empty queue wakes a waiting poller when a message is sent, and only one per message', async () => {
    const queue = new LocalQueue<{ n: number }>('test');
    const first = queue.nextMessage(60_000);
    const second = queue.nextMessage(60_000);
    expect(await settled(first)).toBe(false);
    await queue.send([{ message: { n: 1 }, delaySeconds: 0 }]);
    expect(await settled(first)).toBe(true);
    expect(await settled(second)).toBe(false);
    queue.wakeAll();
    expect(await settled(second)).toBe(true);
  });

  it('a delayed or in-flight message ends the sleep when it becomes visible, not later', async () => {
    const queue = new LocalQueue<{ n: number }>('test');
    await queue.send([{ message: { n: 1 }, delaySeconds: 2 }]);
    await wakesAfter(queue.nextMessage(60_000), 2_000);

    expect(queue.receive(10, 5_000)).toHaveLength(1);
    await wakesAfter(queue.nextMessage(60_000), 5_000);
    expect(queue.receive(10, 5_000)).toHaveLength(1);
  });

  it('a visible message is there at once; with nothing at all, the sleep ends after maxMs', async () => {
    const queue = new LocalQueue<{ n: number }>('test');
    await wakesAfter(queue.nextMessage(1_000), 1_000);
    await queue.send([{ message: { n: 1 }, delaySeconds: 0 }]);
    expect(await settled(queue.nextMessage(1_000))).toBe(true);
  });
});
