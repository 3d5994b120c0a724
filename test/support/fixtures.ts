/** Request bodies for the end-to-end tier. */
import { futureDate, MID } from './api';

export const groupBody = (overrides: Record<string, unknown> = {}) => ({
  servicePayId: MID,
  scheduleDate: futureDate(),
  scheduleHour: 14,
  locationId: 42,
  ...overrides,
});

/** A `{payorId}/{savedPaymentMethodId}` reference for scheduled payments. */
export async function aProfile(): Promise<string> {
  return 'payor-1/method-1';
}
