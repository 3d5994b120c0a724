/**
 * Stripe's events as the processor port's notices, listed by the adapter from the stand-in (the
 * backstop's way in, lambdas/processor/stripe/notices.ts): a bank debit's clearing and its return
 * with the Nacha code its ACH failure stands for, a card's dispute from opening to closing, a
 * card update; nothing for a card charge; each event one notice, in Stripe's order, listed again
 * with the same id.
 */
import type { ProcessorNotice, SaleRequest, TokenizeRequest } from '#processor/processor';
import { parseVaultToken } from '#processor/stripe/vault-token';
import { clockAt } from '#support/clock';
import {
  ACCOUNT,
  bankOf,
  cardOf,
  MERCHANT,
  stripeOnStandIn,
  type StripeOnStandIn,
} from '#support/stripe-stand-in';
import { moveDispute, updateCard } from '#lib/local/stripe/payments-api';

let env: StripeOnStandIn;
beforeAll(async () => {
  env = await stripeOnStandIn();
});
afterAll(() => env.close());
afterEach(() => jest.useRealTimers());

const HOUR = 3600_000;
const DAY = 24 * HOUR;
let keys = 0;

async function charge(method: TokenizeRequest, amountCents = 2500) {
  const { token } = await env.processor.tokenize(method);
  const request: SaleRequest = {
    idempotencyKey: `payment:notices-${++keys}`,
    keyFirstUsedAt: new Date().toISOString(),
    merchantId: MERCHANT,
    token,
    amountCents,
    allowPartial: false,
  };
  const result = await env.processor.sale(request);
  expect(result.approved).toBe(true);
  return { token, key: request.idempotencyKey, intent: result.processorTransactionId };
}

/** Every notice listed from `cursor` on, page after page (as the backstop lists them). */
async function listAll(cursor?: string, limit = 50) {
  const notices: ProcessorNotice[] = [];
  let page = await env.processor.listNotices({ ...(cursor !== undefined && { cursor }), limit });
  notices.push(...page.notices);
  while (page.more) {
    page = await env.processor.listNotices({ cursor: page.cursor, limit });
    notices.push(...page.notices);
  }
  return { notices, cursor: page.cursor };
}

const ofCharge = (notices: ProcessorNotice[], intent: string) =>
  notices.filter((n) => 'charge' in n && n.charge.processorTransactionId === intent);

describe('listNotices (Stripe)', () => {
  it('lists a bank debit’s clearing and the returns with the Nacha codes of their ACH failures; a card charge is no notice', async () => {
    const t0 = Date.parse('2032-03-01T10:00:00.000Z');
    clockAt(t0);
    const cleared = await charge(bankOf('000123456789'));
    const nsf = await charge(bankOf('000222222227'));
    const unauthorized = await charge(bankOf('000333333335'));
    const closed = await charge(bankOf('000111111113'));
    const unknown = await charge(bankOf('000444444440'));
    const card = await charge(cardOf('4242424242424242'));
    clockAt(t0 + 3 * DAY);
    await env.standIn.tick();

    const { notices } = await listAll();
    expect(ofCharge(notices, cleared.intent)).toEqual([
      expect.objectContaining({
        kind: 'cleared',
        merchantId: MERCHANT,
        objectId: cleared.intent,
        charge: { processorTransactionId: cleared.intent, idempotencyKey: cleared.key },
      }),
    ]);
    const codeOf = (intent: string) =>
      ofCharge(notices, intent).map((n) => (n.kind === 'returned' ? n.code : n.kind));
    expect(codeOf(nsf.intent)).toEqual(['R01']);
    expect(codeOf(unauthorized.intent)).toEqual(['R10']);
    expect(codeOf(closed.intent)).toEqual(['R02']);
    // Stripe's failure code with no Nacha code of its own: R99, Stripe's words kept.
    expect(ofCharge(notices, unknown.intent)).toEqual([
      expect.objectContaining({ kind: 'returned', code: 'R99', reason: 'The debit was returned.' }),
    ]);
    expect(ofCharge(notices, card.intent)).toEqual([]);
  });

  it('lists a card’s dispute opened, moved on and closed, in Stripe’s order, with the service’s key', async () => {
    const t0 = Date.parse('2032-04-01T10:00:00.000Z');
    clockAt(t0);
    const disputed = await charge(cardOf('4000000000000259'), 7000);
    const account = env.standIn.state.account(ACCOUNT);
    const dispute = [...account.disputes.values()].find((d) => d.payment_intent === disputed.intent)!;
    clockAt(t0 + DAY);
    moveDispute(env.standIn.state, account, dispute.id, 'under_review');
    clockAt(t0 + 2 * DAY);
    moveDispute(env.standIn.state, account, dispute.id, 'lost');

    const { notices } = await listAll(`t:${Math.floor(t0 / 1000)}`);
    const ofDispute = ofCharge(notices, disputed.intent);
    expect(ofDispute.map((n) => [n.kind, 'status' in n && n.status])).toEqual([
      ['dispute_opened', 'needs_response'],
      ['dispute_updated', 'under_review'],
      ['dispute_closed', 'lost'],
    ]);
    expect(ofDispute[0]).toMatchObject({
      objectId: dispute.id,
      disputeId: dispute.id,
      reason: 'fraudulent',
      amountCents: 7000,
      charge: { idempotencyKey: disputed.key },
      evidenceDueBy: expect.stringMatching(/^2032-04-08T/),
    });
    const sequences = ofDispute.map((n) => n.sequence);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
  });

  it('lists a card network’s update of a vaulted card as an account update', async () => {
    const t0 = Date.parse('2032-05-01T10:00:00.000Z');
    clockAt(t0);
    const { token } = await env.processor.tokenize(cardOf('4242424242424242'));
    clockAt(t0 + HOUR);
    updateCard(env.standIn.state, env.standIn.state.account(ACCOUNT), parseVaultToken(token)!.paymentMethod, {
      exp_month: 3,
      exp_year: 2036,
    });
    const { notices } = await listAll();
    expect(notices.filter((n) => n.kind === 'account_update')).toEqual([
      expect.objectContaining({
        kind: 'account_update',
        objectId: token,
        update: expect.objectContaining({ kind: 'new_expiry', token, expiryMonth: 3, expiryYear: 2036 }),
      }),
    ]);
  });

  it('pages by its cursor: each notice once, in order; listed again from an earlier cursor with the same ids', async () => {
    const t0 = Date.parse('2032-06-01T10:00:00.000Z');
    clockAt(t0);
    const debits = [];
    for (let i = 0; i < 5; i++) debits.push(await charge(bankOf('000123456789')));
    clockAt(t0 + 3 * DAY);
    await env.standIn.tick();
    const start = `t:${Math.floor((t0 + 3 * DAY) / 1000) - 60}`;
    const one = await listAll(start, 1);
    const all = await listAll(start, 50);
    const ids = (n: ProcessorNotice[]) => n.map((x) => x.noticeId);
    expect(ids(one.notices)).toEqual(ids(all.notices));
    expect(new Set(ids(one.notices)).size).toBe(one.notices.length);
    expect(debits.every((d) => ofCharge(one.notices, d.intent).length === 1)).toBe(true);
    // A minute later the listing reaches five minutes back: the same notices, the same ids.
    clockAt(t0 + 3 * DAY + 60_000);
    const again = await listAll(one.cursor);
    expect(ids(again.notices)).toEqual(ids(all.notices));
  });
});
