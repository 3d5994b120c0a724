/**
 * The items of a payor's partition (`PAYOR#id`): the payor, its saved methods, and the
 * `CUSTOMER#mid#id` item that keeps customerAccountId unique per merchant. Shared by the payor
 * and method stores.
 */
import { keys } from '#shared/keys';
import type { Payor, SavedMethod } from '#domain/payors';
import type { Item } from './items';

export const payorItem = (p: Payor): Item => ({ ...keys.payor(p.payorId), entity: 'payor', ...p });

export const methodItem = (m: SavedMethod): Item => ({
  ...keys.method(m.payorId, m.savedPaymentMethodId),
  entity: 'method',
  ...m,
});

/** The uniqueness item of a payor's customerAccountId: written only if no payor holds it. */
export function customerPut(tableName: string, p: Payor) {
  return {
    Put: {
      TableName: tableName,
      Item: {
        ...keys.customer(p.merchantId, p.customerAccountId!),
        entity: 'customer',
        payorId: p.payorId,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** DynamoDB still left keys unprocessed after the retries (throttling): the read is incomplete. */
