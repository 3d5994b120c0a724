/**
 * Expiring cards (DESIGN section 5, "The card lifecycle"; docs/decisions.md "Expiring cards"): the
 * payors with a card expiring before a month (`GET .../payors?expiringBefore=yyyy-MM`), and the
 * flag `methodExpiresBeforeSlot: true` on a pending group's payments whose card expires before the
 * group's slot, computed when the payments are read (an expiry changed by the merchant or the
 * account updater shows at once).
 *
 * A card is valid through the last day of its expiry month: it "expires before" a month (or a
 * slot) when its expiry month is earlier than that month (or the slot's month).
 */
import { answerBytes } from './answer-size';
import { EXPIRING_PAGE_PAYORS, MAX_RESPONSE_BYTES } from '#contract/limits';
import type { PayorView } from '#contract/schemas/payors';
import type { PaymentView } from '#contract/schemas/payments';
import { paymentView, slotOf, type Group, type Payment } from '#domain/groups';
import { parseProfileId, payorView } from '#domain/payors';
import { config } from '#shared/config';
import { mapLimit } from '#shared/concurrency';
import { ddb } from '#shared/ddb';
import { ValidationError } from '#shared/validation';
import { expiriesOf, payorsExpiringBefore } from '#store/expiring';
import { readPayor } from '#store/payors';

const encodeToken = (after: string) => Buffer.from(after, 'utf8').toString('base64url');
const decodeToken = (token: string) => Buffer.from(token, 'base64url').toString('utf8');

/** A page of the payors with a card expiring before `month`, earliest expiry first. */
export async function payorsExpiring(
  merchantId: string,
  month: string,
  pageToken: string | undefined,
): Promise<{ payors: PayorView[]; nextPageToken?: string }> {
  const { tableName } = config();
  const after = pageToken === undefined ? undefined : decodeToken(pageToken);
  const page = await payorsExpiringBefore(ddb(), tableName, merchantId, month, after, EXPIRING_PAGE_PAYORS);
  if (page === 'invalid') {
    throw new ValidationError([
      { field: 'pageToken', message: 'pageToken is not a next page of this expiringBefore list' },
    ]);
  }
  const found = await mapLimit(page.payorIds, 16, (id) => readPayor(ddb(), tableName, id, merchantId));
  // A payor deleted between the two reads is left out.
  const views = found.map((f) => (f ? payorView(f.payor, f.methods) : undefined));
  // 100 payors with large customerData can pass Lambda's response limit: the page then ends at
  // the last payor that fits, and the next one starts with the first that did not.
  let bytes = 2;
  const over = views.findIndex((view) => {
    bytes += view === undefined ? 0 : answerBytes(view) + 1;
    return bytes > MAX_RESPONSE_BYTES;
  });
  const end = over < 0 ? views.length : Math.max(over, 1);
  const taken = views.slice(0, end);
  const next = end === views.length ? page.after : page.before[end];
  return {
    payors: taken.filter((view) => view !== undefined),
    ...(next !== undefined && { nextPageToken: encodeToken(next) }),
  };
}

/** Whether a card expiring in `expiry` (`yyyy-MM`) expires before the slot `yyyy-MM-ddTHH`. */
export const expiresBeforeSlot = (expiry: string, slot: string): boolean => expiry < slot.slice(0, 7);

/**
 * The payments as the API shows them, a pending group's (not deleted) flagged
 * `methodExpiresBeforeSlot: true` when their card expires before the group's slot: one BatchGet
 * of their methods' expiries; nothing is read for a group that is not pending.
 */
export async function paymentViews(group: Group, payments: readonly Payment[]): Promise<PaymentView[]> {
  const views = payments.map(paymentView);
  const live = payments.filter((p) => !p.deleted);
  if (group.status !== 'pending' || live.length === 0) return views;
  const expiries = await expiriesOf(
    ddb(),
    config().tableName,
    live.map((p) => parseProfileId(p.profileId)),
    group.merchantId,
  );
  const slot = slotOf(group.scheduleDate, group.scheduleHour);
  return payments.map((p, i) => {
    const { payorId, savedPaymentMethodId } = parseProfileId(p.profileId);
    const expiry = expiries.get(`${payorId}/${savedPaymentMethodId}`);
    return !p.deleted && expiry !== undefined && expiresBeforeSlot(expiry, slot)
      ? { ...views[i]!, methodExpiresBeforeSlot: true }
      : views[i]!;
  });
}
