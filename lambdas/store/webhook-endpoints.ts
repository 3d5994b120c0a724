/**
 * Webhook endpoints in DynamoDB (docs/architecture.md "Data model"). A merchant's endpoints and
 * their count share the partition `WEBHOOKS#<mid>`: a create adds the endpoint and moves the count
 * on in one transaction whose condition keeps the count under MAX_WEBHOOK_ENDPOINTS (concurrent
 * creates serialize on the count item: of eight at fifteen, one wins); a delete takes both back.
 * Changes by the merchant hold only on the revision read. The delivery function records each
 * attempt's result on the endpoint (the breaker) without touching the revision.
 */
import {
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { BREAKER_THRESHOLD, MAX_WEBHOOK_ENDPOINTS } from '#contract/webhooks';
import type { WebhookEndpoint } from '#domain/webhooks';
import { keys } from './keys';
import { conditionOutcome, isConditionFailure } from '#shared/ddb';
import { containerStore, setExpression, strip, type Item } from './items';

const itemOf = (e: WebhookEndpoint): Item => ({
  ...keys.webhookEndpoint(e.merchantId, e.webhookEndpointId),
  entity: 'webhook-endpoint',
  ...e,
});

interface WebhookEndpointStore {
  /** `limit`: the merchant has MAX_WEBHOOK_ENDPOINTS already. */
  create(endpoint: WebhookEndpoint): Promise<'ok' | 'limit'>;
  get(merchantId: string, endpointId: string): Promise<WebhookEndpoint | undefined>;
  /** Every endpoint of the merchant, oldest first. */
  list(merchantId: string): Promise<WebhookEndpoint[]>;
  /** False when the endpoint changed (or went) since `previous` was read. */
  update(previous: WebhookEndpoint, next: WebhookEndpoint): Promise<boolean>;
  /** False when there was no such endpoint. */
  delete(merchantId: string, endpointId: string): Promise<boolean>;
  /** An attempt answered 2xx: the breaker closes. */
  recordSuccess(merchantId: string, endpointId: string): Promise<void>;
  /** An attempt failed: the failures in a row so far (0 when the endpoint is gone). */
  recordFailure(merchantId: string, endpointId: string): Promise<number>;
  /** An attempt was slow: the endpoint's deliveries go by the slow lane until `until`. */
  markSlow(merchantId: string, endpointId: string, until: string): Promise<void>;
  /**
   * Opens (or keeps open) the breaker until `retryAfter`, if the endpoint still had `seen` and
   * BREAKER_THRESHOLD failures in a row.
   */
  holdUntil(
    merchantId: string,
    endpointId: string,
    seen: string | undefined,
    retryAfter: string,
  ): Promise<boolean>;
  /** The service disables the endpoint (a 410); its revision moves on. */
  disable(merchantId: string, endpointId: string, reason: string, now: Date): Promise<void>;
}

/** The fields an update writes (a field left undefined is removed); the breaker's are not among them. */
const ENDPOINT_FIELDS = [
  'url',
  'enabledEvents',
  'description',
  'status',
  'disabledReason',
  'lastUpdated',
  'revision',
  'secret',
  'previousSecret',
  'previousSecretUntil',
  'rotationId',
] as const;

class DynamoWebhookEndpointStore implements WebhookEndpointStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(endpoint: WebhookEndpoint): Promise<'ok' | 'limit'> {
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.tableName,
                Key: keys.webhookCounter(endpoint.merchantId),
                UpdateExpression: 'SET endpoints = if_not_exists(endpoints, :zero) + :one, entity = :entity',
                ConditionExpression: 'attribute_not_exists(endpoints) OR endpoints < :max',
                ExpressionAttributeValues: {
                  ':zero': 0,
                  ':one': 1,
                  ':max': MAX_WEBHOOK_ENDPOINTS,
                  ':entity': 'webhook-count',
                },
              },
            },
            {
              Put: {
                TableName: this.tableName,
                Item: itemOf(endpoint),
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
      );
      return 'ok';
    } catch (error) {
      return conditionOutcome(error, [[0, 'limit' as const]]);
    }
  }

  async get(merchantId: string, endpointId: string): Promise<WebhookEndpoint | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.webhookEndpoint(merchantId, endpointId),
        ConsistentRead: true,
      }),
    );
    return Item?.entity === 'webhook-endpoint' ? strip<WebhookEndpoint>(Item) : undefined;
  }

  async list(merchantId: string): Promise<WebhookEndpoint[]> {
    // At most MAX_WEBHOOK_ENDPOINTS small items: one page.
    const out = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: {
          ':pk': keys.webhookEndpoints(merchantId),
          ':prefix': keys.webhookEndpointPrefix,
        },
        ConsistentRead: true,
      }),
    );
    return (out.Items ?? [])
      .map((i) => strip<WebhookEndpoint>(i))
      .sort(
        (a, b) =>
          a.dateCreated.localeCompare(b.dateCreated) ||
          a.webhookEndpointId.localeCompare(b.webhookEndpointId),
      );
  }

  async update(previous: WebhookEndpoint, next: WebhookEndpoint): Promise<boolean> {
    try {
      // The breaker's fields are the delivery function's: kept as they are now, not as read.
      const { failures: _f, retryAfter: _r, ...fields } = next;
      const set = setExpression(
        Object.fromEntries(ENDPOINT_FIELDS.map((name) => [name, fields[name]])),
        [],
        new Set(ENDPOINT_FIELDS),
      );
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.webhookEndpoint(previous.merchantId, previous.webhookEndpointId),
          UpdateExpression: set.UpdateExpression,
          ConditionExpression: 'attribute_exists(pk) AND #revision = :seen',
          ExpressionAttributeNames: { ...set.ExpressionAttributeNames, '#revision': 'revision' },
          ExpressionAttributeValues: { ...set.ExpressionAttributeValues, ':seen': previous.revision },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async delete(merchantId: string, endpointId: string): Promise<boolean> {
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: this.tableName,
                Key: keys.webhookEndpoint(merchantId, endpointId),
                ConditionExpression: 'attribute_exists(pk)',
              },
            },
            {
              Update: {
                TableName: this.tableName,
                Key: keys.webhookCounter(merchantId),
                UpdateExpression: 'SET endpoints = endpoints - :one',
                ConditionExpression: 'endpoints > :zero',
                ExpressionAttributeValues: { ':one': 1, ':zero': 0 },
              },
            },
          ],
        }),
      );
      return true;
    } catch (error) {
      return conditionOutcome(error, [[0, false]]);
    }
  }

  async recordSuccess(merchantId: string, endpointId: string): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.webhookEndpoint(merchantId, endpointId),
          UpdateExpression: 'SET failures = :zero REMOVE retryAfter',
          // Most successes change nothing: no write then.
          ConditionExpression: 'attribute_exists(pk) AND (failures > :zero OR attribute_exists(retryAfter))',
          ExpressionAttributeValues: { ':zero': 0 },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  async markSlow(merchantId: string, endpointId: string, until: string): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.webhookEndpoint(merchantId, endpointId),
          UpdateExpression: 'SET slowUntil = :until',
          // Never moved back (another container marked it later).
          ConditionExpression:
            'attribute_exists(pk) AND (attribute_not_exists(slowUntil) OR slowUntil < :until)',
          ExpressionAttributeValues: { ':until': until },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  async recordFailure(merchantId: string, endpointId: string): Promise<number> {
    try {
      const out = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.webhookEndpoint(merchantId, endpointId),
          UpdateExpression: 'ADD failures :one',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':one': 1 },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(out.Attributes?.failures ?? 0);
    } catch (error) {
      if (isConditionFailure(error)) return 0;
      throw error;
    }
  }

  async holdUntil(
    merchantId: string,
    endpointId: string,
    seen: string | undefined,
    retryAfter: string,
  ): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.webhookEndpoint(merchantId, endpointId),
          UpdateExpression: 'SET retryAfter = :next',
          // Still BREAKER_THRESHOLD failures in a row: a count read before another attempt's
          // success reset it opens nothing. The breaker is never open without them, so a probe's
          // failure always counts past the threshold, and its record replaces the probe's hold.
          ConditionExpression: `attribute_exists(pk) AND failures >= :threshold AND ${
            seen === undefined ? 'attribute_not_exists(retryAfter)' : 'retryAfter = :seen'
          }`,
          ExpressionAttributeValues: {
            ':next': retryAfter,
            ':threshold': BREAKER_THRESHOLD,
            ...(seen !== undefined && { ':seen': seen }),
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async disable(merchantId: string, endpointId: string, reason: string, now: Date): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.webhookEndpoint(merchantId, endpointId),
          UpdateExpression:
            'SET #status = :disabled, disabledReason = :reason, lastUpdated = :now, revision = revision + :one',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':disabled': 'disabled',
            ':reason': reason,
            ':now': now.toISOString(),
            ':one': 1,
          },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
}

/** The container's store, on the configured table (made on first use). */
export const webhookEndpointStore: () => WebhookEndpointStore =
  /* @__PURE__ */ containerStore(DynamoWebhookEndpointStore);
