/**
 * Payors and saved methods as the API sees them: the stores answer outcomes, this module turns
 * them into the errors a client can act on (a payor or method of another merchant is not found,
 * exactly like a missing one). The stores default to the container's (tests pass their own).
 */
import { MAX_METHODS_PER_PAYOR } from '#contract/limits';
import type { UpdateMethodInput, UpdatePayorInput } from '#contract/schemas/payors';
import { nextSequence } from '#domain/events';
import { methodEvent, payorEvent, updatedMethod, type Payor, type SavedMethod } from '#domain/payors';
import { BadRequestError, NotFoundError } from '#shared/errors';
import { PAYOR, withOptimisticRetry } from '#shared/optimistic-concurrency';
import { methodStore, type MethodStore } from '#store/methods';
import { payorStore, type PayorStore, type PayorWithMethods } from '#store/payors';

class PayorNotFoundError extends NotFoundError {
  constructor(payorId: string) {
    super(`payor ${payorId} not found`);
  }
}

export class MethodNotFoundError extends NotFoundError {
  constructor(methodId: string) {
    super(`saved payment method ${methodId} not found`);
  }
}

export class DuplicateCustomerAccountIdError extends BadRequestError {
  constructor(customerAccountId: string) {
    super(`customerAccountId ${customerAccountId} already belongs to another payor of this merchant`);
  }
}

export const ONLY_METHOD = 'the only saved payment method of a payor cannot be deleted';

/** The payor with its methods; 404 when absent or another merchant's. */
export async function requirePayor(
  payorId: string,
  merchantId: string,
  store: PayorStore = payorStore(),
): Promise<PayorWithMethods> {
  const found = await store.find(payorId, merchantId);
  if (!found) throw new PayorNotFoundError(payorId);
  return found;
}

/** The payor with its methods, if it exists and is this merchant's. */
export const findPayor = (
  payorId: string,
  merchantId: string,
  store: PayorStore = payorStore(),
): Promise<PayorWithMethods | undefined> => store.find(payorId, merchantId);

/** The payor of the merchant with this customerAccountId, with its methods, if there is one. */
export async function findByCustomer(
  merchantId: string,
  customerAccountId: string,
  store: PayorStore = payorStore(),
): Promise<PayorWithMethods | undefined> {
  const payorId = await store.payorIdByCustomer(merchantId, customerAccountId);
  return payorId ? store.find(payorId, merchantId) : undefined;
}

/** E-mail addresses of these payors of the merchant, by payor id (payors without one are left out). */
export const emailsOf = (payorIds: string[], merchantId: string): Promise<Map<string, string>> =>
  payorStore().emailsOf(payorIds, merchantId);

/**
 * Refusals a new method's request can be given before its account is vaulted, so that a refused
 * request leaves nothing at the processor (Stripe: a customer and a PaymentMethod holding the
 * number) either: a customerAccountId another payor holds, a payor holding the most methods. The
 * writes still check both (a racing request can take them in between).
 */
export async function assertCustomerAccountIdFree(
  merchantId: string,
  customerAccountId: string | undefined,
  store: PayorStore = payorStore(),
): Promise<void> {
  if (customerAccountId !== undefined && (await store.payorIdByCustomer(merchantId, customerAccountId)))
    throw new DuplicateCustomerAccountIdError(customerAccountId);
}

/** See assertCustomerAccountIdFree. */
export function assertRoomForMethod(payor: Payor): void {
  if ((payor.methodCount ?? 0) >= MAX_METHODS_PER_PAYOR) throw tooManyMethods();
}

const tooManyMethods = () =>
  new BadRequestError(`a payor can have at most ${MAX_METHODS_PER_PAYOR} saved payment methods`);

/** A new payor with its first method; 400 when its customerAccountId is taken. */
export async function savePayor(
  payor: Payor,
  method: SavedMethod,
  store: PayorStore = payorStore(),
): Promise<void> {
  if ((await store.create(payor, method)) === 'duplicate-customer')
    throw new DuplicateCustomerAccountIdError(payor.customerAccountId!);
}

