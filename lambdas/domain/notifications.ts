/**
 * E-mail notifications to payors (docs/product.md#e-mails): the outbox record that carries the
 * intent to send, and one template per kind rendering a plain-text and an HTML body from the same
 * values, every value escaped in the HTML. Amounts are `d.dd`; only masked account numbers appear.
 */
import { formatCents } from './money';

/** `stuck`: SES kept throttling past the notifier's retries (docs/decisions.md, e-mail pacing). */
export type OutboxStatus = 'pending' | 'sending' | 'sent' | 'failed' | 'stuck';

export interface ScheduledNoticeData {
  merchantName: string;
  amountCents: number;
  maskedAccountNumber: string;
  accountType: string;
  scheduleDate: string;
  scheduleHour: number;
  paymentId: string;
  orderId?: string;
}

export interface ReceiptData {
  merchantName: string;
  amountCents: number;
  approvedCents: number;
  maskedAccountNumber: string;
  accountType: string;
  transactionId: string;
  /** The date of the charge (UTC, yyyy-MM-dd). */
  date: string;
  paymentId: string;
  orderId?: string;
}

/**
 * A charge of a scheduled payment was declined (the payment has `sendDeclineNotification`): when it
 * will be tried again, or that it will not be and what the payor can do.
 */
export interface DeclineNoticeData {
  merchantName: string;
  amountCents: number;
  maskedAccountNumber: string;
  accountType: string;
  paymentId: string;
  orderId?: string;
  /** The processor's reason, as the payment's authResponse words it. */
  responseMessage: string;
  /** When the charge was declined (UTC ISO-8601). */
  declinedAt: string;
  /** When it will be tried again (on the hour, UTC); absent: it will not be. */
  nextAttemptAt?: string;
}

/**
 * The account updater found a saved method closed (or the issuer asks to contact the cardholder):
 * the payor is asked for a new payment method, since the merchant's payments on it will be declined.
 */
interface MethodUnusableData {
  merchantName: string;
  maskedAccountNumber: string;
  accountType: string;
  /** `revoked`, or `closed` with a `returnCode`: a bank returned a debit of it. */
  status: 'closed' | 'contact_cardholder' | 'revoked';
  /** The bank's return code (R02...), when a return closed or revoked the method; a card dispute's reason. */
  returnCode?: string;
}

/**
 * A bank returned a debit (DESIGN section 6): the payor is told what was returned, why, and what
 * follows (by the return's category). A receipt sent before stays sent; this e-mail says it no
 * longer stands.
 */
interface DebitReturnedData {
  merchantName: string;
  /** What the debit took (its approved amount). */
  amountCents: number;
  maskedAccountNumber: string;
  accountType: string;
  transactionId: string;
  /** The date of the debit (UTC, yyyy-MM-dd). */
  date: string;
  code: string;
  reason: string;
  category: 'nsf' | 'administrative' | 'unauthorized' | 'other';
  paymentId?: string;
  orderId?: string;
}

/** The outbox id of a debit's return e-mail: one per returned sale. */
export const debitReturnedOutboxId = (transactionId: string): string => `return:${transactionId}`;

/** The outbox id of the e-mail for an account update: one per applied update. */
export const accountUpdateOutboxId = (updateId: string): string => `account-update:${updateId}`;

/** The outbox id of a payment's decline notice: one per declined attempt. */
export const declineOutboxId = (paymentId: string, attempt: number): string =>
  `decline:${paymentId}:${attempt}`;

/** The outbox id of a payment's payment-scheduled notice: one per payment. */
export const noticeOutboxId = (paymentId: string): string => `notice:${paymentId}`;

