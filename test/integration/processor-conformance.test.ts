/**
 * One conformance suite for processors: the same cases run through the processor port against the
 * sandbox (its ledger on DynamoDB Local) and against the Stripe adapter on its stand-in (the
 * official `stripe` package over HTTP). A processor's test numbers do not all mean the same thing
 * (the sandbox's 4000000000000119 is issuer unavailable, 91; Stripe's is a processing error, 96),
 * so each case names each processor's number: the table is docs/testing.md's "Conformance suite".
 * A new adapter adds a column (its numbers) and a subject, and passes the same cases.
 *
 * The service's clock stands still at a fixed morning (well before the day's cut-off), and both
 * processors read it: the stand-in's clock follows it (test/support/stripe-stand-in.ts).
 */
import { declineOf } from '#domain/declines';
import type { PaymentProcessor, SaleRequest, SaleResult, TokenizeRequest } from '#processor/processor';
import { SandboxProcessor } from '#processor/sandbox';
import { parseVaultToken } from '#processor/stripe/vault-token';
import { updateCard } from '#lib/local/stripe/payments-api';
import { useClock } from '#shared/clock';
import { ddb } from '#shared/ddb';
import { useTestClock } from '#support/clock';
import { createTestTable, type TestTable } from '#support/ddb';
import {
  ACCOUNT,
  bankOf,
  cardOf,
  MERCHANT,
  stripeOnStandIn,
  type StripeOnStandIn,
} from '#support/stripe-stand-in';

const START = '2031-05-01T09:00:00.000Z';
/** The activity window: the clock stands still, and `until` is exclusive. */
const SINCE = '2031-05-01T08:00:00.000Z';
const UNTIL = '2031-05-01T10:00:00.000Z';

type ProcessorName = 'sandbox' | 'stripe';

interface Subject {
  name: ProcessorName;
  processor: PaymentProcessor;
  /** Makes the card networks report a new expiry of a card, as this processor learns one. */
  renewedCard(): Promise<{ token: string }>;
}

/** Each processor's test number for a case: a card number, or a bank account number. */
type Numbers = Record<ProcessorName, { card: string } | { bank: string }>;

interface SaleCase {
  case: string;
  numbers: Numbers;
  /** What the sale answers: approved with its code, or declined with its code and category. */
  expected:
    { approved: true; responseCode: '00' } | { approved: false; responseCode: string; category: '1' | '2' };
}

const both = (card: string): Numbers => ({ sandbox: { card }, stripe: { card } });

/** Sales by test number: an approval, a bank debit accepted, and declines of each category. */
const SALE_CASES: SaleCase[] = [
  { case: 'approve', numbers: both('4242424242424242'), expected: { approved: true, responseCode: '00' } },
  {
    case: 'bank debit accepted',
    numbers: { sandbox: { bank: '000123456789' }, stripe: { bank: '000123456789' } },
    expected: { approved: true, responseCode: '00' },
  },
  ...(
    [
      ['do not honor', both('4000000000000002'), '05', '1'],
      ['lost card', both('4000000000009987'), '41', '1'],
      ['stolen card', both('4000000000009979'), '43', '1'],
      ['expired card', both('4000000000000069'), '54', '1'],
      ['security code', both('4000000000000127'), 'N7', '1'],
      [
        'authentication required',
        { sandbox: { card: '4000000000003113' }, stripe: { card: '4000002500003155' } },
        '1A',
        '1',
      ],
      ['insufficient funds', both('4000000000009995'), '51', '2'],
      ['limit exceeded', both('4000000000006975'), '61', '2'],
      [
        'processing error',
        { sandbox: { card: '4000000000000960' }, stripe: { card: '4000000000000119' } },
        '96',
        '2',
      ],
    ] as const
  ).map(([name, numbers, responseCode, category]) => ({
    case: `decline: ${name} (category ${category})`,
    numbers,
    expected: { approved: false as const, responseCode, category },
  })),
];

let table: TestTable;
let stripe: StripeOnStandIn;
let subjects: Subject[];

beforeAll(async () => {
  useTestClock(START);
  table = await createTestTable();
  stripe = await stripeOnStandIn();
  const sandbox = new SandboxProcessor(ddb(), table.tableName, { periodSeconds: 86_400, offsetSeconds: 0 });
  subjects = [
    {
      name: 'sandbox',
      processor: sandbox,
      // The sandbox's account updater reports on this test card from its vaulting on.
      renewedCard: () => sandbox.tokenize(cardOf('4000000000000440')),
    },
    {
      name: 'stripe',
      processor: stripe.processor,
      renewedCard: async () => {
        const vaulted = await stripe.processor.tokenize(cardOf('4242424242424242'));
        const { paymentMethod } = parseVaultToken(vaulted.token)!;
        updateCard(stripe.standIn.state, stripe.standIn.state.account(ACCOUNT), paymentMethod, {
          exp_month: 12,
          exp_year: 2037,
        });
        return vaulted;
      },
    },
  ];
});
afterAll(async () => {
  useClock(undefined);
  await stripe.close();
  await table.drop();
});

