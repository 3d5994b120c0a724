/**
 * Events for tests that call a store's announced writes directly (the stores take the event core
 * builds): an event of any type about `objectId`, its data empty.
 */
import type { EventType } from '#contract/events';
import { newEvent, type ServiceEvent } from '#domain/events';
import { MID } from '#support/fixtures/ids';

export const anEvent = (objectId: string, type: EventType = 'payor.updated', sequence = 1): ServiceEvent =>
  newEvent({ type, merchantId: MID, objectId, sequence, data: {} }, new Date());
