/**
 * The Stripe adapter against the local Stripe stand-in (the official `stripe` package over HTTP
 * on loopback): vaulting cards and bank accounts per merchant account and payor, sales by
 * Stripe's test numbers, voids and refunds, and one key one charge under Stripe's idempotency.
 */
import type Stripe from 'stripe';
import { BadRequestError } from '#shared/errors';
import type { SaleRequest } from '#processor/processor';
import { parseVaultToken, type VaultToken } from '#processor/stripe/vault-token';
import {
  ACCOUNT,
  bankOf,
  cardOf,
  MERCHANT,
  OTHER_ACCOUNT,
  OTHER_MERCHANT,
  stripeOnStandIn,
  type StripeOnStandIn,
} from '#support/stripe-stand-in';

let env: StripeOnStandIn;
beforeAll(async () => {
  env = await stripeOnStandIn();
});
afterAll(() => env.close());
afterEach(() => env.standIn.faults.clear());

let keys = 0;
const saleOf = (token: string, amountCents = 2500, extra: Partial<SaleRequest> = {}): SaleRequest => ({
  idempotencyKey: `sale:adapter-${++keys}`,
  keyFirstUsedAt: new Date().toISOString(),
  merchantId: MERCHANT,
  token,
  amountCents,
  allowPartial: false,
  ...extra,
});
const intentsOf = (account = ACCOUNT): Stripe.PaymentIntent[] => [
  ...env.standIn.state.account(account).intents.values(),
];
const tokenOf = async (number: string) => (await env.processor.tokenize(cardOf(number))).token;

describe('tokenize', () => {
  it('vaults a card on the merchant’s connected account, under one customer per payor', async () => {
    const first = await env.processor.tokenize(cardOf('4242424242424242', 'payor-a'));
    const second = await env.processor.tokenize(cardOf('5555555555554444', 'payor-a'));
    const other = await env.processor.tokenize(cardOf('4242424242424242', 'payor-b'));
    const [a1, a2, b] = [first, second, other].map((v) => parseVaultToken(v.token)!) as [
      VaultToken,
      VaultToken,
      VaultToken,
    ];
    expect(a1.customer).toBe(a2.customer);
    expect(b.customer).not.toBe(a1.customer);
    expect(a1.paymentMethod).not.toBe(a2.paymentMethod);
    const account = env.standIn.state.account(ACCOUNT);
    expect(account.methods.get(a1.paymentMethod)!.object.customer).toBe(a1.customer);
    expect(account.customers.get(a1.customer)!.metadata).toMatchObject({
      payor_id: 'payor-a',
      merchant_id: MERCHANT,
    });
    // Stripe's fingerprint names the card whoever vaulted it.
    expect(first.fingerprint).toBe(other.fingerprint);
    expect(first.fingerprint).not.toBe(second.fingerprint);
    expect(first).toMatchObject({ last4: '4242', expiryMonth: 12, expiryYear: 2034 });
    // Nothing of it on the other merchant's account.
    expect(env.standIn.state.account(OTHER_ACCOUNT).methods.size).toBe(0);
  });

  it('finds the payor’s customer again a day later, when its creation key is long forgotten', async () => {
    const first = parseVaultToken(
      (await env.processor.tokenize(cardOf('4242424242424242', 'payor-c'))).token,
    )!;
    jest.useFakeTimers({
      now: Date.now() + 25 * 3600_000,
      doNotFake: [
        'setTimeout',
        'clearTimeout',
        'setImmediate',
        'nextTick',
        'queueMicrotask',
        'setInterval',
        'clearInterval',
        'hrtime',
        'performance',
      ],
    });
    try {
      const later = parseVaultToken(
        (await env.processor.tokenize(cardOf('5555555555554444', 'payor-c'))).token,
      )!;
      expect(later.customer).toBe(first.customer);
    } finally {
      jest.useRealTimers();
    }
  });

  it('vaults a PaymentMethod made by Stripe’s browser fields (processorToken): the service never sees the number', async () => {
    const account = env.standIn.state.account(ACCOUNT);
    const before = new Set(account.methods.keys());
    // What Stripe.js would have made in the payor's browser.
    const made = await fetch(`http://${env.standIn.host}:${env.standIn.port}/v1/payment_methods`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer sk_test_standin0123456789abcdefSECRET',
        'stripe-account': ACCOUNT,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'type=card&card[number]=5555555555554444&card[exp_month]=7&card[exp_year]=2033',
    });
    const pm = (await made.json()) as Stripe.PaymentMethod;
    const vaulted = await env.processor.tokenize({
      merchantId: MERCHANT,
      payorId: 'payor-d',
      kind: 'card',
      processorToken: pm.id,
    });
    expect(parseVaultToken(vaulted.token)!.paymentMethod).toBe(pm.id);
    expect(vaulted).toMatchObject({ last4: '4444', expiryMonth: 7, expiryYear: 2033 });
    expect([...account.methods.keys()].filter((id) => !before.has(id))).toEqual([pm.id]);
    await expect(
      env.processor.tokenize({
        merchantId: MERCHANT,
        payorId: 'payor-d',
        kind: 'card',
        processorToken: 'tok_visa',
      }),
    ).rejects.toThrow(BadRequestError);
  });

  it('vaults a checking account with the merchant’s attested mandate, whose id every debit quotes', async () => {
    const paper = await env.processor.tokenize(bankOf('000123456789'));
    const token = parseVaultToken(paper.token)!;
    expect(token.mandate).toMatch(/^mandate_/);
    const mandate = env.standIn.state.account(ACCOUNT).mandates.get(token.mandate!)!;
    expect(mandate.customer_acceptance).toMatchObject({ type: 'offline' });
    expect(paper).toMatchObject({ last4: '6789' });

    const online = await env.processor.tokenize({
      ...bankOf('000123456789'),
      mandate: {
        acceptedAt: '2031-01-02T03:04:05.000Z',
        method: 'online',
        ipAddress: '203.0.113.9',
        userAgent: 'Mozilla/5.0',
      },
    } as never);
    const onlineMandate = env.standIn.state
      .account(ACCOUNT)
      .mandates.get(parseVaultToken(online.token)!.mandate!)!;
    expect(onlineMandate.customer_acceptance).toEqual({
      type: 'online',
      accepted_at: Date.parse('2031-01-02T03:04:05.000Z') / 1000,
      online: { ip_address: '203.0.113.9', user_agent: 'Mozilla/5.0' },
    });
    // The same account vaulted twice is the same account.
    expect(online.fingerprint).toBe(paper.fingerprint);
  });

  it('defect: a SAVINGS account was vaulted at Stripe as a checking account (every debit sent with the wrong transaction code): its PaymentMethod is of the type the merchant gave', async () => {
    const savings = await env.processor.tokenize({ ...bankOf('000123456781'), accountType: 'SAVINGS' });
    const checking = await env.processor.tokenize(bankOf('000123456782'));
    const methods = env.standIn.state.account(ACCOUNT).methods;
    const typeOf = (vaulted: { token: string }) =>
      methods.get(parseVaultToken(vaulted.token)!.paymentMethod)!.object.us_bank_account!.account_type;
    expect([typeOf(savings), typeOf(checking)]).toEqual(['savings', 'checking']);
    expect([savings.accountType, checking.accountType]).toEqual(['SAVINGS', 'CHECKING']);
  });

  it('refuses a bank account without a mandate, or an online mandate without its IP address, before Stripe is asked', async () => {
    const { mandate: _none, ...bare } = bankOf('000123456789') as { mandate: unknown };
    const asked = env.standIn.requests.length;
    await expect(env.processor.tokenize(bare as never)).rejects.toThrow(/mandate/);
    await expect(
      env.processor.tokenize({
        ...bankOf('000123456789'),
        mandate: { acceptedAt: new Date().toISOString(), method: 'online' },
      } as never),
    ).rejects.toThrow(/ipAddress/);
    expect(env.standIn.requests.length).toBe(asked);
  });

  it('refuses a merchant without a connected account (400, nothing made)', async () => {
    await expect(
      env.processor.tokenize({ ...cardOf('4242424242424242'), merchantId: '41000000001' }),
    ).rejects.toThrow(BadRequestError);
  });
});

