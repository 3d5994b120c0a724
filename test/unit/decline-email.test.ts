/**
 * The payor's decline e-mail (issue 19, item 5): a declined attempt of a payment with
 * sendDeclineNotification says that it failed and when it will be tried again, or that it will not
 * be and what to do; masked numbers only; HTML-escaped like every e-mail.
 */
import { renderEmail, type DeclineNoticeData, type OutboxItem } from '#domain/notifications';

const declined = (over: Partial<DeclineNoticeData> = {}): OutboxItem => ({
  recipient: 'payor@example.com',
  status: 'pending',
  attempts: 0,
  createdAt: '2026-05-01T00:00:00.000Z',
  paymentGroupId: 'g-1',
  outboxId: 'decline:p-1:1',
  kind: 'payment-declined',
  data: {
    merchantName: 'Springfield <Elementary>',
    amountCents: 4550,
    maskedAccountNumber: '************9995',
    accountType: 'VISA',
    paymentId: 'p-1',
    orderId: 'INV-7',
    responseMessage: 'Insufficient funds',
    declinedAt: '2026-05-02T14:00:12.000Z',
    nextAttemptAt: '2026-05-03T15:00:00.000Z',
    ...over,
  },
});

test('a retry ahead: the subject and body say when it will be tried again', () => {
  const email = renderEmail(declined());
  expect(email.subject).toBe(
    'Springfield <Elementary>: your payment of 45.50 was declined; we will try again',
  );
  expect(email.text).toContain('It will be tried again automatically on 2026-05-03 15:00 UTC.');
  expect(email.text).toContain('Insufficient funds');
  expect(email.text).toContain('************9995');
  expect(email.text).toContain('INV-7');
  expect(email.html).toContain('Springfield &lt;Elementary&gt;');
  expect(email.html).not.toContain('<Elementary>');
});

test('no retry ahead: it will not be tried again, and the payor is told what to do', () => {
  const { nextAttemptAt: _none, ...data } = declined().data as DeclineNoticeData;
  const email = renderEmail({ ...declined(), data } as OutboxItem);
  expect(email.subject).toBe('Springfield <Elementary>: your payment of 45.50 was declined');
  expect(email.text).toContain('will not be tried again');
  expect(email.text).toMatch(/update your payment method/i);
  expect(email.text).not.toContain('tried again automatically');
});
