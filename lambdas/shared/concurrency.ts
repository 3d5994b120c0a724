/**
 * Runs `fn` over `items` with at most `limit` calls in flight; results in input order.
 *
 * Every started call settles before this returns or rethrows: a caller that gives up on an item
 * after a failure (issue 13, defect 4) must never run while another worker is still between a
 * charge and its record, and a Lambda frozen with workers in flight would thaw them later. After
 * the first failure no new item is started; the first error is rethrown once all are settled.
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (next < items.length && !failure) {
      const index = next++;
      try {
        results[index] = await fn(items[index]!, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
  return results;
}
