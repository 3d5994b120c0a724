import {
  renderEmail,
  type OutboxItem,
  type ReceiptData,
  type ScheduledNoticeData,
} from '#domain/notifications';

const base = {
  recipient: 'payor@example.com',
  status: 'pending' as const,
  attempts: 0,
  createdAt: '2026-05-01T00:00:00.000Z',
  paymentGroupId: 'g-1',
};

const notice = (over: Partial<ScheduledNoticeData> = {}): OutboxItem => ({
  ...base,
  outboxId: 'notice:p-1',
  kind: 'payment-scheduled',
  data: {
    merchantName: 'Springfield Elementary',
    amountCents: 1250,
    maskedAccountNumber: '************1111',
    accountType: 'VISA',
    scheduleDate: '2099-06-01',
    scheduleHour: 7,
    paymentId: 'p-1',
    ...over,
  },
});

const receipt = (over: Partial<ReceiptData> = {}): OutboxItem => ({
  ...base,
  outboxId: 'receipt:p-1',
  kind: 'receipt',
  data: {
    merchantName: 'Springfield Elementary',
    amountCents: 7500,
    approvedCents: 7500,
    maskedAccountNumber: '***********0005',
    accountType: 'AMEX',
    transactionId: '5f0c6f1e-2d4b-5a7c-9e11-8a2b3c4d5e6f',
    date: '2099-06-01',
    paymentId: 'p-1',
    ...over,
  },
});

/** Text of the HTML body without tags (entities kept). */
const htmlText = (html: string) => html.replace(/<[^>]*>/g, ' ');

describe('renderEmail: payment-scheduled notice', () => {
  it('carries the amount as d.dd, the masked number, the UTC date and hour, and the merchant', () => {
    const email = renderEmail(notice({ orderId: 'INV-42' }));
    expect(email.subject).toBe('Springfield Elementary: payment of 12.50 scheduled for 2099-06-01');
    for (const body of [email.text, htmlText(email.html)]) {
      expect(body).toContain('12.50');
      expect(body).toContain('VISA ************1111');
      expect(body).toContain('2099-06-01 07:00 UTC');
      expect(body).toContain('Springfield Elementary');
      expect(body).toContain('INV-42');
    }
    expect(email.text).toMatch(/^Amount +12\.50$/m);
    expect(email.text).toMatch(/^Scheduled for +2099-06-01 07:00 UTC$/m);
    expect(email.text).toMatch(/^Merchant +Springfield Elementary$/m);
    expect(email.text).toMatch(/^Reference +INV-42$/m);
    expect(email.html).toContain('<tr><th align="left">Amount</th><td>12.50</td></tr>');
    expect(email.html).toContain('<tr><th align="left">Scheduled for</th><td>2099-06-01 07:00 UTC</td></tr>');
  });

  it.each([
    [0, '00:00 UTC'],
    [9, '09:00 UTC'],
    [23, '23:00 UTC'],
  ])('hour %p is written %p', (scheduleHour, written) => {
    const { text, html } = renderEmail(notice({ scheduleHour }));
    expect(text).toContain(`2099-06-01 ${written}`);
    expect(html).toContain(`2099-06-01 ${written}`);
  });

  it.each([
    [1, '0.01'],
    [5, '0.05'],
    [10, '0.10'],
    [100, '1.00'],
    [123456, '1234.56'],
    [99999999, '999999.99'],
  ])('%p cents are written %p', (amountCents, written) => {
    const { subject, text } = renderEmail(notice({ amountCents }));
    expect(subject).toContain(`payment of ${written} scheduled`);
    expect(text).toMatch(new RegExp(`^Amount +${written.replace('.', '\\.')}$`, 'm'));
  });

  it('has no Reference row without an orderId', () => {
    const { text, html } = renderEmail(notice());
    expect(text).not.toContain('Reference');
    expect(html).not.toContain('Reference');
  });
});

