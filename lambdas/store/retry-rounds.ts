/**
 * Retry rounds on group items (docs/architecture.md#retry-rounds). A processed group whose
 * payments have retries scheduled waits in the due index (GSI2, sparse) at `retrySlot`, the
 * earliest of them, with `awaitingRetry`; claiming a round is one conditional write on what the
 * starter saw (that slot, the group's last attempt), so of any number of starters (ticks, the due
 * sweep, a tester's retry-now) exactly one starts the round's execution. The claim is a
 * processing attempt like any other (its own execution name, supervised by the tick), marked by
 * `retryBound` until the round's charges are done; the group's status does not change.
 */
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { executionName } from '#contract/processing';
import { nextSequence } from '#domain/events';
import { currentSlot, groupEvent, type Group, type Payment } from '#domain/groups';
import { slotAt } from '#domain/retries';
import type { ProcessingSummary } from '#domain/processing';
import type { ServiceEvent } from '#domain/events';
import { keys } from './keys';
import { roundAsRead, runEnd, type ClaimedGroup, claimStore } from './claims';
import { announcedUpdate, writeAnnounced } from './events';
import { conditionOutcome, isConditionFailure } from '#shared/ddb';
import { containerStore, strip } from './items';
import { readAll } from './paging';

/** Lost races (a change announced between read and write) before a round's completion gives up. */
const COMPLETE_ATTEMPTS = 5;

/** What a starter saw of a group waiting for a retry round. */
export type RoundTarget = Pick<Group, 'paymentGroupId' | 'retrySlot' | 'processingAttempt'>;

type RoundClaim = { claimed: true; executionName: string } | { claimed: false; group?: ClaimedGroup };

interface RetryRoundStore {
  /**
   * Claims the group's next retry round if it still waits at the slot the starter saw: the
   * round's execution name. `bound`: the latest slot whose due retries the round charges.
   */
  claim(target: RoundTarget, bound: string, now: Date): Promise<RoundClaim>;
  /** Undoes a claim whose execution could not be started (only if still ours): it waits again. */
  release(groupId: string, executionName: string): Promise<void>;
  /**
   * The round's charges are done: the recounted summary (announced by `group.updated`), the next
   * round's slot, and the run ended unless receipts are due (ReceiptsQueued ends it then).
   * Idempotent.
   */
  complete(groupId: string, round: number, summary: ProcessingSummary): Promise<void>;
  /**
   * Deletes a processed group waiting for a retry round, announced by `event`, if it is as read:
   * its round is moved to `now`'s slot, where it cancels every scheduled retry (nothing charged).
   */
  deleteWaiting(previous: Group, now: Date, event: ServiceEvent): Promise<boolean>;
  /**
   * The merchant's groups with a retry scheduled (`retrySlot`), whether waiting for their round
   * (`awaitingRetry`), running it (`retryBound`) or finishing their last run's receipts (GSI1: one
   * Query of its groups).
   */
  withRetries(merchantId: string): Promise<Group[]>;
  /**
   * A processed payment's retry decided after its debit was returned (`next`: the payment with
   * it, announced by `event`), if the payment is as read; a scheduled one also brings its group
   * back to wait for a round at the earlier of its slot and the group's (when its run has ended;
   * while its receipts are queued, the slot alone, which ReceiptsQueued then waits at). Holds only
   * while no round of the group runs and its slot is as read; false otherwise.
   */
  retryAfterReturn(
    previous: Payment,
    next: Payment,
    group: ClaimedGroup,
    event: ServiceEvent,
  ): Promise<boolean>;
}

const ignoreConditionFailure = (error: unknown): void => {
  if (!isConditionFailure(error)) throw error;
};

