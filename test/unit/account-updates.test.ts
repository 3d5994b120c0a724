/**
 * The account updater's pure parts (issue 21 item 2): what each kind of update does to a saved
 * method, the sandbox's test cards (valid Visa numbers, none of them a decline card), and the
 * payor's e-mail asking for a new method.
 */
import { accountUpdated, makesUnusable } from '#domain/account-updates';
import { assertCardNumber, luhnValid } from '#domain/cards';
import { renderEmail } from '#domain/notifications';
import { isUnusable } from '#domain/payors';
import { ACCOUNT_UPDATER_CARDS } from '#processor/sandbox-account-updates';
import { SANDBOX_CARDS } from '#processor/sandbox';
import { savedMethod } from '#support/fixtures/index';

const NOW = new Date('2026-11-26T01:40:00Z');

describe('accountUpdated', () => {
  it('a new expiry changes only the expiry, by the account updater, and counts a revision and an event', () => {
    const before = savedMethod({ revision: 2, eventSeq: 3 });
    const after = accountUpdated(before, { kind: 'new_expiry', expiryMonth: 12, expiryYear: 2033 }, NOW);
    expect(after).toEqual({
      ...before,
      expiryMonth: 12,
      expiryYear: 2033,
      status: 'active',
      updatedBy: 'account_updater',
      lastUpdated: NOW.toISOString(),
      revision: 3,
      eventSeq: 4,
    });
  });

  it('a new number changes the masked number, fingerprint and expiry, and keeps the token', () => {
    const before = savedMethod({ fingerprint: 'fp_old' });
    const after = accountUpdated(
      before,
      {
        kind: 'new_number',
        maskedAccountNumber: '************0465',
        fingerprint: 'fp_new',
        expiryMonth: 6,
        expiryYear: 2034,
      },
      NOW,
    );
    expect(after).toMatchObject({
      maskedAccountNumber: '************0465',
      fingerprint: 'fp_new',
      expiryMonth: 6,
      expiryYear: 2034,
      processorToken: before.processorToken,
      status: 'active',
      revision: 1,
      eventSeq: 1,
    });
  });

  it.each(['closed', 'contact_cardholder'] as const)('%s sets the status: never charged again', (kind) => {
    const before = savedMethod();
    const after = accountUpdated(before, { kind }, NOW);
    expect(makesUnusable({ kind })).toBe(true);
    expect(after).toMatchObject({
      status: kind,
      updatedBy: 'account_updater',
      expiryYear: before.expiryYear,
    });
    expect(isUnusable(after)).toBe(true);
  });
});

describe('the sandbox account updater cards', () => {
  it('are valid Visa numbers the sandbox charges as approving cards (and so is the new number)', () => {
    const numbers = Object.keys(ACCOUNT_UPDATER_CARDS);
    expect(numbers).toEqual(['4000000000000440', '4000000000000457', '4000000000000473', '4000000000000481']);
    for (const number of [...numbers, '4000000000000465']) {
      expect(luhnValid(number)).toBe(true);
      expect(() => assertCardNumber(number, 'VISA')).not.toThrow();
      expect(SANDBOX_CARDS[number]).toBeUndefined();
    }
  });
});

describe('the method-unusable e-mail', () => {
  it('asks for a new method, names the masked card and escapes the merchant name in HTML', () => {
    const email = renderEmail({
      outboxId: 'account-update:au_x:m',
      kind: 'method-unusable',
      recipient: 'payor@example.com',
      status: 'pending',
      attempts: 0,
      createdAt: NOW.toISOString(),
      data: {
        merchantName: 'Krusty <Burger>',
        maskedAccountNumber: '************0473',
        accountType: 'VISA',
        status: 'closed',
      },
    });
    expect(email.subject).toBe('Krusty <Burger>: please provide a new payment method');
    expect(email.text).toMatch(/account is closed/);
    expect(email.text).toContain('VISA ************0473');
    expect(email.html).toContain('Krusty &lt;Burger&gt;');
    expect(email.html).not.toContain('<Burger>');
  });
});
