/** Records for the integration tier: payors and saved methods written straight through the stores. */
import { randomBytes } from 'node:crypto';
import type { Payor, SavedMethod } from '../../lambdas/domain/payors';
import { newId } from '../../lambdas/shared/ids';

export const address = {
  line1: '1 Main St',
  city: 'Springfield',
  state: 'OR',
  postalCode: '97475',
  country: 'US',
};

/** A saved VISA method; `profile` is the sandbox behaviour (`ok`, a decline code, `p5000`). */
export function makeMethod(
  payorId: string,
  merchantId: string,
  profile = 'ok',
  now = new Date(),
): SavedMethod {
  const ts = now.toISOString();
  return {
    savedPaymentMethodId: newId(),
    payorId,
    merchantId,
    accountType: 'VISA',
    maskedAccountNumber: '************1111',
    processorToken: `sbx.${profile}.${randomBytes(12).toString('hex')}`,
    expiryMonth: 12,
    expiryYear: now.getUTCFullYear() + 2,
    billingAddress: address,
    dateCreated: ts,
    lastUpdated: ts,
  };
}

/** A payor with its first (default) method, not yet stored. */
export function makePayor(
  merchantId: string,
  extra: Partial<Payor> = {},
  profile = 'ok',
): { payor: Payor; method: SavedMethod } {
  const payorId = newId();
  const now = new Date();
  const method = makeMethod(payorId, merchantId, profile, now);
  const payor: Payor = {
    payorId,
    merchantId,
    defaultPaymentMethodId: method.savedPaymentMethodId,
    methodCount: 1,
    dateCreated: now.toISOString(),
    lastUpdated: now.toISOString(),
    ...extra,
  };
  return { payor, method };
}

/** Settles every promise and splits the outcomes. */
export async function settle<T>(work: Promise<T>[]): Promise<{ ok: T[]; errors: unknown[] }> {
  const outcomes = await Promise.allSettled(work);
  return {
    ok: outcomes
      .filter((o): o is PromiseFulfilledResult<Awaited<T>> => o.status === 'fulfilled')
      .map((o) => o.value as T),
    errors: outcomes
      .filter((o): o is PromiseRejectedResult => o.status === 'rejected')
      .map((o) => o.reason as unknown),
  };
}

/** Name of an error (for assertions that show what went wrong). */
export const nameOf = (error: unknown): string => (error instanceof Error ? error.name : String(error));