describe('renderEmail: receipt', () => {
  it('carries the amount charged, the masked number, the transaction id, the date and the merchant', () => {
    const email = renderEmail(receipt({ orderId: 'INV-9' }));
    expect(email.subject).toBe('Springfield Elementary: receipt for your payment of 75.00');
    for (const body of [email.text, htmlText(email.html)]) {
      expect(body).toContain('75.00');
      expect(body).toContain('AMEX ***********0005');
      expect(body).toContain('5f0c6f1e-2d4b-5a7c-9e11-8a2b3c4d5e6f');
      expect(body).toContain('2099-06-01');
      expect(body).toContain('Springfield Elementary');
      expect(body).toContain('INV-9');
    }
    expect(email.text).toMatch(/^Amount charged +75\.00$/m);
    expect(email.text).toMatch(/^Transaction +5f0c6f1e-2d4b-5a7c-9e11-8a2b3c4d5e6f$/m);
    expect(email.text).toMatch(/^Date +2099-06-01$/m);
    // Paid in full: the requested amount is not repeated.
    expect(email.text).not.toContain('Amount requested');
    expect(email.html).not.toContain('Amount requested');
    // A receipt names a date, not an hour.
    expect(email.text).not.toContain('UTC');
  });

  it('a partial approval shows the amount charged and the amount requested', () => {
    const email = renderEmail(receipt({ amountCents: 7500, approvedCents: 5000 }));
    expect(email.subject).toBe('Springfield Elementary: receipt for your payment of 50.00');
    expect(email.text).toMatch(/^Amount charged +50\.00$/m);
    expect(email.text).toMatch(/^Amount requested +75\.00$/m);
    expect(email.html).toContain('<tr><th align="left">Amount requested</th><td>75.00</td></tr>');
    expect(email.text.indexOf('Amount charged')).toBeLessThan(email.text.indexOf('Amount requested'));
  });
});

describe('renderEmail: escaping', () => {
  const nasty = `<b>"A&B" 'x'</b>`;
  const escaped = '&lt;b&gt;&quot;A&amp;B&quot; &#39;x&#39;&lt;/b&gt;';

  const cases: [string, OutboxItem][] = [
    ['merchantName', notice({ merchantName: nasty })],
    ['maskedAccountNumber', notice({ maskedAccountNumber: nasty })],
    ['accountType', notice({ accountType: nasty })],
    ['scheduleDate', notice({ scheduleDate: nasty })],
    ['orderId', notice({ orderId: nasty })],
    ['receipt merchantName', receipt({ merchantName: nasty })],
    ['receipt maskedAccountNumber', receipt({ maskedAccountNumber: nasty })],
    ['receipt accountType', receipt({ accountType: nasty })],
    ['receipt transactionId', receipt({ transactionId: nasty })],
    ['receipt date', receipt({ date: nasty })],
    ['receipt orderId', receipt({ orderId: nasty })],
  ];

  it.each(cases)('%s: escaped in the HTML body, kept as is in the text body', (_field, item) => {
    const { text, html } = renderEmail(item);
    expect(html).toContain(escaped);
    expect(html).not.toContain(nasty);
    expect(html).not.toContain('<b>');
    expect(text).toContain(nasty);
    expect(text).not.toContain('&amp;');
    expect(text).not.toContain('&lt;');
  });

  it('each of < > & " \' is escaped on its own', () => {
    for (const [c, entity] of [
      ['<', '&lt;'],
      ['>', '&gt;'],
      ['&', '&amp;'],
      ['"', '&quot;'],
      ["'", '&#39;'],
    ]) {
      const { html } = renderEmail(notice({ merchantName: `M${c}N` }));
      expect(html).toContain(`M${entity}N`);
      expect(html).not.toContain(`M${c}N`);
    }
  });

  it('an already-escaped value is escaped again (shown literally, not decoded)', () => {
    const { html, text } = renderEmail(notice({ merchantName: 'A &amp; B' }));
    expect(html).toContain('A &amp;amp; B');
    expect(text).toContain('A &amp; B');
  });
});

describe('renderEmail: no full account number', () => {
  it('renders only the masked number and the last four digits', () => {
    for (const item of [notice(), receipt(), receipt({ approvedCents: 1 })]) {
      const { subject, text, html } = renderEmail(item);
      for (const body of [subject, text, html]) {
        expect(body).not.toMatch(/\d{12,}/);
        // A run of digits can only be an amount, a date, an hour or part of an id.
        expect(body).not.toMatch(/(?:\d[ -]?){12,19}/);
      }
    }
  });

  it('fields outside the template are never rendered (a stray full number stays out)', () => {
    const stray = {
      ...notice(),
      data: { ...notice().data, cardNumber: '4111111111111111' },
    } as unknown as OutboxItem;
    const strayReceipt = {
      ...receipt(),
      data: { ...receipt().data, accountNumber: '000123456789', routingNumber: '021000021' },
    } as unknown as OutboxItem;
    for (const item of [stray, strayReceipt]) {
      const { subject, text, html } = renderEmail(item);
      for (const body of [subject, text, html]) {
        expect(body).not.toContain('4111111111111111');
        expect(body).not.toContain('000123456789');
        expect(body).not.toContain('021000021');
      }
    }
  });
});

describe('renderEmail: kinds', () => {
  it('refuses an item of a kind it has no template for, naming the kind', () => {
    const unknown = { ...receipt(), kind: 'newsletter' } as unknown as OutboxItem;
    expect(() => renderEmail(unknown)).toThrow('no template for e-mail kind newsletter');
  });
});
