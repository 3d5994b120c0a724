/**
 * Migration (issue 21): writes the method uses (store/method-uses.ts) of the payments created
 * before uses existed, so that a method they name is not deleted from under them.
 *
 * Run by the operator (`npm run admin -- backfill-method-uses`, docs/operating.md "Migrations after
 * a deploy"), once per stage right after deploying; safe to run again at any time and beside live
 * traffic:
 * - it reads the groups that may still charge (pending or processing: the due index, never a Scan)
 *   and, of each, the payments not deleted and not answered;
 * - it writes each one's use (a Put of the same item: a repeat changes nothing); a use left for a
 *   payment changed meanwhile names a method the payment no longer names, and the next listing of
 *   that method prunes it;
 * - then, as a large create does (the fence), it reads every method those payments name again,
 *   strongly consistent: a method gone or being deleted at that moment may have been listed before
 *   the use was written, and its payments are reported (`atRisk`). Processing declines a payment
 *   whose method is gone (`PM`, category 1) without asking the processor, so none is charged on it.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { parseProfileId } from '#domain/payors';
import { keys } from './keys';
import { batchWriteAll } from './items';
import { readAll } from './paging';
import { distinctProfiles, unavailableMethods, useItem } from './method-uses';

/** How long the writes of one group's uses may take before the run fails (and is run again). */
const BACKFILL_GROUP_BUDGET_MS = 10 * 60_000;

interface MethodUsesBackfill {
  /** Groups read (pending or processing). */
  groups: number;
  /** Uses written (one per unanswered, not deleted payment of those groups). */
  written: number;
  /** Payments whose method was gone or being deleted when read again: `groupId/paymentId`. */
  atRisk: string[];
}

export async function backfillMethodUses(
  db: DynamoDBDocumentClient,
  tableName: string,
): Promise<MethodUsesBackfill> {
  const result: MethodUsesBackfill = { groups: 0, written: 0, atRisk: [] };
  for (const shard of keys.dueShards()) {
    const groups = await readAll(db, {
      TableName: tableName,
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :shard',
      ExpressionAttributeValues: { ':shard': shard },
    });
    for (const group of groups) {
      if (group.status !== 'pending' && group.status !== 'processing') continue;
      result.groups++;
      const groupId = String(group.paymentGroupId);
      const payments = await readAll(db, {
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :payment)',
        ExpressionAttributeValues: { ':pk': keys.group(groupId).pk, ':payment': keys.paymentPrefix },
        ProjectionExpression: 'paymentGroupId, paymentId, profileId, merchantId, deleted, authResponse',
        ConsistentRead: true,
      });
      const live = payments
        .filter((p) => p.deleted !== true && (p.authResponse === undefined || p.authResponse === null))
        .map((p) => ({
          paymentGroupId: String(p.paymentGroupId),
          paymentId: String(p.paymentId),
          profileId: String(p.profileId),
          merchantId: String(p.merchantId),
        }));
      if (live.length === 0) continue;
      // An operator's run, not a request: a group of 100,000 payments may take minutes.
      await batchWriteAll(
        db,
        tableName,
        live.map((p) => ({ PutRequest: { Item: useItem(p) } })),
        BACKFILL_GROUP_BUDGET_MS,
      );
      result.written += live.length;
      const unavailable = new Set(await unavailableMethods(db, tableName, distinctProfiles(live)));
      for (const p of live) {
        if (unavailable.has(parseProfileId(p.profileId).savedPaymentMethodId))
          result.atRisk.push(`${p.paymentGroupId}/${p.paymentId}`);
      }
    }
  }
  return result;
}
