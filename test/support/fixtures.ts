/** Request bodies and resources for the end-to-end tier. */
import { call, futureDate, MID } from './api';

export const groupBody = (overrides: Record<string, unknown> = {}) => ({
  servicePayId: MID,
  scheduleDate: futureDate(),
  scheduleHour: 14,
  locationId: 42,
  ...overrides,
});

export const address = {
  line1: '742 Evergreen Terrace',
  city: 'Springfield',
  state: 'OR',
  postalCode: '97475',
  country: 'US',
};

/** Next year, so that test cards never expire under the tests. */
export const expiry = () => ({ expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 1 });

export const cardMethod = (
  cardNumber = '4111111111111111',
  accountType = 'VISA',
  extra: Record<string, unknown> = {},
) => ({
  accountType,
  cardNumber,
  ...expiry(),
  billingAddress: address,
  ...extra,
});

export const checkingMethod = (extra: Record<string, unknown> = {}) => ({
  accountType: 'CHECKING',
  routingNumber: '011000015',
  accountNumber: '000123456789',
  billingAddress: address,
  ...extra,
});

export interface CreatedPayor {
  payorId: string;
  defaultPaymentMethodId: string;
  savedPaymentMethods: { savedPaymentMethodId: string; maskedAccountNumber: string; isDefault: boolean }[];
  [key: string]: unknown;
}

export async function createPayor(body: Record<string, unknown> = {}, mid = MID): Promise<CreatedPayor> {
  const res = await call<CreatedPayor>('POST', `/v1/rest/merchants/${mid}/payors`, {
    paymentMethod: cardMethod(),
    ...body,
  });
  if (res.status !== 201) throw new Error(`payor create failed: ${res.status} ${res.text}`);
  return res.body;
}

/** A `{payorId}/{savedPaymentMethodId}` of a fresh payor with the given card. */
export async function aProfile(
  cardNumber = '4111111111111111',
  accountType = 'VISA',
  mid = MID,
): Promise<string> {
  const payor = await createPayor({ paymentMethod: cardMethod(cardNumber, accountType) }, mid);
  return `${payor.payorId}/${payor.defaultPaymentMethodId}`;
}