/**
 * The payor's new fields, announced by `payor.updated`. False when the payor changed since read
 * (retry); 400 when the new customerAccountId is taken.
 */
export async function changePayor(
  previous: Payor,
  next: Payor,
  methods: SavedMethod[],
  store: PayorStore = payorStore(),
): Promise<boolean> {
  const announced: Payor = { ...next, eventSeq: nextSequence(previous.eventSeq) };
  const event = payorEvent('payor.updated', announced, methods, new Date(next.lastUpdated));
  const outcome = await store.update(previous, announced, event);
  if (outcome === 'duplicate-customer') throw new DuplicateCustomerAccountIdError(next.customerAccountId!);
  return outcome === 'ok';
}

export async function addMethod(
  method: SavedMethod,
  setAsDefault: boolean,
  now: Date,
  store: MethodStore = methodStore(),
): Promise<void> {
  const created: SavedMethod = { ...method, eventSeq: 1 };
  // Its default flag as this add leaves it: default when asked to be, otherwise not.
  const event = methodEvent(
    'payment_method.created',
    created,
    setAsDefault ? method.savedPaymentMethodId : '',
    now,
  );
  const outcome = await store.addMethod(created, setAsDefault, now, event);
  if (outcome === 'payor-not-found') throw new PayorNotFoundError(method.payorId);
  if (outcome === 'limit-reached') throw tooManyMethods();
}

/**
 * Changes the fields present of a payor (PUT). The write holds only if the payor item is as read
 * (its revision), so concurrent updates, method changes and default switches are never lost: the
 * loser reads again and applies its fields to what it finds.
 */
export async function updatePayor(
  payorId: string,
  merchantId: string,
  input: UpdatePayorInput,
  now: Date,
  store: PayorStore = payorStore(),
): Promise<PayorWithMethods> {
  return withOptimisticRetry(async () => {
    const { payor, methods } = await requirePayor(payorId, merchantId, store);
    const next: Payor = {
      ...payor,
      customerAccountId: input.customerAccountId ?? payor.customerAccountId,
      customerAccountType: input.customerAccountType ?? payor.customerAccountType,
      sponsorKey: input.sponsorKey ?? payor.sponsorKey,
      customerData: (input.customerData as Record<string, string> | undefined) ?? payor.customerData,
      email: input.email ?? payor.email,
      lastUpdated: now.toISOString(),
    };
    return (await changePayor(payor, next, methods, store))
      ? { payor: { ...next, eventSeq: nextSequence(payor.eventSeq) }, methods }
      : undefined;
  }, PAYOR);
}

/**
 * Changes a saved method's expiry, billing address or customerData (PUT), and with `setAsDefault`
 * makes it the default. The write holds only at the method's revision read: two concurrent edits
 * (an expiry and an address) both take effect, the loser applying its fields to the winner's.
 */
export async function updateMethod(
  payorId: string,
  methodId: string,
  merchantId: string,
  input: UpdateMethodInput,
  now: Date,
  store: MethodStore = methodStore(),
): Promise<SavedMethod> {
  return withOptimisticRetry(async () => {
    const found = await store.findWithDefault(payorId, methodId, merchantId);
    if (!found) throw new MethodNotFoundError(methodId);
    const next = updatedMethod(found.method, input, now);
    const defaultId = input.setAsDefault === true ? methodId : found.defaultId;
    const event = methodEvent('payment_method.updated', next, defaultId, now);
    const outcome = await store.updateMethod(next, input.setAsDefault === true, event);
    if (outcome === 'method-not-found') throw new MethodNotFoundError(methodId);
    if (outcome === 'payor-not-found') throw new PayorNotFoundError(payorId);
    return outcome === 'ok' ? next : undefined;
  }, PAYOR);
}
