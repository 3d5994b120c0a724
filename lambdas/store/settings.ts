/**
 * A merchant's settings (`SETTINGS#<11-digit MID>` / `SETTINGS`): the retry policy its groups
 * follow when they have none of their own. A change sets the fields given, so two changes of
 * different fields never undo each other.
 */
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RetryPolicy } from '#domain/retries';
import { keys } from './keys';
import { containerStore } from './items';

export interface MerchantSettings {
  retryPolicy?: RetryPolicy;
  lastUpdated?: string;
}

interface SettingsStore {
  /** The merchant's settings as stored (empty: the defaults). */
  get(merchantId: string): Promise<MerchantSettings>;
  /** Sets the fields given; the settings as stored after. */
  update(merchantId: string, change: { retryPolicy?: RetryPolicy }, now: Date): Promise<MerchantSettings>;
}

class DynamoSettingsStore implements SettingsStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(merchantId: string): Promise<MerchantSettings> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.merchantSettings(merchantId),
        ConsistentRead: true,
      }),
    );
    return Item
      ? {
          ...(Item.retryPolicy !== undefined && { retryPolicy: Item.retryPolicy as RetryPolicy }),
          ...(Item.lastUpdated !== undefined && { lastUpdated: Item.lastUpdated as string }),
        }
      : {};
  }

  async update(
    merchantId: string,
    change: { retryPolicy?: RetryPolicy },
    now: Date,
  ): Promise<MerchantSettings> {
    const { Attributes } = await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.merchantSettings(merchantId),
        UpdateExpression:
          'SET entity = :entity, merchantId = :m, lastUpdated = :now' +
          (change.retryPolicy ? ', retryPolicy = :p' : ''),
        ExpressionAttributeValues: {
          ':entity': 'merchant-settings',
          ':m': merchantId,
          ':now': now.toISOString(),
          ...(change.retryPolicy && { ':p': change.retryPolicy }),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return {
      ...(Attributes?.retryPolicy !== undefined && { retryPolicy: Attributes.retryPolicy as RetryPolicy }),
      ...(Attributes?.lastUpdated !== undefined && { lastUpdated: Attributes.lastUpdated as string }),
    };
  }
}

/** The container's store, on the configured table (made on first use). */
export const settingsStore: () => SettingsStore = /* @__PURE__ */ containerStore(DynamoSettingsStore);
