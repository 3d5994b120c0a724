/**
 * Processing claims on group items: pending → processing (exactly one starter wins, and only at
 * the slot the starter saw), one execution per attempt, and processing → processed.
 *
 * A group stays in the due index (GSI2) from creation until its receipts are queued: pending,
 * processing, and processed while its receipts are still due. So the tick finds every group whose
 * execution closed before the work was done, and re-drives it with the next attempt's execution.
 *
 * A pending group sorts in the due index by its slot; a claimed one by its slot or the hour of its
 * claim, whichever is earlier. A group triggered before its slot (the
 * non-production triggers) therefore sorts by the hour it was claimed, and every tick from then on
 * (each reads the index up to its own slot) supervises it and counts it in the stuck-groups metric,
 * however far ahead its slot is. Its slot itself (scheduleDate, scheduleHour, the merchant's list)
 * does not change; a released claim puts it back at its slot.
 */
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { executionName } from '#contract/processing';
import { keys } from './keys';
import { nextSequence } from '#domain/events';
import { currentSlot, groupEvent, slotOf, type Group } from '#domain/groups';
import type { ProcessingSummary } from '#domain/processing';
import { announcedUpdate, writeAnnounced } from './events';
import { isConditionFailure } from '#shared/ddb';
import { containerStore, strip } from './items';

/** Lost races (a change announced between read and write) before a claim gives up. */
const CLAIM_ATTEMPTS = 5;

type ClaimOutcome = { claimed: true; executionName: string } | { claimed: false; group?: Group };

/** What a starter saw of the group: its slot and its last attempt. */
export type ClaimTarget = Pick<
  Group,
  'paymentGroupId' | 'scheduleDate' | 'scheduleHour' | 'processingAttempt'
>;

/** A group as processing sees it, read consistently; `due` while it is in the due index. */
export type ClaimedGroup = Group & { due: boolean };

interface ClaimStore {
  /**
   * Claims a pending group for processing if it is still scheduled at the slot the starter saw
   * (a reschedule answered 200 wins over a tick that read the group before it). When refused:
   * the group as stored (undefined when it does not exist).
   */
  claim(target: ClaimTarget, now: Date): Promise<ClaimOutcome>;
  /** Records the ARN of the attempt's execution (only while that attempt is the group's). */
  recordExecution(groupId: string, executionName: string, executionArn: string): Promise<void>;
  /**
   * The next attempt of a group whose execution `seen` closed before the group left the due
   * index: its new execution name, or undefined when the group moved on meanwhile.
   */
  redrive(group: Pick<Group, 'paymentGroupId' | 'executionName'>, now: Date): Promise<string | undefined>;
  /**
   * Undoes a claim whose execution could not be started (only if still ours): the group is pending
   * again, in the due index at the slot the claim required (the target's).
   */
  releaseClaim(target: ClaimTarget, executionName: string, now: Date): Promise<void>;
  /**
   * processing → processed, with the outcome summary. Idempotent. With receipts to send, the
   * group stays in the due index until `receiptsQueued`.
   */
  complete(groupId: string, summary: ProcessingSummary): Promise<void>;
  /** The group's receipts are all queued: it leaves the due index. Idempotent. */
  receiptsQueued(groupId: string, at: string): Promise<void>;
  /** The group, read consistently (a claim just made is visible). */
  read(groupId: string): Promise<ClaimedGroup | undefined>;
}

