import { spread } from '../../bench/sections/section';

describe('bench: the CPU-cost ratio of each round alone', () => {
  it('gives the median (the middle two averaged for an even count), the lowest and the highest', () => {
    expect(spread([1.25, 0.75, 1, 0.9])).toEqual({ median: 0.95, min: 0.75, max: 1.25, rounds: 4 });
    expect(spread([0.8, 0.97, 0.9])).toEqual({ median: 0.9, min: 0.8, max: 0.97, rounds: 3 });
  });

  it('rounds to three decimals, as the run ratio is', () => {
    expect(spread([0.12345, 0.98765])).toEqual({ median: 0.556, min: 0.123, max: 0.988, rounds: 2 });
  });
});
