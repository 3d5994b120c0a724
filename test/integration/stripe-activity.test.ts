/**
 * What reconciliation and the account updater read from Stripe through the adapter: the
 * service's PaymentIntents and Refunds of every connected account by time (oldest first, as the
 * sandbox's activity report), and Stripe's automatic card updates as account updates.
 */
import type { SaleRequest } from '#processor/processor';
import { ProcessorUnavailableError } from '#processor/processor';
import { parseVaultToken } from '#processor/stripe/vault-token';
import {
  ACCOUNT,
  cardOf,
  MERCHANT,
  OTHER_MERCHANT,
  stripeOnStandIn,
  type StripeOnStandIn,
} from '#support/stripe-stand-in';
import { clockAt } from '#support/clock';

let env: StripeOnStandIn;
beforeAll(async () => {
  env = await stripeOnStandIn();
});
afterAll(() => env.close());
afterEach(() => {
  jest.useRealTimers();
  env.standIn.faults.clear();
});

const HOUR = 3600_000;
let keys = 0;
async function sale(number: string, amountCents: number, merchantId = MERCHANT) {
  const { token } = await env.processor.tokenize({ ...cardOf(number), merchantId });
  const request: SaleRequest = {
    idempotencyKey: `payment:activity-${++keys}`,
    keyFirstUsedAt: new Date().toISOString(),
    merchantId,
    token,
    amountCents,
    allowPartial: false,
  };
  return { request, result: await env.processor.sale(request) };
}

describe('listActivity', () => {
  it('lists the window’s sales, voids and refunds of every account, oldest first; nothing outside it', async () => {
    const t0 = Date.parse('2031-06-01T10:00:00.000Z');
    clockAt(t0 - HOUR);
    await sale('4242424242424242', 999); // before the window
    clockAt(t0);
    const approved = await sale('4242424242424242', 1000);
    clockAt(t0 + 60_000);
    const declined = await sale('4000000000009995', 2000);
    clockAt(t0 + 120_000);
    const other = await sale('4242424242424242', 3000, OTHER_MERCHANT);
    clockAt(t0 + 180_000);
    const voided = await sale('4242424242424242', 4000);
    const v = await env.processor.void({
      idempotencyKey: `void:${voided.request.idempotencyKey}`,
      merchantId: MERCHANT,
      processorTransactionId: voided.result.processorTransactionId,
      amountCents: 4000,
    });
    clockAt(t0 + 240_000);
    const r = await env.processor.refund({
      idempotencyKey: 'refund:activity-r1',
      merchantId: MERCHANT,
      processorTransactionId: approved.result.processorTransactionId,
      amountCents: 250,
    });
    clockAt(t0 + 2 * HOUR);
    await sale('4242424242424242', 5000); // after the window

    const lines = await env.processor.listActivity(
      new Date(t0).toISOString(),
      new Date(t0 + HOUR).toISOString(),
    );
    expect(lines).toEqual([
      {
        kind: 'sale',
        idempotencyKey: approved.request.idempotencyKey,
        merchantId: MERCHANT,
        processorTransactionId: approved.result.processorTransactionId,
        approved: true,
        amountCents: 1000,
        responseCode: '00',
        at: new Date(t0).toISOString(),
      },
      {
        kind: 'sale',
        idempotencyKey: declined.request.idempotencyKey,
        merchantId: MERCHANT,
        processorTransactionId: declined.result.processorTransactionId,
        approved: false,
        amountCents: 0,
        responseCode: '51',
        at: new Date(t0 + 60_000).toISOString(),
      },
      {
        kind: 'sale',
        idempotencyKey: other.request.idempotencyKey,
        merchantId: OTHER_MERCHANT,
        processorTransactionId: other.result.processorTransactionId,
        approved: true,
        amountCents: 3000,
        responseCode: '00',
        at: new Date(t0 + 120_000).toISOString(),
      },
      {
        kind: 'sale',
        idempotencyKey: voided.request.idempotencyKey,
        merchantId: MERCHANT,
        processorTransactionId: voided.result.processorTransactionId,
        approved: true,
        amountCents: 4000,
        responseCode: '00',
        at: new Date(t0 + 180_000).toISOString(),
      },
      {
        kind: 'void',
        idempotencyKey: `void:${voided.request.idempotencyKey}`,
        merchantId: MERCHANT,
        processorTransactionId: v.processorTransactionId,
        originalProcessorTransactionId: voided.result.processorTransactionId,
        approved: true,
        amountCents: 4000,
        responseCode: '00',
        at: new Date(t0 + 180_000).toISOString(),
      },
      {
        kind: 'refund',
        idempotencyKey: 'refund:activity-r1',
        merchantId: MERCHANT,
        processorTransactionId: r.processorTransactionId,
        originalProcessorTransactionId: approved.result.processorTransactionId,
        approved: true,
        amountCents: 250,
        responseCode: '00',
        at: new Date(t0 + 240_000).toISOString(),
      },
    ]);
  });

  it('shows a sale reversed for want of an answer as not approved (it moved no money), the reversal not as a refund', async () => {
    const t0 = Date.parse('2031-06-02T10:00:00.000Z');
    clockAt(t0);
    const { token } = await env.processor.tokenize(cardOf('4242424242424242'));
    const request: SaleRequest = {
      idempotencyKey: 'payment:activity-lost',
      keyFirstUsedAt: new Date(t0).toISOString(),
      merchantId: MERCHANT,
      token,
      amountCents: 6000,
      allowPartial: false,
    };
    env.standIn.faults.add({ after: 'lost' }, { method: 'POST', path: '/v1/payment_intents' }, 2);
    await expect(env.processor.sale(request)).rejects.toBeInstanceOf(ProcessorUnavailableError);
    clockAt(t0 + 2 * HOUR);
    await env.processor.reverseUnanswered(request);
    const lines = await env.processor.listActivity(
      new Date(t0).toISOString(),
      new Date(t0 + HOUR).toISOString(),
    );
    expect(lines).toEqual([
      expect.objectContaining({
        kind: 'sale',
        idempotencyKey: request.idempotencyKey,
        approved: false,
        amountCents: 0,
        responseCode: '96',
      }),
    ]);
  });
});

