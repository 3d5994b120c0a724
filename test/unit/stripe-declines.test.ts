/**
 * Stripe's decline codes as the service's response codes (lambdas/processor/stripe/declines.ts):
 * every code Stripe publishes has a row in the table and in docs/product.md, the two agree, each
 * maps to a code of the service's own table (so its category is known), and whatever Stripe
 * sends that the table does not know is category 1 with the code kept.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DECLINE_CODES } from '#contract/declines';
import { declineOf } from '#domain/declines';
import { mapDecline, STRIPE_CHARGE_ERRORS, STRIPE_DECLINES } from '#processor/stripe/declines';

/** Stripe's published card decline codes (docs.stripe.com/declines/codes). */
const PUBLISHED = [
  'approve_with_id',
  'authentication_required',
  'call_issuer',
  'card_not_supported',
  'card_velocity_exceeded',
  'currency_not_supported',
  'do_not_honor',
  'do_not_try_again',
  'duplicate_transaction',
  'expired_card',
  'fraudulent',
  'generic_decline',
  'incorrect_cvc',
  'incorrect_number',
  'incorrect_pin',
  'incorrect_zip',
  'insufficient_funds',
  'invalid_account',
  'invalid_amount',
  'invalid_cvc',
  'invalid_expiry_month',
  'invalid_expiry_year',
  'invalid_number',
  'invalid_pin',
  'issuer_not_available',
  'lost_card',
  'merchant_blacklist',
  'new_account_information_available',
  'no_action_taken',
  'not_permitted',
  'offline_pin_required',
  'online_or_offline_pin_required',
  'pickup_card',
  'pin_try_exceeded',
  'processing_error',
  'reenter_transaction',
  'restricted_card',
  'revocation_of_all_authorizations',
  'revocation_of_authorization',
  'security_violation',
  'service_not_allowed',
  'stolen_card',
  'stop_payment_order',
  'testmode_decline',
  'transaction_not_allowed',
  'try_again_later',
  'withdrawal_count_limit_exceeded',
];

