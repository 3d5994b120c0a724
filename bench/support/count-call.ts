/**
 * How the bench counts a DynamoDB call, the same way in the runtime (ddb-census.ts) and in the
 * raw client: one per command, plus the items a transaction or batch carries, so that a changed
 * write (say, an outbox item added to a payment's transaction) shows up as `TransactWrite.items`.
 */
export function countCall(counts: Record<string, number>, command: object, prefix = ''): void {
  const name = prefix + command.constructor.name.replace(/Command$/, '');
  counts[name] = (counts[name] ?? 0) + 1;
  const input = (command as { input?: Record<string, unknown> }).input ?? {};
  let items = 0;
  if (Array.isArray(input.TransactItems)) items = input.TransactItems.length;
  else if (input.RequestItems && typeof input.RequestItems === 'object') {
    for (const request of Object.values(input.RequestItems as Record<string, unknown>)) {
      items += Array.isArray(request)
        ? request.length
        : ((request as { Keys?: unknown[] }).Keys?.length ?? 0);
    }
  }
  if (items > 0) counts[`${name}.items`] = (counts[`${name}.items`] ?? 0) + items;
}
