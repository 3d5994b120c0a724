/**
 * The sweep index (GSI2, sparse, `SWEEP#shard` / `<began at>#<kind>#<id>`): money-moving work
 * that has begun and not been settled. A Pending sale, a Pending refund, a sale whose void is
 * reserved, and a sale given up on whose timeout reversal the processor has not confirmed carry
 * the entry; the write that settles them removes it. The sweeper reads what began before a
 * cut-off with one Query per shard, never a Scan (docs/architecture.md#sweeper).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from './keys';
import { containerStore, updateIf } from './items';
import { readAll } from './paging';

/** `reverse`: a sale given up on (Declined 96) whose timeout reversal is still due. */
export type SweepKind = 'sale' | 'refund' | 'void' | 'reverse';

export interface SweepWork {
  kind: SweepKind;
  transactionId: string;
  refundId?: string;
  /** When the work began (ISO-8601). */
  since: string;
  /** The entry as read: its item's key and sort key (dropped only while it is still this one). */
  entry: { pk: string; sk: string; sortKey: string };
}

/** The GSI2 attributes of a sweep entry; `id` spreads entries over the shards. */
export const sweepEntry = (kind: SweepKind, id: string, at: string) => ({
  gsi2pk: keys.sweepShard(id),
  gsi2sk: keys.sweepSort(at, kind, id),
});

interface SweepIndex {
  /**
   * Work begun before `before` (ISO-8601) and not settled yet, oldest first per shard: at most
   * `limit` entries (spread over the shards), so one sweep reads a bounded page of a backlog.
   */
  staleWork(before: string, limit: number): Promise<SweepWork[]>;
  /**
   * Takes an entry out of the index whose work no longer applies (its sale or refund settled by a
   * write that left the entry behind), while it is still the one read: read at every sweep
   * otherwise, oldest first, such entries would take the place of live work.
   */
  drop(work: SweepWork): Promise<void>;
}

class DynamoSweepIndex implements SweepIndex {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async staleWork(before: string, limit: number): Promise<SweepWork[]> {
    const shards = keys.sweepShards();
    const perShard = Math.max(1, Math.ceil(limit / shards.length));
    const pages = await Promise.all(
      shards.map((shard) =>
        readAll(
          this.db,
          {
            TableName: this.tableName,
            IndexName: 'gsi2',
            KeyConditionExpression: 'gsi2pk = :s AND gsi2sk < :before',
            ExpressionAttributeValues: { ':s': shard, ':before': before },
            ProjectionExpression: 'pk, sk, gsi2sk',
            Limit: perShard,
          },
          perShard,
        ),
      ),
    );
    return pages
      .flat()
      .slice(0, limit)
      .map((item) => {
        const sort = String(item.gsi2sk).split('#');
        const transactionId = String(item.pk).slice('TXN#'.length);
        const sk = String(item.sk);
        return {
          kind: sort[1] as SweepKind,
          transactionId,
          ...(sk.startsWith(keys.refundPrefix) && { refundId: sk.slice(keys.refundPrefix.length) }),
          since: sort[0]!,
          entry: { pk: String(item.pk), sk, sortKey: String(item.gsi2sk) },
        };
      });
  }

  async drop(work: SweepWork): Promise<void> {
    await updateIf(this.db, {
      TableName: this.tableName,
      Key: { pk: work.entry.pk, sk: work.entry.sk },
      UpdateExpression: 'REMOVE gsi2pk, gsi2sk',
      ConditionExpression: 'gsi2sk = :seen',
      ExpressionAttributeValues: { ':seen': work.entry.sortKey },
    });
  }
}

/** The container's index, on the configured table (made on first use). */
export const sweepIndex: () => SweepIndex = /* @__PURE__ */ containerStore(DynamoSweepIndex);