describe('sale', () => {
  it('approves a test card: one PaymentIntent, off-session, the key as idempotency key and in the metadata', async () => {
    const request = saleOf(await tokenOf('4242424242424242'), 1999);
    const result = await env.processor.sale(request);
    expect(result).toMatchObject({ approved: true, responseCode: '00', approvedCents: 1999 });
    expect(result.authCode).toMatch(/^\d{6}$/);
    const made = intentsOf().filter((i) => i.metadata.processor_key === request.idempotencyKey);
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ id: result.processorTransactionId, status: 'succeeded', amount: 1999 });
    expect(made[0]!.metadata).toEqual({ processor_key: request.idempotencyKey, merchant_id: MERCHANT });
    const call = env.standIn.requests
      .filter((r) => r.path === '/v1/payment_intents' && r.method === 'POST')
      .at(-1)!;
    expect(call).toMatchObject({ account: ACCOUNT, idempotencyKey: request.idempotencyKey });
  });

  it.each([
    ['4000000000000002', '05', '1', 'generic_decline'],
    ['4000000000009995', '51', '2', 'insufficient_funds'],
    ['4000000000009987', '41', '1', 'lost_card'],
    ['4000000000009979', '43', '1', 'stolen_card'],
    ['4000000000000069', '54', '1', 'expired_card'],
    ['4000000000000127', 'N7', '1', 'incorrect_cvc'],
    ['4000000000000119', '96', '2', 'processing_error'],
    ['4000000000006975', '61', '2', 'card_velocity_exceeded'],
    ['4100000000000019', '05', '1', 'fraudulent'],
    ['4000000000000341', '05', '1', 'generic_decline'],
    ['4000002760003184', '1A', '1', 'authentication_required'],
  ])(
    'declines %s as %s (category %s), Stripe’s %s kept in the message',
    async (number, code, category, stripeCode) => {
      const { declineOf } = await import('#domain/declines');
      const result = await env.processor.sale(saleOf(await tokenOf(number)));
      expect(result).toMatchObject({ approved: false, responseCode: code, approvedCents: 0 });
      expect(result.processorTransactionId).toMatch(/^pi_/);
      expect(result.responseMessage).toContain(`Stripe ${stripeCode}`);
      expect(declineOf(result.responseCode).category).toBe(category);
    },
  );

  it('answers a repeated key with the first answer and charges once (approved and declined alike)', async () => {
    for (const number of ['4242424242424242', '4000000000009995']) {
      const request = saleOf(await tokenOf(number));
      const first = await env.processor.sale(request);
      const again = await env.processor.sale(request);
      expect(again).toEqual(first);
      expect(intentsOf().filter((i) => i.metadata.processor_key === request.idempotencyKey)).toHaveLength(1);
    }
  });

  it('a key reused with another amount answers the first charge, and makes no second', async () => {
    const request = saleOf(await tokenOf('4242424242424242'), 3000);
    const first = await env.processor.sale(request);
    const other = await env.processor.sale({ ...request, amountCents: 4500 });
    expect(other).toEqual(first);
    expect(intentsOf().filter((i) => i.metadata.processor_key === request.idempotencyKey)).toHaveLength(1);
  });

  it('accepts a bank debit (processing at Stripe): approved, to clear days later', async () => {
    const { token } = await env.processor.tokenize(bankOf('000123456789'));
    const result = await env.processor.sale(saleOf(token, 12_345));
    expect(result).toMatchObject({ approved: true, responseCode: '00', approvedCents: 12_345 });
    const intent = env.standIn.state.account(ACCOUNT).intents.get(result.processorTransactionId)!;
    expect(intent.status).toBe('processing');
    expect(intent.payment_method_types).toEqual(['us_bank_account']);
  });

  it('declines a method vaulted by another processor, category 1, without asking Stripe', async () => {
    const asked = env.standIn.requests.length;
    const result = await env.processor.sale(saleOf('sbx.ok.0123456789abcdef01234567'));
    expect(result).toMatchObject({ approved: false, responseCode: '05' });
    expect(env.standIn.requests.length).toBe(asked);
  });

  it('charges on the merchant’s own account only', async () => {
    const { token } = await env.processor.tokenize({
      ...cardOf('4242424242424242'),
      merchantId: OTHER_MERCHANT,
    });
    const result = await env.processor.sale({ ...saleOf(token), merchantId: OTHER_MERCHANT });
    expect(env.standIn.state.account(OTHER_ACCOUNT).intents.has(result.processorTransactionId)).toBe(true);
    expect(env.standIn.state.account(ACCOUNT).intents.has(result.processorTransactionId)).toBe(false);
  });
});

