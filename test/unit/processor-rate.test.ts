/**
 * The processor's rate (core/processor-rate.ts) on a fake clock and an in-memory window store: no
 * second ever holds more than the rate, however many callers; a group never more than its own; the
 * first lane's share; a full window waited out, never refused; a deadline that gives the rest back.
 */
import '#support/handlers/env';
import { FIRST_LANE_SHARE, RATE_CHUNK, rateWindows, RateTokens, type RateLane } from '#core/processor-rate';
import type { RateWindowStore } from '#store/rate-windows';

/** The table's windows in memory: the same conditional take as store/rate-windows.ts. */
class MemoryWindows implements RateWindowStore {
  readonly counts = new Map<string, number>();
  take(key: string, second: number, n: number, limit: number): Promise<boolean> {
    const k = `${key}#${second}`;
    const used = this.counts.get(k) ?? 0;
    if (used + n > limit) return Promise.resolve(false);
    this.counts.set(k, used + n);
    return Promise.resolve(true);
  }
  giveBack(key: string, second: number, n: number): Promise<void> {
    const k = `${key}#${second}`;
    this.counts.set(k, (this.counts.get(k) ?? 0) - n);
    return Promise.resolve();
  }
  count(key: string, second: number): Promise<number> {
    return Promise.resolve(this.counts.get(`${key}#${second}`) ?? 0);
  }
}

/** A shared fake clock: a wait moves it on (callers interleave at each await). */
function fakeClock(start = 0) {
  const clock = { now: start };
  return {
    clock,
    now: () => clock.now,
    wait: async (ms: number) => {
      await Promise.resolve();
      clock.now += Math.min(ms, 37); // small steps, so that parallel callers interleave within a second
    },
  };
}

const tokens = (
  store: RateWindowStore,
  time: ReturnType<typeof fakeClock>,
  over: Partial<{
    groupId: string;
    merchantId: string;
    lane: RateLane;
    need: number;
    deadline: number;
    rate: number;
    groupRate: number;
    merchantRate: number;
  }>,
) =>
  new RateTokens({
    groupId: over.groupId ?? 'g',
    merchantId: over.merchantId ?? over.groupId ?? 'm',
    lane: over.lane ?? 'rest',
    need: over.need ?? 100,
    deadline: over.deadline ?? Number.POSITIVE_INFINITY,
    limits: {
      rate: over.rate ?? 1000,
      groupRate: over.groupRate ?? 1000,
      merchantRate: over.merchantRate ?? 1000,
    },
    store,
    now: time.now,
    wait: time.wait,
    random: () => 0.5,
  });

describe('rateWindows', () => {
  it("cuts the rate into shards whose limits never add up past it; the first lane's share is kept until mid-second", () => {
    expect(rateWindows(1000, 'first')).toEqual({ shards: 4, limit: 250 });
    expect(rateWindows(1000, 'rest', 0)).toEqual({ shards: 4, limit: 250 * (1 - FIRST_LANE_SHARE) });
    expect(rateWindows(1000, 'rest', 499).limit).toBe(200);
    expect(rateWindows(1000, 'rest', 500).limit).toBe(250);
    // A small rate: fewer shards, each holding at least a chunk.
    expect(rateWindows(10, 'first')).toEqual({ shards: 1, limit: 10 });
    expect(rateWindows(3 * RATE_CHUNK, 'first').shards).toBe(3);
  });
});

