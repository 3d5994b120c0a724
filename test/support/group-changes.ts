/**
 * Group changes written straight to a store, for the integration tests of the stores and of
 * processing: each reads the group, then writes the change with the event announcing it, as
 * core/groups.ts does (without its retries: a refused write answers false).
 */
import { nextSequence } from '#domain/events';
import { groupEvent, type Group } from '#domain/groups';
import type { GroupStore } from '#store/groups';

/** Soft-deletes the group as it is now; false when it is not pending. */
export async function markGroupDeleted(
  store: GroupStore,
  groupId: string,
  now = new Date(),
): Promise<boolean> {
  const group = await store.getGroup(groupId);
  if (!group) return false;
  const deleted: Group = {
    ...group,
    status: 'deleted',
    lastUpdated: now.toISOString(),
    eventSeq: nextSequence(group.eventSeq),
  };
  return store.markDeleted(group, now, groupEvent('group.deleted', deleted, now));
}

/** Changes settings of the group as it is now; false when it changed meanwhile or is not pending. */
export async function changeGroupSettings(
  store: GroupStore,
  groupId: string,
  changes: Partial<Pick<Group, 'scheduleDate' | 'scheduleHour' | 'locationId' | 'allowPartial'>>,
  now = new Date(),
): Promise<boolean> {
  const group = await store.getGroup(groupId);
  if (!group) return false;
  const next: Group = {
    ...group,
    ...changes,
    lastUpdated: now.toISOString(),
    eventSeq: nextSequence(group.eventSeq),
  };
  return store.updateSettings(group, next, groupEvent('group.updated', next, now));
}