describe('void and refund (both Stripe refunds)', () => {
  const reversal = (
    sale: { processorTransactionId: string },
    idempotencyKey: string,
    amountCents: number,
  ) => ({
    idempotencyKey,
    merchantId: MERCHANT,
    processorTransactionId: sale.processorTransactionId,
    amountCents,
  });

  it('voids a sale in full and refunds part of another; a repeated key makes one refund', async () => {
    const voided = await env.processor.sale(saleOf(await tokenOf('4242424242424242'), 5000));
    const v = await env.processor.void(reversal(voided, 'void:t-1', 5000));
    expect(v).toMatchObject({ approved: true, responseCode: '00', responseMessage: 'Voided' });
    expect(v.processorTransactionId).toMatch(/^re_/);

    const sale = await env.processor.sale(saleOf(await tokenOf('4242424242424242'), 5000));
    const r = await env.processor.refund(reversal(sale, 'refund:r-1', 1200));
    expect(r).toMatchObject({ approved: true, responseMessage: 'Refund accepted' });
    expect(await env.processor.refund(reversal(sale, 'refund:r-1', 1200))).toEqual(r);
    const refunds = [...env.standIn.state.account(ACCOUNT).refunds.values()].filter(
      (x) => x.payment_intent === sale.processorTransactionId,
    );
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({
      amount: 1200,
      metadata: { processor_key: 'refund:r-1', merchant_id: MERCHANT },
    });
  });

  it('answers a refund Stripe will not make as refused (approved: false), never as unavailable', async () => {
    const sale = await env.processor.sale(saleOf(await tokenOf('4242424242424242'), 1000));
    const tooMuch = await env.processor.refund(reversal(sale, 'refund:r-big', 1001));
    expect(tooMuch).toMatchObject({ approved: false, responseCode: '05' });
    expect(tooMuch.responseMessage).toContain('amount_too_large');
    const declined = await env.processor.sale(saleOf(await tokenOf('4000000000000002'), 1000));
    expect(await env.processor.refund(reversal(declined, 'refund:r-declined', 1000))).toMatchObject({
      approved: false,
    });
  });
});