/** The rows of docs/product.md's "Stripe's decline codes" table: code → [responseCode, category]. */
function documented(): Map<string, [string, string]> {
  const guide = readFileSync(resolve(__dirname, '..', '..', 'docs', 'product.md'), 'utf8');
  const section = guide.slice(guide.indexOf("## Stripe's decline codes"));
  const rows = new Map<string, [string, string]>();
  for (const line of section.slice(section.indexOf('| Stripe `decline_code`')).split('\n').slice(2)) {
    if (!line.startsWith('|')) break;
    const [code, responseCode, category] = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    rows.set(code!.replace(/`/g, ''), [responseCode!, category!]);
  }
  return rows;
}

describe('the table', () => {
  it('has a row for every decline code Stripe publishes, and no other', () => {
    expect(Object.keys(STRIPE_DECLINES).sort()).toEqual([...PUBLISHED].sort());
  });

  it('maps every code (and every charge error code) to a code of the service’s own decline table', () => {
    const unknown = [...Object.values(STRIPE_DECLINES), ...Object.values(STRIPE_CHARGE_ERRORS)].filter(
      (code) => DECLINE_CODES[code] === undefined,
    );
    expect(unknown).toEqual([]);
  });

  it('is the table of docs/product.md, codes and categories', () => {
    const rows = documented();
    expect([...rows.keys()].sort()).toEqual([...PUBLISHED].sort());
    for (const [stripeCode, code] of Object.entries(STRIPE_DECLINES))
      expect([stripeCode, rows.get(stripeCode)]).toEqual([stripeCode, [code, declineOf(code).category]]);
  });

  it.each(PUBLISHED)(
    '%s answers its code, its category and a message quoting Stripe’s code',
    (stripeCode) => {
      const mapped = mapDecline({ code: 'card_declined', decline_code: stripeCode });
      expect(mapped.responseCode).toBe(STRIPE_DECLINES[stripeCode]);
      expect(mapped.responseMessage).toBe(`${declineOf(mapped.responseCode).message} (Stripe ${stripeCode})`);
    },
  );

  it('makes only the declines Stripe calls temporary category 2 (may be retried)', () => {
    const temporary = PUBLISHED.filter((c) => declineOf(STRIPE_DECLINES[c]!).category === '2').sort();
    expect(temporary).toEqual([
      'approve_with_id',
      'card_velocity_exceeded',
      'insufficient_funds',
      'issuer_not_available',
      'processing_error',
      'reenter_transaction',
      'try_again_later',
      'withdrawal_count_limit_exceeded',
    ]);
  });
});

describe('mapDecline', () => {
  it('an unknown decline code is category 1 (05), the raw code kept', () => {
    const mapped = mapDecline({ code: 'card_declined', decline_code: 'brand_new_reason' });
    expect(mapped).toEqual({ responseCode: '05', responseMessage: 'Declined (Stripe brand_new_reason)' });
    expect(declineOf(mapped.responseCode).category).toBe('1');
  });

  it('an error code without a decline code: the code decides', () => {
    expect(mapDecline({ code: 'expired_card' }).responseCode).toBe('54');
    expect(mapDecline({ code: 'incorrect_cvc' }).responseCode).toBe('N7');
    expect(mapDecline({ code: 'processing_error' }).responseCode).toBe('96');
    expect(mapDecline({ code: 'amount_too_small' }).responseCode).toBe('13');
    expect(mapDecline({ code: 'something_else' })).toEqual({
      responseCode: '05',
      responseMessage: 'Declined (Stripe something_else)',
    });
    expect(mapDecline({})).toEqual({ responseCode: '05', responseMessage: 'Declined (Stripe gave no code)' });
  });

  it('keeps the network’s decline code in the message', () => {
    expect(
      mapDecline({ decline_code: 'insufficient_funds', network_decline_code: '51' }).responseMessage,
    ).toBe('Insufficient funds (Stripe insufficient_funds, network 51)');
  });

  it('defect: the network’s decline code was only quoted: where Stripe’s reason is a generic refusal (05), a network code the service knows decides', () => {
    const code = (fields: Parameters<typeof mapDecline>[0]) => mapDecline(fields).responseCode;
    expect(mapDecline({ decline_code: 'generic_decline', network_decline_code: '51' })).toEqual({
      responseCode: '51',
      responseMessage: 'Insufficient funds (Stripe generic_decline, network 51)',
    });
    expect(code({ decline_code: 'do_not_honor', network_decline_code: '61' })).toBe('61');
    expect(code({ code: 'card_declined', network_decline_code: '91' })).toBe('91');
    // Stripe's specific reason decides; a network code the service does not know, or its own, is quoted only.
    expect(code({ decline_code: 'insufficient_funds', network_decline_code: '05' })).toBe('51');
    expect(code({ decline_code: 'expired_card', network_decline_code: '51' })).toBe('54');
    expect(code({ decline_code: 'generic_decline', network_decline_code: '82' })).toBe('05');
    expect(code({ decline_code: 'generic_decline', network_decline_code: 'PM' })).toBe('05');
    expect(code({ decline_code: 'generic_decline', network_decline_code: '19' })).toBe('05');
    // An unknown Stripe code is category 1 whatever the network said.
    expect(code({ decline_code: 'some_new_reason', network_decline_code: '51' })).toBe('05');
  });

  it('passes the network’s two-digit advice on as merchantAdviceCode; Stripe’s do_not_try_again becomes 03 without it', () => {
    expect(
      mapDecline({ decline_code: 'insufficient_funds', network_advice_code: '21' }).merchantAdviceCode,
    ).toBe('21');
    expect(
      mapDecline({ decline_code: 'insufficient_funds', advice_code: 'do_not_try_again' }).merchantAdviceCode,
    ).toBe('03');
    expect(
      mapDecline({
        decline_code: 'insufficient_funds',
        advice_code: 'do_not_try_again',
        network_advice_code: '02',
      }).merchantAdviceCode,
    ).toBe('02');
    expect(
      mapDecline({ decline_code: 'insufficient_funds', advice_code: 'try_again_later' }),
    ).not.toHaveProperty('merchantAdviceCode');
    expect(
      mapDecline({ decline_code: 'generic_decline', network_advice_code: 'not advice' }),
    ).not.toHaveProperty('merchantAdviceCode');
  });

  it('never repeats a value that is not a code (an echoed number, words)', () => {
    const mapped = mapDecline({
      decline_code: '4000 0000 0000 0002',
      network_decline_code: 'sk_live_123 abc',
    });
    expect(mapped).toEqual({ responseCode: '05', responseMessage: 'Declined (Stripe gave no code)' });
  });
});

test.each(['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__'])(
  'defect: a decline_code or code named like what every object inherits (%p) answered a function or an object for its response code: it is unknown, 05',
  (code) => {
    for (const fields of [{ decline_code: code }, { code }]) {
      const mapped = mapDecline(fields);
      expect(mapped.responseCode).toBe('05');
      expect(typeof mapped.responseMessage).toBe('string');
    }
  },
);
