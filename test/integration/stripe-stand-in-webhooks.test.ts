/**
 * The stand-in's later outcomes and its webhooks, as Stripe sends them: bank debits clear or
 * fail when they fall due on its clock, disputed test cards are disputed, and every event reaches
 * a real HTTP receiver signed so that the `stripe` package's own verifier accepts it (and refuses
 * it with another secret or a changed body).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import type { SaleRequest } from '#processor/processor';
import { bankOf, cardOf, MERCHANT, stripeOnStandIn, type StripeOnStandIn } from '#support/stripe-stand-in';
import { clockAt } from '#support/clock';

const SECRET = 'whsec_standintestsecret0123456789';
/** What the receiver got: the raw body and signature, and the event its verification gave (on arrival). */
const received: { body: string; signature: string; event?: Stripe.Event }[] = [];
let receiver: Server;
let env: StripeOnStandIn;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const signature = String(req.headers['stripe-signature']);
      try {
        // As a receiver does: the package's verifier over the raw body, 300 s tolerance, on arrival.
        received.push({
          body,
          signature,
          event: Stripe.webhooks.constructEvent(body, signature, SECRET, 300),
        });
        res.writeHead(200).end();
      } catch {
        received.push({ body, signature });
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
  const { port } = receiver.address() as AddressInfo;
  env = await stripeOnStandIn({
    standIn: { webhook: { url: `http://127.0.0.1:${port}/processor-events/stripe`, secret: SECRET } },
  });
});
afterAll(async () => {
  await env.close();
  await new Promise<void>((ok) => receiver.close(() => ok()));
});
afterEach(() => jest.useRealTimers());

let keys = 0;
const saleOf = (token: string): SaleRequest => ({
  idempotencyKey: `payment:webhooks-${++keys}`,
  keyFirstUsedAt: new Date().toISOString(),
  merchantId: MERCHANT,
  token,
  amountCents: 5000,
  allowPartial: false,
});

/** The events received so far, every one verified on arrival. */
function verified(): Stripe.Event[] {
  expect(received.filter((r) => r.event === undefined)).toEqual([]);
  return received.map((r) => r.event!);
}

it('bank debits clear or fail when they fall due on the stand-in’s clock, each announced by a signed event', async () => {
  const t0 = Date.parse('2031-09-01T12:00:00.000Z');
  clockAt(t0);
  const clears = await env.processor.sale(
    saleOf((await env.processor.tokenize(bankOf('000123456789'))).token),
  );
  const nsf = await env.processor.sale(saleOf((await env.processor.tokenize(bankOf('000222222227'))).token));
  await env.standIn.tick();
  const intents = env.standIn.state.account('acct_1StandInSpringfield').intents;
  expect([
    intents.get(clears.processorTransactionId)!.status,
    intents.get(nsf.processorTransactionId)!.status,
  ]).toEqual(['processing', 'processing']);

  clockAt(t0 + 2 * 86_400_000 - 1000);
  await env.standIn.tick();
  expect(intents.get(clears.processorTransactionId)!.status).toBe('processing');
  clockAt(t0 + 2 * 86_400_000);
  await env.standIn.tick();
  expect(intents.get(clears.processorTransactionId)!.status).toBe('succeeded');
  expect(intents.get(nsf.processorTransactionId)).toMatchObject({
    status: 'requires_payment_method',
    last_payment_error: { code: 'insufficient_funds' },
  });

  const events = verified();
  const about = (id: string) =>
    events.filter((e) => (e.data.object as { id: string }).id === id).map((e) => e.type);
  expect(about(clears.processorTransactionId)).toEqual([
    'payment_intent.processing',
    'payment_intent.succeeded',
  ]);
  expect(about(nsf.processorTransactionId)).toEqual([
    'payment_intent.processing',
    'payment_intent.payment_failed',
  ]);
  expect(events.every((e) => e.account === 'acct_1StandInSpringfield' && e.livemode === false)).toBe(true);
});

it('a disputed test card is charged, then disputed', async () => {
  const sale = await env.processor.sale(
    saleOf((await env.processor.tokenize(cardOf('4000000000000259'))).token),
  );
  expect(sale).toMatchObject({ approved: true });
  await env.standIn.tick();
  const dispute = verified().find(
    (e) =>
      e.type === 'charge.dispute.created' &&
      (e.data.object as Stripe.Dispute).payment_intent === sale.processorTransactionId,
  );
  expect(dispute?.data.object).toMatchObject({
    object: 'dispute',
    reason: 'fraudulent',
    status: 'needs_response',
    amount: 5000,
  });
});

it('signs with the stand-in’s clock, as Stripe does: a receiver checking against another clock or secret refuses it', async () => {
  await env.standIn.tick();
  const last = received.at(-1)!;
  expect(last.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  expect(() => Stripe.webhooks.constructEvent(last.body, last.signature, 'whsec_another', 300)).toThrow(
    Stripe.errors.StripeSignatureVerificationError,
  );
  expect(() => Stripe.webhooks.constructEvent(`${last.body} `, last.signature, SECRET, 300)).toThrow(
    Stripe.errors.StripeSignatureVerificationError,
  );
  const signedAt = Number(/t=(\d+)/.exec(last.signature)![1]);
  clockAt((signedAt + 301) * 1000);
  expect(() => Stripe.webhooks.constructEvent(last.body, last.signature, SECRET, 300)).toThrow(/timestamp/i);
});
