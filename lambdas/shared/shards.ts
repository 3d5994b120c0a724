/**
 * Spreading one kind of item over several partitions, so that no key is hot at scale: an item's
 * shard is a function of its id alone, the same id always the same shard (a reader finds it again,
 * a rewrite lands on it), and ids spread evenly over the shards.
 */
import { createHash } from 'node:crypto';

/** The shard of `id` among `shards` (its SHA-1's first byte): the same id, the same shard. */
export const shardOf = (id: string, shards: number): number =>
  createHash('sha1').update(id).digest()[0]! % shards;
