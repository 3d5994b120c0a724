/** UTC days, the buckets of the day indexes (store/day-index.ts). */

/** The UTC days (`yyyy-mm-dd`) from `since` to `until`, both included. */
export function daysBetween(since: string, until: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(since.slice(0, 10)); t <= Date.parse(until); t += 86_400_000)
    days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}