describe('accountUpdates (payment_method.automatically_updated)', () => {
  it('a new expiry and a new number, by the token the service keeps, in order, with the same ids when listed again', async () => {
    const t0 = Date.parse('2031-07-01T08:00:00.000Z');
    clockAt(t0);
    const renewed = await env.processor.tokenize(cardOf('4242424242424242'));
    const replaced = await env.processor.tokenize(cardOf('5555555555554444'));
    const pmOf = (token: string) => parseVaultToken(token)!.paymentMethod;
    const helper = (body: object) =>
      fetch(`http://${env.standIn.host}:${env.standIn.port}/_stand-in/card-updates`, {
        method: 'POST',
        headers: {
          authorization: 'Bearer sk_test_standin0123456789abcdefSECRET',
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
      });
    clockAt(t0 + HOUR);
    expect(
      (
        await helper({
          account: ACCOUNT,
          paymentMethod: pmOf(renewed.token),
          change: { exp_month: 12, exp_year: 2037 },
        })
      ).status,
    ).toBe(200);
    clockAt(t0 + 2 * HOUR);
    await helper({
      account: ACCOUNT,
      paymentMethod: pmOf(replaced.token),
      change: { exp_month: 3, exp_year: 2036, last4: '8210', fingerprint: 'newprint1234' },
    });

    const since = new Date(t0).toISOString();
    const until = new Date(t0 + 3 * HOUR).toISOString();
    const updates = await env.processor.accountUpdates(since, until);
    expect(updates).toEqual([
      {
        updateId: expect.stringMatching(/^evt_/),
        token: renewed.token,
        at: new Date(t0 + HOUR).toISOString(),
        kind: 'new_expiry',
        expiryMonth: 12,
        expiryYear: 2037,
      },
      {
        updateId: expect.stringMatching(/^evt_/),
        token: replaced.token,
        at: new Date(t0 + 2 * HOUR).toISOString(),
        kind: 'new_number',
        maskedAccountNumber: '************8210',
        fingerprint: 'newprint1234',
        expiryMonth: 3,
        expiryYear: 2036,
      },
    ]);
    expect(await env.processor.accountUpdates(since, until)).toEqual(updates);
    expect(await env.processor.accountUpdates(new Date(t0 + 90 * 60_000).toISOString(), until)).toEqual([
      updates[1],
    ]);
  });
});
