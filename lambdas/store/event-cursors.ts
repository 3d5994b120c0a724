/**
 * What the webhook fan-out reads besides deliveries (docs/architecture.md "Data model"). The event
 * cursor (`WHSEEN#<object>`) holds the sequences of an object's events the fan-out has seen (one
 * ADD per event): the order rule's check that no earlier event is still behind in the stream. A
 * replay reads a merchant's events of a time range on GSI1, a page at a time.
 */
import { GetCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ServiceEvent } from '#domain/events';
import { keys } from './keys';
import { containerStore, sendThroughConflicts, strip } from './items';

/** How long an event cursor outlives its object's last event: far longer than any retry. */
const CURSOR_TTL_SECONDS = 400 * 86_400;

interface EventRange {
  events: ServiceEvent[];
  /** The GSI1 sort key of the last event read, absent when the range ended. */
  after?: string;
}

/**
 * The write that marks an event of its object seen: `see`, or an item of a transaction that writes
 * the event's delivery records with it (store/webhook-deliveries.ts `createSeen`).
 */
export const cursorSeen = (tableName: string, objectId: string, sequence: number, now: Date) => ({
  TableName: tableName,
  Key: keys.eventCursor(objectId),
  UpdateExpression: 'ADD seen :seq SET entity = :entity, expiresAt = :expires',
  ExpressionAttributeValues: {
    ':seq': new Set([sequence]),
    ':entity': 'event-cursor',
    ':expires': Math.floor(now.getTime() / 1000) + CURSOR_TTL_SECONDS,
  },
});

class DynamoEventCursorStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * The fan-out saw this event of its object; sent again while another fan-out's transaction holds
   * the cursor (`createSeen`).
   */
  async see(objectId: string, sequence: number, now: Date): Promise<void> {
    const update = cursorSeen(this.tableName, objectId, sequence, now);
    await sendThroughConflicts(() => this.db.send(new UpdateCommand(update)));
  }

  /** The sequences of the object's events the fan-out has seen. */
  async seen(objectId: string): Promise<Set<number>> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.eventCursor(objectId), ConsistentRead: true }),
    );
    return new Set([...((Item?.seen as Set<number> | undefined) ?? [])].map(Number));
  }

  /** The merchant's events created in [since, until], oldest first, after `after` (GSI1). */
  async eventsBetween(
    merchantId: string,
    since: string,
    until: string,
    after: string | undefined,
    limit: number,
  ): Promise<EventRange> {
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk BETWEEN :from AND :until',
        ExpressionAttributeValues: {
          ':pk': keys.merchantEvents(merchantId),
          // Past `after` (the sort key of the last event handled): the next character up.
          ':from': after === undefined ? since : `${after}\u0000`,
          // Every event of the last millisecond of the range (the sort key continues with `#evt_`).
          ':until': `${until}~`,
        },
        Limit: limit,
      }),
    );
    const items = out.Items ?? [];
    const last = items[items.length - 1];
    return {
      events: items.map((i) => strip<ServiceEvent>(i)),
      ...(out.LastEvaluatedKey && last && { after: String(last.gsi1sk) }),
    };
  }
}

/** The container's store, on the configured table (made on first use). */
export const eventCursorStore: () => DynamoEventCursorStore =
  /* @__PURE__ */ containerStore(DynamoEventCursorStore);