const subject = (name: ProcessorName): Subject => subjects.find((s) => s.name === name)!;

const accountOf = (number: { card: string } | { bank: string }): TokenizeRequest =>
  'card' in number ? cardOf(number.card) : bankOf(number.bank);

let keys = 0;
const saleOf = (token: string, amountCents = 2500, allowPartial = false): SaleRequest => ({
  idempotencyKey: `sale:conformance-${++keys}`,
  keyFirstUsedAt: START,
  merchantId: MERCHANT,
  token,
  amountCents,
  allowPartial,
});

/** What the processor reports of a key: its activity lines. */
const activityOf = async (s: Subject, key: string) =>
  (await s.processor.listActivity(SINCE, UNTIL)).filter((a) => a.idempotencyKey === key);

/** What a sale answered, as the service reads it. */
const outcome = (r: SaleResult) =>
  r.approved
    ? { approved: true, responseCode: r.responseCode }
    : { approved: false, responseCode: r.responseCode, category: declineOf(r.responseCode).category };

describe.each(['sandbox', 'stripe'] as const)('%s', (name) => {
  it.each(SALE_CASES.map((c) => [c.case, c] as const))('%s', async (_case, c) => {
    const s = subject(name);
    const { token } = await s.processor.tokenize(accountOf(c.numbers[name]));
    const request = saleOf(token);
    const answer = await s.processor.sale(request);
    expect(outcome(answer)).toEqual(c.expected);
    expect(answer.approvedCents).toBe(c.expected.approved ? 2500 : 0);
    // The activity report agrees: one sale under the key, moving what was approved.
    expect(
      (await activityOf(s, request.idempotencyKey)).map((a) => [a.kind, a.approved, a.amountCents]),
    ).toEqual([['sale', c.expected.approved, answer.approvedCents]]);
  });

  it('partial approval where the processor gives one (the sandbox: 50.00 of 80.00; Stripe approves in full or declines)', async () => {
    const s = subject(name);
    const number = { sandbox: '4000000000000077', stripe: '4242424242424242' }[name];
    const { token } = await s.processor.tokenize(cardOf(number));
    const answer = await s.processor.sale(saleOf(token, 8000, true));
    expect([answer.approved, answer.responseCode, answer.approvedCents]).toEqual(
      name === 'sandbox' ? [true, '10', 5000] : [true, '00', 8000],
    );
  });

  it('a key replayed: the same answer, one charge', async () => {
    const s = subject(name);
    const { token } = await s.processor.tokenize(cardOf('4242424242424242'));
    const request = saleOf(token);
    const first = await s.processor.sale(request);
    expect(await s.processor.sale(request)).toEqual(first);
    expect(await activityOf(s, request.idempotencyKey)).toHaveLength(1);
  });

  it.each(['void', 'refund'] as const)('%s: approved once under its key, replayed the same', async (kind) => {
    const s = subject(name);
    const { token } = await s.processor.tokenize(cardOf('4242424242424242'));
    const sale = await s.processor.sale(saleOf(token, 2500));
    const reversal = {
      idempotencyKey: `${kind}:conformance-${++keys}`,
      merchantId: MERCHANT,
      processorTransactionId: sale.processorTransactionId,
      amountCents: kind === 'void' ? 2500 : 700,
    };
    const answer = await s.processor[kind](reversal);
    expect([answer.approved, answer.responseCode]).toEqual([true, '00']);
    expect(await s.processor[kind](reversal)).toEqual(answer);
    expect(
      (await activityOf(s, reversal.idempotencyKey)).map((a) => [a.kind, a.approved, a.amountCents]),
    ).toEqual([[kind, true, reversal.amountCents]]);
  });

  it('an unanswered sale answered as declined: a sale made is undone, and one not made never moves money', async () => {
    const s = subject(name);
    const { token } = await s.processor.tokenize(cardOf('4242424242424242'));
    // Made, its answer lost: reversed, the key's sale moves nothing.
    const made = saleOf(token);
    await s.processor.sale(made);
    await s.processor.reverseUnanswered({ ...made, token });
    // The key's sales that moved money, as the activity report shows them.
    const moved = async (key: string) =>
      (await activityOf(s, key)).filter((a) => a.kind === 'sale' && a.approved);
    expect(await moved(made.idempotencyKey)).toEqual([]);
    // Never arrived: reversed first, then its late arrival declines.
    const late = saleOf(token);
    await s.processor.reverseUnanswered({ ...late, token });
    expect(await s.processor.sale(late)).toMatchObject({ approved: false, approvedCents: 0 });
    expect(await moved(late.idempotencyKey)).toEqual([]);
  });

  it('a notice of a new expiry (account updater): listed for the card’s token, the same id when listed again', async () => {
    const s = subject(name);
    const { token } = await s.renewedCard();
    const listed = async () =>
      (await s.processor.accountUpdates(SINCE, UNTIL)).filter((u) => u.token === token);
    const updates = await listed();
    expect(updates.map((u) => u.kind)).toEqual(['new_expiry']);
    expect((await listed()).map((u) => u.updateId)).toEqual(updates.map((u) => u.updateId));
  });
});
