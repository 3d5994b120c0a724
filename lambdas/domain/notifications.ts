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
  /** The payment whose group must exist (committed) before the notice goes out. */
  paymentGroupId: string;
  lastError?: string;
  messageId?: string;
  sentAt?: string;
}

/** Every kind of e-mail and the values its template needs: the one list of kinds. */
interface NotificationData {
  'payment-scheduled': ScheduledNoticeData;
  receipt: ReceiptData;
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
