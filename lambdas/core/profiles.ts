/**
 * Scheduled payments must name a saved method of a payor of the same merchant (docs/product.md#payments).
 * Resolving them also yields what a payment-scheduled notice needs (mask, type, payor e-mail) and
 * what a payment's record copies of its payor (sponsorKey).
 */
import type { Group, Payment } from '#domain/groups';
import { noticeOutboxId, type OutboxItem } from '#domain/notifications';
import { isUnusable, parseProfileId, type MethodStatus } from '#domain/payors';
import { BadRequestError, ServiceUnavailableError } from '#shared/errors';
import { methodStore, type MethodRef } from '#store/methods';
import { MAX_PROBLEMS, ValidationError, type Problem } from '#shared/validation';
import { IncompleteReadError } from '#store/items';
import { MethodUnavailableError } from '#store/method-uses';
import { payorStore, type PayorCopy } from '#store/payors';

/**
 * The 400 of a payment whose method went away, or began to be deleted, between the request's
 * check and its write (the write's fence refused it).
 */
export const methodUnavailable = (field: string, profileId: string): BadRequestError =>
  new BadRequestError(
    `${field} ${profileId} names a saved payment method that is being deleted or no longer exists`,
  );

/**
 * Runs a create's write of these payments; a refusal by its fence (a method gone, being deleted
 * or, for a series, revoked since resolveProfiles read it) becomes the 400 naming the first
 * payment on such a method.
 */
export async function writingPayments(
  payments: readonly { profileId: string }[],
  write: () => Promise<void>,
): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (!(error instanceof MethodUnavailableError)) throw error;
    const gone = new Set(error.methodIds);
    const index = payments.findIndex((p) => gone.has(parseProfileId(p.profileId).savedPaymentMethodId));
    const field = `payments[${index}].profileId`;
    const profileId = payments[index]?.profileId ?? '';
    if (error.revoked.includes(parseProfileId(profileId).savedPaymentMethodId))
      throw new BadRequestError(unusableMessage(field, profileId, 'revoked'));
    throw methodUnavailable(field, profileId);
  }
}

const keyOf = (profileId: string) => {
  const ref = parseProfileId(profileId);
  return `${ref.payorId}/${ref.savedPaymentMethodId}`;
};

/** A batch read DynamoDB kept throttling is a 503 the client retries. */
async function unlessThrottled<T>(read: Promise<T>): Promise<T> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof IncompleteReadError)
      throw new ServiceUnavailableError('could not read the saved payment methods; retry the request');
    throw error;
  }
}

/**
 * The saved method behind each profileId, keyed by normalized profileId; 400 naming the first
 * payment whose profileId is not a saved method of this merchant. `field(i)` names payment i.
 * `keepUnusable`: a method closed, to be checked with the cardholder or revoked is taken (a series'
 * occurrence: its payment is declined R2 at the slot, as every pending payment on such a method is).
 */
export async function resolveProfiles(
  merchantId: string,
  profileIds: string[],
  field: (index: number) => string = () => 'profileId',
  keepUnusable = false,
): Promise<Map<string, MethodRef>> {
  if (profileIds.length === 0) return new Map();
  const found = await unlessThrottled(methodStore().methodsByRef(profileIds.map(parseProfileId), merchantId));
  // Every payment refused, each named (DESIGN: `errors` lists every problem; the answer shows 100).
  const problems: Problem[] = [];
  for (let i = 0; i < profileIds.length && problems.length < MAX_PROBLEMS; i++) {
    const message = refusalOf(found.get(keyOf(profileIds[i]!)), field(i), profileIds[i]!, keepUnusable);
    if (message !== undefined) problems.push({ field: field(i), message });
  }
  if (problems.length > 0) throw new ValidationError(problems);
  return found;
}

/**
 * Why a payment may not name this method, if it may not: none such of this merchant; being
 * deleted (it takes no new payment); closed, to be checked with the cardholder or revoked (it
 * would only be declined), unless `keepUnusable`.
 */
function refusalOf(
  method: MethodRef | undefined,
  field: string,
  profileId: string,
  keepUnusable: boolean,
): string | undefined {
  if (!method) return `${field} ${profileId} names no saved payment method of a payor of this merchant`;
  if (method.deletion !== undefined) return methodUnavailable(field, profileId).message;
  if (keepUnusable || !isUnusable(method)) return undefined;
  return unusableMessage(field, profileId, method.status as Exclude<MethodStatus, 'active'>);
}