export class DynamoClaimStore implements ClaimStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async claim(target: ClaimTarget, now: Date): Promise<ClaimOutcome> {
    const groupId = target.paymentGroupId;
    const attempt = (target.processingAttempt ?? 0) + 1;
    const name = executionName(groupId, attempt);
    // A change announced meanwhile (a settings update of other fields) is a lost race: read again.
    for (let i = 0; i < CLAIM_ATTEMPTS; i++) {
      const group = await this.read(groupId);
      const claimable =
        group?.status === 'pending' &&
        group.scheduleDate === target.scheduleDate &&
        group.scheduleHour === target.scheduleHour &&
        group.processingAttempt === target.processingAttempt;
      if (!claimable) return { claimed: false, group };
      const { due: _due, executionArn: _arn, ...read } = group;
      const claimed: Group = {
        ...read,
        status: 'processing',
        executionName: name,
        processingAttempt: attempt,
        claimedAt: now.toISOString(),
        processingSince: now.toISOString(),
        lastUpdated: now.toISOString(),
        eventSeq: nextSequence(group.eventSeq),
      };
      const written = await writeAnnounced(
        this.db,
        announcedUpdate(
          this.tableName,
          {
            Key: keys.group(groupId),
            // The due-index sort: the earlier of the slot and the claim's hour (see the top).
            set:
              '#status = :processing, executionName = :e, processingAttempt = :a, claimedAt = :now, ' +
              'processingSince = :now, gsi2sk = :claimSort, lastUpdated = :now',
            remove: 'executionArn',
            condition:
              '#status = :pending AND scheduleDate = :d AND scheduleHour = :h AND ' +
              (target.processingAttempt === undefined
                ? 'attribute_not_exists(processingAttempt)'
                : 'processingAttempt = :seen'),
            names: { '#status': 'status' },
            values: {
              ':processing': 'processing',
              ':pending': 'pending',
              ':e': name,
              ':a': attempt,
              ':now': now.toISOString(),
              ':d': target.scheduleDate,
              ':h': target.scheduleHour,
              ':claimSort': keys.dueSort(claimSlot(target, now), groupId),
              ...(target.processingAttempt !== undefined && { ':seen': target.processingAttempt }),
            },
          },
          group.eventSeq,
          groupEvent('group.processing', claimed, now),
        ),
      );
      if (written) return { claimed: true, executionName: name };
    }
    return { claimed: false, group: await this.read(groupId) };
  }

  async recordExecution(groupId: string, name: string, executionArn: string): Promise<void> {
    await this.update({
      Key: keys.group(groupId),
      UpdateExpression: 'SET executionArn = :arn',
      ConditionExpression: 'executionName = :e',
      ExpressionAttributeValues: { ':arn': executionArn, ':e': name },
    }).catch(ignoreConditionFailure);
  }

  async redrive(
    group: Pick<Group, 'paymentGroupId' | 'executionName'>,
    now: Date,
  ): Promise<string | undefined> {
    const seen = group.executionName;
    const attempt = seen ? Number(seen.slice(seen.lastIndexOf('-') + 1)) + 1 : 1;
    const name = executionName(group.paymentGroupId, Number.isInteger(attempt) ? attempt : 1);
    try {
      await this.update({
        Key: keys.group(group.paymentGroupId),
        UpdateExpression:
          'SET executionName = :e, processingAttempt = :a, claimedAt = :now, lastUpdated = :now ' +
          'REMOVE executionArn',
        ConditionExpression:
          // A group waiting for its next retry round has no run to re-drive; a deleted group's
          // round (it cancels the group's retries) does.
          '(#status IN (:processing, :processed) OR (#status = :deleted AND attribute_exists(retryBound))) AND ' +
          'attribute_exists(gsi2pk) AND ' +
          'attribute_not_exists(awaitingRetry) AND ' +
          (seen ? 'executionName = :seen' : 'attribute_not_exists(executionName)'),
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':processing': 'processing',
          ':processed': 'processed',
          ':deleted': 'deleted',
          ':e': name,
          ':a': attempt,
          ':now': now.toISOString(),
          ...(seen && { ':seen': seen }),
        },
      });
      return name;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return undefined;
    }
  }

  async releaseClaim(target: ClaimTarget, name: string, now: Date): Promise<void> {
    const groupId = target.paymentGroupId;
    for (let i = 0; i < CLAIM_ATTEMPTS; i++) {
      const group = await this.read(groupId);
      if (group?.status !== 'processing' || group.executionName !== name) return;
      const { due: _due, executionArn: _arn, executionName: _name, claimedAt: _at, ...read } = group;
      const released: Group = {
        ...read,
        status: 'pending',
        lastUpdated: now.toISOString(),
        eventSeq: nextSequence(group.eventSeq),
      };
      // processingAttempt stays: the released attempt's name is never used again. The claim
      // required the target's slot, so that is the slot the group sorts by again.
      const written = await writeAnnounced(
        this.db,
        announcedUpdate(
          this.tableName,
          {
            Key: keys.group(groupId),
            set: '#status = :pending, lastUpdated = :now, gsi2sk = :slotSort',
            remove: 'executionName, executionArn, claimedAt',
            condition: '#status = :processing AND executionName = :e',
            names: { '#status': 'status' },
            values: {
              ':processing': 'processing',
              ':pending': 'pending',
              ':e': name,
              ':now': now.toISOString(),
              ':slotSort': keys.dueSort(slotOf(target.scheduleDate, target.scheduleHour), groupId),
            },
          },
          group.eventSeq,
          // Back to pending: announced as an update of the group (its status).
          groupEvent('group.updated', released, now),
        ),
      );
      if (written) return;
    }
  }

  async complete(groupId: string, summary: ProcessingSummary): Promise<void> {
    const leaveDueIndex = summary.settlesAt === null;
    const nextRetry = summary.nextRetrySlot ?? null;
    for (let i = 0; i < CLAIM_ATTEMPTS; i++) {
      const group = await this.read(groupId);
      // Completed already (a retried step) changes nothing and announces nothing.
      if (group?.status !== 'processing') return;
      const { due: _due, ...read } = group;
      const processed: Group = {
        ...read,
        status: 'processed',
        processingSummary: summary,
        lastUpdated: summary.processedAt,
        eventSeq: nextSequence(group.eventSeq),
      };
      const run = runEnd(groupId, nextRetry, leaveDueIndex);
      const written = await writeAnnounced(
        this.db,
        announcedUpdate(
          this.tableName,
          {
            Key: keys.group(groupId),
            set: '#status = :processed, processingSummary = :s, lastUpdated = :now' + run.set,
            ...(run.remove && { remove: run.remove }),
            condition: '#status = :processing',
            names: { '#status': 'status' },
            values: {
              ':processed': 'processed',
              ':processing': 'processing',
              ':s': summary,
              ':now': summary.processedAt,
              ...run.values,
            },
          },
          group.eventSeq,
          groupEvent('group.processed', processed, new Date(summary.processedAt)),
        ),
      );
      if (written) return;
    }
    throw new Error(`group ${groupId}: could not record its completion (it kept changing)`);
  }

  async receiptsQueued(groupId: string, at: string): Promise<void> {
    const group = await this.read(groupId);
    if (group?.status !== 'processed' || !group.due || group.awaitingRetry) return;
    // The run ends: the group waits for its next retry round in the due index, or leaves it.
    const run = runEnd(groupId, group.retrySlot ?? null, true);
    const seen = roundAsRead(group.retrySlot);
    await this.update({
      Key: keys.group(groupId),
      UpdateExpression: `SET receiptsQueuedAt = :at${run.set}${run.remove ? ` REMOVE ${run.remove}` : ''}`,
      ConditionExpression: `#status = :processed AND begins_with(gsi2pk, :due) AND ${seen.condition}`,
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':processed': 'processed',
        ':due': 'DUE#',
        ':at': at,
        ...run.values,
        ...seen.values,
      },
    }).catch(ignoreConditionFailure);
  }

  async read(groupId: string): Promise<ClaimedGroup | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.group(groupId), ConsistentRead: true }),
    );
    if (Item?.entity !== 'group') return undefined;
    const due = typeof Item.gsi2pk === 'string' && Item.gsi2pk.startsWith('DUE#');
    return { ...strip<Group>(Item), due };
  }

  private async update(input: Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName'>) {
    await this.db.send(new UpdateCommand({ TableName: this.tableName, ...input }));
  }
}

