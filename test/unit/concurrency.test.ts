import { mapLimit } from '#shared/concurrency';
import { sleep } from '#shared/clock';

describe('mapLimit', () => {
  it('keeps input order under concurrency', async () => {
    const out = await mapLimit([30, 10, 20], 3, async (ms, i) => {
      await sleep(ms);
      return i;
    });
    expect(out).toEqual([0, 1, 2]);
  });

  // Issue 13, defect 4: a give-up after the first error must not race workers still in flight.
  it('defect 4: settles every worker in flight before it rethrows the first error', async () => {
    const finished: number[] = [];
    const run = mapLimit([0, 1, 2, 3], 4, async (i) => {
      if (i === 0) throw new Error('first');
      await sleep(20 * i);
      finished.push(i);
      return i;
    });
    await expect(run).rejects.toThrow('first');
    expect(finished.sort()).toEqual([1, 2, 3]);
  });

  it('starts no new item after a failure', async () => {
    const started: number[] = [];
    await expect(
      mapLimit([0, 1, 2, 3], 1, async (i) => {
        started.push(i);
        if (i === 1) throw new Error('stop');
        return i;
      }),
    ).rejects.toThrow('stop');
    expect(started).toEqual([0, 1]);
  });
});