const unusableMessage = (field: string, profileId: string, status: Exclude<MethodStatus, 'active'>) =>
  `${field} ${profileId} names a saved payment method ${UNUSABLE[status]}; add a new method`;

/**
 * 400 when the method of `profileId`, as resolveProfiles found it (with `keepUnusable`), takes no
 * new payment: closed, to be checked with the cardholder, or revoked.
 */
export function assertUsable(found: Map<string, MethodRef>, profileId: string, field = 'profileId'): void {
  const method = found.get(keyOf(profileId));
  if (method && isUnusable(method))
    throw new ValidationError([
      { field, message: unusableMessage(field, profileId, method.status as Exclude<MethodStatus, 'active'>) },
    ]);
}

/** Whether two profileIds name the same saved method (profileIds are case-insensitive). */
export const sameMethod = (a: string, b: string): boolean => keyOf(a) === keyOf(b);

/** Why a method takes no new payment, by its status. */
const UNUSABLE: Record<Exclude<MethodStatus, 'active'>, string> = {
  closed: 'whose account is closed',
  contact_cardholder: 'whose account is to be checked with the cardholder (contact_cardholder)',
  revoked:
    'whose authorization was revoked (revoked: an unauthorized return or a fraud dispute; it is never charged again)',
};

/**
 * Which of `profileIds` still name a saved method of a payor of this merchant (true at their
 * index): a series' occurrence leaves out the payments whose method is gone since.
 */
export async function profilesSaved(merchantId: string, profileIds: string[]): Promise<boolean[]> {
  if (profileIds.length === 0) return [];
  const found = await unlessThrottled(methodStore().methodsByRef(profileIds.map(parseProfileId), merchantId));
  return profileIds.map((id) => found.has(keyOf(id)));
}

/**
 * The payors of these payments (of the merchant) as the payments' records and notices copy them:
 * one BatchGet per 100 payors.
 */
export const payorsOf = (
  merchantId: string,
  payments: readonly { profileId: string }[],
): Promise<Map<string, PayorCopy>> =>
  unlessThrottled(
    payorStore().copiedBy(
      payments.map((p) => parseProfileId(p.profileId).payorId),
      merchantId,
    ),
  );

/**
 * The payment as its record is written: with its payor's sponsorKey as the payor has it now
 * (docs/product.md#payments), or without one when the payor has none.
 */
export function withSponsorKey<T extends { profileId: string; sponsorKey?: string }>(
  payment: T,
  payors: ReadonlyMap<string, PayorCopy>,
): T {
  const { sponsorKey: _previous, ...rest } = payment;
  const sponsorKey = payors.get(parseProfileId(payment.profileId).payorId)?.sponsorKey;
  return (sponsorKey === undefined ? rest : { ...rest, sponsorKey }) as T;
}

/**
 * Outbox items for the payments created with `sendPaymentScheduledNotification` whose payor has
 * an e-mail address (a payor without one gets no e-mail; the flag is kept). `payors`: payorsOf's.
 */
export function scheduledNotices(
  payments: Payment[],
  group: Pick<Group, 'paymentGroupId' | 'merchantId' | 'scheduleDate' | 'scheduleHour'>,
  merchantName: string,
  profiles: Map<string, Pick<MethodRef, 'maskedAccountNumber' | 'accountType'>>,
  payors: ReadonlyMap<string, PayorCopy>,
  now: Date,
): OutboxItem[] {
  const flagged = payments.filter((p) => p.sendPaymentScheduledNotification);
  return flagged.flatMap((payment): OutboxItem[] => {
    const email = payors.get(parseProfileId(payment.profileId).payorId)?.email;
    const profile = profiles.get(keyOf(payment.profileId));
    if (!email || !profile) return [];
    return [
      {
        outboxId: noticeOutboxId(payment.paymentId),
        kind: 'payment-scheduled',
        recipient: email,
        status: 'pending',
        attempts: 0,
        createdAt: now.toISOString(),
        paymentGroupId: group.paymentGroupId,
        data: {
          merchantName,
          amountCents: payment.amountCents,
          maskedAccountNumber: profile.maskedAccountNumber,
          accountType: profile.accountType,
          scheduleDate: group.scheduleDate,
          scheduleHour: group.scheduleHour,
          paymentId: payment.paymentId,
          ...(payment.orderId !== undefined && { orderId: payment.orderId }),
        },
      },
    ];
  });
}
