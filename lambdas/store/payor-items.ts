/**
 * The items of a payor's partition (`PAYOR#id`): the payor, its saved methods, and the
 * `CUSTOMER#mid#id` item that keeps customerAccountId unique per merchant. Shared by the payor
 * and method stores.
 */
import { keys } from '#shared/keys';
import { expiryMonthOf, type Payor, type SavedMethod } from '#domain/payors';
import type { Item } from './items';

export const payorItem = (p: Payor): Item => ({ ...keys.payor(p.payorId), entity: 'payor', ...p });

/**
 * A method item with its two index entries: its card's expiry month on GSI1 (the merchant's
 * expiring cards) and its processor token on GSI2 (the account updater's lookup). Every write of
 * a method is a whole Put of this, so the entries follow its expiry and token.
 */
export const methodItem = (m: SavedMethod): Item => {
  const month = expiryMonthOf(m);
  return {
    ...keys.method(m.payorId, m.savedPaymentMethodId),
    entity: 'method',
    ...m,
    ...(month !== undefined && keys.expiryIndex(m.merchantId, month, m.payorId, m.savedPaymentMethodId)),
    ...keys.methodToken(m.processorToken),
  };
};

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