describe('RateTokens', () => {
  it('8 parallel callers of 8 groups: every token granted, no second above the rate', async () => {
    const store = new MemoryWindows();
    const time = fakeClock();
    const perSecond = new Map<number, number>();
    const callers = Array.from({ length: 8 }, (_, i) => tokens(store, time, { groupId: `g${i}`, rate: 50 }));
    await Promise.all(
      callers.map(async (t) => {
        for (let k = 0; k < 100; k++) {
          expect(await t.take()).toBe(true);
          const second = Math.floor(time.clock.now / 1000);
          perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
        }
      }),
    );
    expect([...perSecond.values()].reduce((a, b) => a + b, 0)).toBe(800);
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(50);
    // The windows as the table counts them: never above the rate either.
    const bySecond = new Map<string, number>();
    for (const [key, used] of store.counts)
      if (!key.startsWith('G#') && !key.startsWith('M#')) {
        const second = key.split('#')[1]!;
        bySecond.set(second, (bySecond.get(second) ?? 0) + used);
      }
    expect(Math.max(...bySecond.values())).toBeLessThanOrEqual(50);
  });

  it("one group's callers together never pass its own rate", async () => {
    const store = new MemoryWindows();
    const time = fakeClock();
    const perSecond = new Map<number, number>();
    const callers = Array.from({ length: 4 }, () => tokens(store, time, { groupId: 'big', groupRate: 16 }));
    await Promise.all(
      callers.map(async (t) => {
        for (let k = 0; k < 20; k++) {
          expect(await t.take()).toBe(true);
          const second = Math.floor(time.clock.now / 1000);
          perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
        }
      }),
    );
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(16);
    expect([...perSecond.values()].reduce((a, b) => a + b, 0)).toBe(80);
  });

  it("merchant events partition (defect, 2026-11-26): one merchant's groups together never pass the merchant's rate", async () => {
    // One merchant's groups could take the processor's whole rate, writing its events partition
    // (GSI1 EVENTS#<mid>, about 2 units an event) up to 2,000 units a second.
    const store = new MemoryWindows();
    const time = fakeClock();
    const mine = new Map<number, number>();
    const theirs = new Map<number, number>();
    const count = (into: Map<number, number>) => {
      const second = Math.floor(time.clock.now / 1000);
      into.set(second, (into.get(second) ?? 0) + 1);
    };
    const limits = { rate: 64, groupRate: 24, merchantRate: 24 };
    const big = Array.from({ length: 4 }, (_, i) =>
      tokens(store, time, { groupId: `big${i}`, merchantId: 'district', ...limits }),
    );
    const other = tokens(store, time, { groupId: 'school', merchantId: 'school', ...limits });
    await Promise.all([
      ...big.map(async (t) => {
        for (let k = 0; k < 30; k++) {
          expect(await t.take()).toBe(true);
          count(mine);
        }
      }),
      (async () => {
        for (let k = 0; k < 30; k++) {
          expect(await other.take()).toBe(true);
          count(theirs);
        }
      })(),
    ]);
    expect(Math.max(...mine.values())).toBeLessThanOrEqual(24);
    expect([...mine.values()].reduce((a, b) => a + b, 0)).toBe(120);
    // The other merchant's group had every token it asked for meanwhile.
    expect([...theirs.values()].reduce((a, b) => a + b, 0)).toBe(30);
    // A merchant's refused window gave the group's tokens back: no group counted past what it used.
    for (const [key, used] of store.counts) if (key.startsWith('M#')) expect(used).toBeLessThanOrEqual(24);
  });

  it('the first lane takes its share while the other batches have taken theirs', async () => {
    const store = new MemoryWindows();
    const time = fakeClock();
    // The other batches fill what they may of second 0 (80% before mid-second).
    const rest = tokens(store, time, { groupId: 'large', need: 1000, rate: 40 });
    let restGot = 0;
    while (time.clock.now < 400 && (await rest.take())) if (time.clock.now < 400) restGot++;
    expect(restGot).toBeLessThanOrEqual(32);
    // A small group's first batch still gets its 8 within the same second.
    const first = tokens(store, time, { groupId: 'small', lane: 'first', need: 8, rate: 40 });
    const start = time.clock.now;
    for (let k = 0; k < 8; k++) expect(await first.take()).toBe(true);
    expect(Math.floor(time.clock.now / 1000)).toBe(Math.floor(start / 1000));
  });

  it('past its deadline a take answers false, and so does every later one: the batch is given back', async () => {
    const store = new MemoryWindows();
    const time = fakeClock();
    const t = tokens(store, time, { rate: 8, need: 100, deadline: 2500 });
    let granted = 0;
    while (await t.take()) granted++;
    expect(t.held).toBe(true);
    expect(await t.take()).toBe(false);
    expect(granted).toBeLessThanOrEqual(3 * 8); // seconds 0, 1 and 2 at most
    expect(time.clock.now).toBeGreaterThanOrEqual(2500);
  });

  it('a token left when its second ends is dropped, never used in the next', async () => {
    const store = new MemoryWindows();
    const time = fakeClock();
    const t = tokens(store, time, { need: 20 });
    expect(await t.take()).toBe(true); // a chunk of 8 taken in second 0, one used
    time.clock.now = 1000;
    expect(await t.take()).toBe(true); // a new chunk of second 1
    expect(t.taken).toBe(2 * RATE_CHUNK);
    expect(t.used).toBe(2);
    expect(await store.count('G#g', 0)).toBe(RATE_CHUNK);
    expect(await store.count('G#g', 1)).toBe(RATE_CHUNK);
  });
});

describe('defect (CI, 2026-11-26): under a loaded runtime every token came back past its second and was dropped, and the batches starved', () => {
  /** A table whose every answer takes `ms` of the clock (a loaded runtime's round trip and event loop). */
  const slow = (store: RateWindowStore, time: ReturnType<typeof fakeClock>, ms: number): RateWindowStore => ({
    take: async (key, second, n, limit) => {
      const taken = await store.take(key, second, n, limit);
      time.clock.now += ms;
      return taken;
    },
    giveBack: (key, second, n) => store.giveBack(key, second, n),
    count: (key, second) => store.count(key, second),
  });

  it.each([400, 900, 1_700])(
    'window answers %i ms late: every charge still gets a token, each used within the second it was counted in',
    async (lateMs) => {
      const store = new MemoryWindows();
      const time = fakeClock(120);
      const t = tokens(slow(store, time, lateMs), time, { need: 40, rate: 50, deadline: 60_000 });
      const usedIn = new Map<number, number>();
      for (let k = 0; k < 40; k++) {
        expect(await t.take()).toBe(true);
        const second = Math.floor(time.clock.now / 1000);
        expect(time.clock.now - second * 1000).toBeLessThan(1000 - 150);
        usedIn.set(second, (usedIn.get(second) ?? 0) + 1);
      }
      expect(t.held).toBe(false);
      // Each second's charges had tokens counted in that second's windows, never more than the rate.
      for (const [second, used] of usedIn) {
        const counted = await store.count('G#g', second);
        expect(used).toBeLessThanOrEqual(counted);
        expect(counted).toBeLessThanOrEqual(50);
      }
    },
  );
});