/**
 * How a group's run ends (docs/architecture.md#retry-rounds), as parts of its update: the slot of
 * its next retry round kept (`retrySlot`); when nothing more of the run is due (`ends`), the group
 * waits in the due index at that slot (`awaitingRetry`), or leaves the index when none is
 * scheduled. A run that still queues receipts stays where it is until ReceiptsQueued ends it.
 */
export function runEnd(
  groupId: string,
  nextRetry: string | null,
  ends: boolean,
): { set: string; remove?: string; values: Record<string, unknown> } {
  const removed: string[] = [];
  let set = '';
  const values: Record<string, unknown> = {};
  if (nextRetry === null) removed.push('retrySlot');
  else {
    set += ', retrySlot = :nextRetry';
    values[':nextRetry'] = nextRetry;
  }
  if (ends && nextRetry === null) removed.push('gsi2pk', 'gsi2sk');
  if (ends && nextRetry !== null) {
    set += ', awaitingRetry = :awaiting, gsi2pk = :dueShard, gsi2sk = :retrySort';
    values[':awaiting'] = true;
    values[':dueShard'] = keys.dueShard(groupId);
    values[':retrySort'] = keys.dueSort(nextRetry, groupId);
  }
  return { set, ...(removed.length > 0 && { remove: removed.join(', ') }), values };
}

/**
 * The condition that no retry round of a processed group runs and its next round's slot is still
 * `retrySlot` as read (absent: none), with its values.
 */
export function roundAsRead(retrySlot: string | undefined): {
  condition: string;
  values: Record<string, string>;
} {
  return retrySlot === undefined
    ? { condition: 'attribute_not_exists(retryBound) AND attribute_not_exists(retrySlot)', values: {} }
    : {
        condition: 'attribute_not_exists(retryBound) AND retrySlot = :seenSlot',
        values: { ':seenSlot': retrySlot },
      };
}

/** The slot a claimed group sorts by in the due index: its own, or the claim's hour when earlier. */
function claimSlot(target: ClaimTarget, now: Date): string {
  const slot = slotOf(target.scheduleDate, target.scheduleHour);
  const claimed = currentSlot(now);
  return claimed < slot ? claimed : slot;
}

function ignoreConditionFailure(error: unknown): void {
  if (!isConditionFailure(error)) throw error;
}

/** The container's store, on the configured table (made on first use). */
export const claimStore: () => ClaimStore = /* @__PURE__ */ containerStore(DynamoClaimStore);
