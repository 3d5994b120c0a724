/**
 * The items of a payor's partition (`PAYOR#id`): the payor, its saved methods, and the
 * `CUSTOMER#mid#id` item that keeps customerAccountId unique per merchant. Shared by the payor
 * and method stores.
 */
import { keys } from './keys';
import type { Payor, SavedMethod } from '#domain/payors';
import type { Item } from './items';

export const payorItem = (p: Payor): Item => ({ ...keys.payor(p.payorId), entity: 'payor', ...p });

/** `yyyy-MM` of a card's expiry (absent for bank accounts). */
export const expiryMonthOf = (m: Pick<SavedMethod, 'expiryMonth' | 'expiryYear'>): string | undefined =>
  m.expiryMonth === undefined || m.expiryYear === undefined
    ? undefined
    : `${m.expiryYear}-${String(m.expiryMonth).padStart(2, '0')}`;

/**
 * A method's item: on the index of its processor token (GSI2, keys.vaultToken), and a card's on
 * its merchant's expiry index (GSI1, keys.merchantExpiries).
 */
export function methodItem(m: SavedMethod): Item {
  const month = expiryMonthOf(m);
  return {
    ...keys.method(m.payorId, m.savedPaymentMethodId),
    entity: 'method',
    ...m,
    ...(month !== undefined && {
      gsi1pk: keys.merchantExpiries(m.merchantId),
      gsi1sk: keys.expirySort(month, m.payorId, m.savedPaymentMethodId),
    }),
    gsi2pk: keys.vaultToken(m.processorToken),
    gsi2sk: keys.vaultTokenSort(m.payorId, m.savedPaymentMethodId),
  };
}

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