interface OutboxBase {
  /** Deterministic (`notice:<paymentId>`, `receipt:<paymentId>`): one e-mail per intent. */
  outboxId: string;
  recipient: string;
  status: OutboxStatus;
  /** Sends SES answered (accepted or refused); a throttled send is not one (`throttles`). */
  attempts: number;
  throttles?: number;
  createdAt: string;
  /**
   * The payment's group, which must exist (committed) before the notice goes out; absent for an
   * e-mail about a saved method (written in the same transaction as the method's change).
   */
  paymentGroupId?: string;
  lastError?: string;
  messageId?: string;
  sentAt?: string;
}

/** Every kind of e-mail and the values its template needs: the one list of kinds. */
interface NotificationData {
  'payment-scheduled': ScheduledNoticeData;
  receipt: ReceiptData;
  'payment-declined': DeclineNoticeData;
  'method-unusable': MethodUnusableData;
  'debit-returned': DebitReturnedData;
}
export type NotificationKind = keyof NotificationData;

/** An outbox item of each kind, its `data` typed by its `kind`. */
export type OutboxItem = {
  [K in NotificationKind]: OutboxBase & { kind: K; data: NotificationData[K] };
}[NotificationKind];

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

const escapeHtml = (value: string): string =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** One template: a title, an intro and labelled rows, rendered both as text and as HTML. */
function render(subject: string, intro: string, rows: [string, string][], outro: string): RenderedEmail {
  const width = Math.max(...rows.map(([label]) => label.length));
  const text = [
    intro,
    '',
    ...rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`),
    '',
    outro,
    '',
  ].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif">',
    `<p>${escapeHtml(intro)}</p>`,
    '<table>',
    ...rows.map(
      ([label, value]) => `<tr><th align="left">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`,
    ),
    '</table>',
    `<p>${escapeHtml(outro)}</p>`,
    '</body></html>',
  ].join('\n');
  return { subject, text, html };
}

export function renderEmail(item: OutboxItem): RenderedEmail {
  switch (item.kind) {
    case 'payment-scheduled':
      return scheduledNotice(item.data);
    case 'receipt':
      return receipt(item.data);
    case 'payment-declined':
      return declineNotice(item.data);
    case 'method-unusable':
      return methodUnusable(item.data);
    case 'debit-returned':
      return debitReturned(item.data);
    default: {
      // A new kind must get its template here: this stops compiling until it does.
      const unknown: never = item;
      throw new Error(`no template for e-mail kind ${(unknown as { kind: string }).kind}`);
    }
  }
}

function scheduledNotice(d: ScheduledNoticeData): RenderedEmail {
  const hour = `${String(d.scheduleHour).padStart(2, '0')}:00 UTC`;
  return render(
    `${d.merchantName}: payment of ${formatCents(d.amountCents)} scheduled for ${d.scheduleDate}`,
    `${d.merchantName} has scheduled a payment from your saved payment method.`,
    [
      ['Amount', formatCents(d.amountCents)],
      ['Payment method', `${d.accountType} ${d.maskedAccountNumber}`],
      ['Scheduled for', `${d.scheduleDate} ${hour}`],
      ['Merchant', d.merchantName],
      ...(d.orderId ? ([['Reference', d.orderId]] as [string, string][]) : []),
    ],
    'Contact the merchant if you did not expect this payment.',
  );
}

function receipt(d: ReceiptData): RenderedEmail {
  const partial = d.approvedCents < d.amountCents;
  return render(
    `${d.merchantName}: receipt for your payment of ${formatCents(d.approvedCents)}`,
    `Thank you. Your payment to ${d.merchantName} has been completed.`,
    [
      ['Amount charged', formatCents(d.approvedCents)],
      ...(partial ? ([['Amount requested', formatCents(d.amountCents)]] as [string, string][]) : []),
      ['Payment method', `${d.accountType} ${d.maskedAccountNumber}`],
      ['Transaction', d.transactionId],
      ['Date', d.date],
      ['Merchant', d.merchantName],
      ...(d.orderId ? ([['Reference', d.orderId]] as [string, string][]) : []),
    ],
    'Keep this receipt for your records.',
  );
}

/** `2026-11-22 09:00 UTC`. */
const utcHour = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

function declineNotice(d: DeclineNoticeData): RenderedEmail {
  const rows: [string, string][] = [
    ['Amount', formatCents(d.amountCents)],
    ['Payment method', `${d.accountType} ${d.maskedAccountNumber}`],
    ['Declined', `${utcHour(d.declinedAt)}: ${d.responseMessage}`],
    ['Next attempt', d.nextAttemptAt ? utcHour(d.nextAttemptAt) : 'none'],
    ['Merchant', d.merchantName],
    ...(d.orderId ? ([['Reference', d.orderId]] as [string, string][]) : []),
  ];
  return d.nextAttemptAt
    ? render(
        `${d.merchantName}: your payment of ${formatCents(d.amountCents)} was declined; we will try again`,
        `Your payment to ${d.merchantName} was declined. It will be tried again automatically on ${utcHour(d.nextAttemptAt)}.`,
        rows,
        'Nothing to do if the account will cover the payment by then. To use another payment method, contact the merchant.',
      )
    : render(
        `${d.merchantName}: your payment of ${formatCents(d.amountCents)} was declined`,
        `Your payment to ${d.merchantName} was declined, and it will not be tried again.`,
        rows,
        'Please update your payment method with the merchant, or contact your bank, so that the payment can be made.',
      );
}

function methodUnusable(d: MethodUnusableData): RenderedEmail {
  const card = d.accountType !== 'CHECKING' && d.accountType !== 'SAVINGS';
  const why =
    d.status === 'revoked' && card
      ? `You disputed a charge to this card (${d.returnCode ?? 'fraudulent'}), so ${d.merchantName} will not charge it again.`
      : d.status === 'revoked'
        ? `Your bank returned a debit as not authorized (${d.returnCode ?? 'unauthorized'}), so ${d.merchantName} will not debit this account again.`
        : d.returnCode !== undefined
          ? `Your bank returned a debit (${d.returnCode}): the account is closed or could not be found.`
          : d.status === 'closed'
            ? 'Your card network reports that this account is closed.'
            : 'Your card issuer asks that you be contacted about this account.';
  return render(
    `${d.merchantName}: please provide a new payment method`,
    `${why} ${d.merchantName} can no longer charge it for your scheduled payments.`,
    [
      ['Payment method', `${d.accountType} ${d.maskedAccountNumber}`],
      ['Merchant', d.merchantName],
    ],
    `Please give ${d.merchantName} a new payment method so that your scheduled payments can be made.`,
  );
}

/** What follows a return, by its category, as the payor reads it. */
const AFTER_RETURN: Record<DebitReturnedData['category'], (merchant: string) => string> = {
  nsf: (m) =>
    `${m} may try the payment again. Please make sure the account can cover it, or contact ${m} to pay another way.`,
  administrative: (m) =>
    `The account is closed or could not be found, so ${m} can no longer debit it. Please give ${m} a new payment method.`,
  unauthorized: (m) =>
    `Your bank reported the debit as not authorized, so ${m} will not debit this account again. Contact ${m} if this was a mistake.`,
  other: (m) => `Please contact ${m} to arrange the payment.`,
};

function debitReturned(d: DebitReturnedData): RenderedEmail {
  return render(
    `${d.merchantName}: your payment of ${formatCents(d.amountCents)} was returned by your bank`,
    `Your bank returned your payment to ${d.merchantName} (${d.code}: ${d.reason}): the money went back to your account and the payment is no longer paid. Any receipt you received for it no longer stands.`,
    [
      ['Amount', formatCents(d.amountCents)],
      ['Payment method', `${d.accountType} ${d.maskedAccountNumber}`],
      ['Transaction', d.transactionId],
      ['Date', d.date],
      ['Returned', `${d.code}: ${d.reason}`],
      ['Merchant', d.merchantName],
      ...(d.orderId ? ([['Reference', d.orderId]] as [string, string][]) : []),
    ],
    AFTER_RETURN[d.category](d.merchantName),
  );
}