class DynamoRetryRoundStore implements RetryRoundStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async claim(target: RoundTarget, bound: string, now: Date): Promise<RoundClaim> {
    const groupId = target.paymentGroupId;
    const group = await claimStore().read(groupId);
    const claimable =
      (group?.status === 'processed' || group?.status === 'deleted') &&
      group.awaitingRetry === true &&
      group.retrySlot !== undefined &&
      group.retrySlot === target.retrySlot &&
      group.processingAttempt === target.processingAttempt;
    if (!claimable) return { claimed: false, group };
    const attempt = (group.processingAttempt ?? 0) + 1;
    const name = executionName(groupId, attempt);
    // Sorted by the claim's hour when earlier than the round's slot (a retry-now): supervised from now on.
    const hour = currentSlot(now);
    const sort = hour < group.retrySlot! ? hour : group.retrySlot!;
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.group(groupId),
          UpdateExpression:
            'SET executionName = :e, processingAttempt = :a, claimedAt = :now, retryRound = :round, ' +
            'retryRoundAt = :now, retryBound = :bound, gsi2sk = :sort REMOVE awaitingRetry, executionArn',
          ConditionExpression:
            '#status IN (:processed, :deleted) AND awaitingRetry = :true AND retrySlot = :slot AND ' +
            (target.processingAttempt === undefined
              ? 'attribute_not_exists(processingAttempt)'
              : 'processingAttempt = :seen'),
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':e': name,
            ':a': attempt,
            ':now': now.toISOString(),
            ':round': (group.retryRound ?? 0) + 1,
            ':bound': bound,
            ':sort': keys.dueSort(sort, groupId),
            ':processed': 'processed',
            ':deleted': 'deleted',
            ':true': true,
            ':slot': target.retrySlot,
            ...(target.processingAttempt !== undefined && { ':seen': target.processingAttempt }),
          },
        }),
      );
      return { claimed: true, executionName: name };
    } catch (error) {
      ignoreConditionFailure(error);
      return { claimed: false, group: await claimStore().read(groupId) };
    }
  }

  async release(groupId: string, name: string): Promise<void> {
    const group = await claimStore().read(groupId);
    if (group?.executionName !== name || group.retryBound === undefined || group.retrySlot === undefined)
      return;
    await this.db
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.group(groupId),
          UpdateExpression:
            'SET awaitingRetry = :true, gsi2sk = :sort REMOVE executionName, executionArn, claimedAt, retryBound',
          ConditionExpression: 'executionName = :e AND attribute_exists(retryBound) AND retrySlot = :slot',
          ExpressionAttributeValues: {
            ':true': true,
            ':e': name,
            ':slot': group.retrySlot,
            ':sort': keys.dueSort(group.retrySlot, groupId),
          },
        }),
      )
      .catch(ignoreConditionFailure);
  }

  async complete(groupId: string, round: number, summary: ProcessingSummary): Promise<void> {
    const run = runEnd(groupId, summary.nextRetrySlot ?? null, summary.settlesAt === null);
    for (let i = 0; i < COMPLETE_ATTEMPTS; i++) {
      const group = await claimStore().read(groupId);
      // Completed already (a retried step): nothing more, nothing announced.
      if (group?.retryBound === undefined || group.retryRound !== round) return;
      const { due: _due, retryBound: _bound, ...read } = group;
      const updated: Group = {
        ...read,
        processingSummary: summary,
        ...(summary.nextRetrySlot ? { retrySlot: summary.nextRetrySlot } : {}),
        lastUpdated: summary.processedAt,
        eventSeq: nextSequence(group.eventSeq),
      };
      const written = await writeAnnounced(
        this.db,
        announcedUpdate(
          this.tableName,
          {
            Key: keys.group(groupId),
            set: 'processingSummary = :s, lastUpdated = :now' + run.set,
            remove: ['retryBound', ...(run.remove ? [run.remove] : [])].join(', '),
            condition: 'retryRound = :round AND attribute_exists(retryBound)',
            values: { ':s': summary, ':now': summary.processedAt, ':round': round, ...run.values },
          },
          group.eventSeq,
          // The summary changed (recovered payments, retries still scheduled): an update of the group.
          groupEvent('group.updated', updated, new Date(summary.processedAt)),
        ),
      );
      if (written) return;
    }
    throw new Error(`group ${groupId}: could not record its retry round (it kept changing)`);
  }

  async deleteWaiting(previous: Group, now: Date, event: ServiceEvent): Promise<boolean> {
    const slot = currentSlot(now);
    return writeAnnounced(
      this.db,
      announcedUpdate(
        this.tableName,
        {
          Key: keys.group(previous.paymentGroupId),
          set: '#status = :deleted, lastUpdated = :now, retrySlot = :slot, gsi2sk = :sort',
          condition: '#status = :processed AND awaitingRetry = :true AND retrySlot = :seenSlot',
          names: { '#status': 'status' },
          values: {
            ':deleted': 'deleted',
            ':processed': 'processed',
            ':true': true,
            ':now': now.toISOString(),
            ':slot': slot,
            ':sort': keys.dueSort(slot, previous.paymentGroupId),
            ':seenSlot': previous.retrySlot,
          },
        },
        previous.eventSeq,
        event,
      ),
    );
  }

  async retryAfterReturn(
    previous: Payment,
    next: Payment,
    group: ClaimedGroup,
    event: ServiceEvent,
  ): Promise<boolean> {
    const items = announcedUpdate(
      this.tableName,
      {
        Key: keys.payment(previous.paymentGroupId, previous.paymentId),
        set: '#retry = :r, lastUpdated = :now',
        condition: 'lastUpdated = :seen',
        names: { '#retry': 'retry' },
        values: { ':r': next.retry, ':now': next.lastUpdated, ':seen': previous.lastUpdated },
      },
      previous.eventSeq,
      event,
    );
    const nextAttemptAt = next.retry?.status === 'scheduled' ? next.retry.nextAttemptAt : undefined;
    if (nextAttemptAt !== undefined) {
      const ours = slotAt(nextAttemptAt);
      const slot = group.retrySlot !== undefined && group.retrySlot < ours ? group.retrySlot : ours;
      // Receipts still queued (in the due index, not waiting): ReceiptsQueued ends the run at the slot.
      const run = runEnd(group.paymentGroupId, slot, !(group.due && !group.awaitingRetry));
      const seen = roundAsRead(group.retrySlot);
      // Counted once: a retry moved (a repeat that decided another time) is already counted.
      const counted = previous.retry?.status === 'scheduled';
      items.push({
        Update: {
          TableName: this.tableName,
          Key: keys.group(group.paymentGroupId),
          UpdateExpression:
            `SET ${run.set.slice(2)}` + (counted ? '' : ' ADD processingSummary.retriesScheduled :one'),
          ConditionExpression: `#status = :processed AND ${seen.condition}`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':processed': 'processed',
            ...(!counted && { ':one': 1 }),
            ...run.values,
            ...seen.values,
          },
        },
      });
    }
    try {
      return await writeAnnounced(this.db, items);
    } catch (error) {
      return conditionOutcome(error, [['any', false]]);
    }
  }

  async withRetries(merchantId: string): Promise<Group[]> {
    const items = await readAll(this.db, {
      TableName: this.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :m',
      FilterExpression: 'attribute_exists(retrySlot)',
      ExpressionAttributeValues: { ':m': keys.merchantGroups(merchantId) },
    });
    return items.map((i) => strip<Group>(i));
  }
}

/** The container's store, on the configured table (made on first use). */
export const retryRoundStore: () => RetryRoundStore = /* @__PURE__ */ containerStore(DynamoRetryRoundStore);
