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
 *
 * Notices (what a processor answers later) come last: each processor makes them due its own way,
 * through a small driver of its test tooling (the sandbox's test clock brings each cut-off's
 * notices forward; Stripe's clock passes and the stand-in sends its events), and one set of
 * assertions reads them through the port (`listNotices`, `readWebhook`). Stripe's driver moves the
 * clock days ahead, so no case that reads the activity window comes after them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { declineOf } from '#domain/declines';
import { returnCodeOf } from '#domain/notices';
import type {
  PaymentProcessor,
  ProcessorNotice,
  SaleRequest,
  SaleResult,
  TokenizeRequest,
  WebhookReading,
} from '#processor/processor';
import { SandboxProcessor } from '#processor/sandbox';
import { parseVaultToken } from '#processor/stripe/vault-token';
import { moveDispute, updateCard } from '#lib/local/stripe/payments-api';
import { useClock } from '#shared/clock';
import { ddb } from '#shared/ddb';
import { useTestClock, type TestClock } from '#support/clock';
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
  notices: NoticeDriver;
}

/**
 * A webhook as the processor's receiver got it, read through the port on arrival (as the
 * service's route reads it, within the signature's tolerance): with the endpoint's secret, with
 * another secret, and with its body changed.
 */
interface Arrival {
  read: WebhookReading;
  otherSecret: WebhookReading;
  changedBody: WebhookReading;
}

/** How a processor's later answers are made due by its own test tooling. */
interface NoticeDriver {
  /**
   * Lets the processor's time pass until all it will say of the charges made so far is due: the
   * sandbox's test clock brings the next cut-off's notices forward, a banking day a call, until
   * none is left; Stripe's clock passes a debit's processing time and the stand-in settles the
   * debits, each with its event.
   */
  allDue(): Promise<void>;
  /**
   * The dispute of a charge closes `won` or `lost`: the sandbox's dispute cards close by
   * themselves (at their 3rd cut-off, brought forward); Stripe's by the stand-in's helper, as
   * Stripe's test mode closes one when evidence is submitted.
   */
  closeDispute(processorTransactionId: string, status: 'won' | 'lost'): Promise<void>;
  /** Every webhook the processor sent (absent: it sends none). */
  webhooks?: readonly Arrival[];
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
let testClock: TestClock;
/** The Stripe stand-in's webhook endpoint (a real HTTP receiver) and its signing secret. */
let receiver: Server;
const WEBHOOK_SECRET = 'whsec_conformance0123456789abcdef';
const arrivals: Arrival[] = [];

/** Reads every webhook the stand-in sends on arrival, through the port, before answering it. */
async function startStripeReceiver(): Promise<string> {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = { 'stripe-signature': String(req.headers['stripe-signature']) };
      const read = (secret: string, text = body) =>
        stripe.processor.readWebhook({ body: text, headers, signingSecret: async () => secret });
      void Promise.all([
        read(WEBHOOK_SECRET),
        read('whsec_another0123456789abcdefghij'),
        read(WEBHOOK_SECRET, body.replace('"id": "evt_', '"id": "evt_0')),
      ])
        .then(([read, otherSecret, changedBody]) => {
          arrivals.push({ read, otherSecret, changedBody });
          res.writeHead(read.verified ? 200 : 400).end();
        })
        // Unread (the test then misses its notices): answered as a failing route would.
        .catch(() => res.writeHead(500).end());
    });
  });
  await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
  return `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/processor-events/stripe`;
}

beforeAll(async () => {
  testClock = useTestClock(START);
  table = await createTestTable();
  stripe = await stripeOnStandIn({
    standIn: { webhook: { url: await startStripeReceiver(), secret: WEBHOOK_SECRET } },
  });
  const sandbox = new SandboxProcessor(ddb(), table.tableName, { periodSeconds: 86_400, offsetSeconds: 0 });
  const sandboxAllDue = async () => {
    // A second between banking days: each cut-off's notices are due at a time of their own.
    let broughtForward;
    do {
      testClock.advance(1000);
      ({ broughtForward } = await sandbox.noticesNow({ merchantId: MERCHANT }));
    } while (broughtForward > 0);
  };
  subjects = [
    {
      name: 'sandbox',
      processor: sandbox,
      // The sandbox's account updater reports on this test card from its vaulting on.
      renewedCard: () => sandbox.tokenize(cardOf('4000000000000440')),
      // Its dispute cards close by themselves, at their 3rd cut-off.
      notices: { allDue: sandboxAllDue, closeDispute: sandboxAllDue },
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
      notices: {
        async allDue() {
          // The webhooks on their way are read first, within their signatures' tolerance.
          await stripe.standIn.tick();
          testClock.advance((stripe.standIn.state.debitSettlesAfterSeconds + 1) * 1000);
          await stripe.standIn.tick();
        },
        async closeDispute(processorTransactionId, status) {
          await stripe.standIn.tick();
          testClock.advance(3600_000);
          const account = stripe.standIn.state.account(ACCOUNT);
          const dispute = [...account.disputes.values()].find(
            (d) => d.payment_intent === processorTransactionId,
          )!;
          moveDispute(stripe.standIn.state, account, dispute.id, status);
          await stripe.standIn.tick();
        },
        webhooks: arrivals,
      },
    },
  ];
});
afterAll(async () => {
  useClock(undefined);
  await stripe.close();
  await new Promise<void>((ok) => receiver.close(() => ok()));
  await table.drop();
});

const subject = (name: ProcessorName): Subject => subjects.find((s) => s.name === name)!;

const accountOf = (number: { card: string } | { bank: string }): TokenizeRequest =>
  'card' in number ? cardOf(number.card) : bankOf(number.bank);

let keys = 0;
const saleOf = (token: string, amountCents = 2500, allowPartial = false): SaleRequest => ({
  idempotencyKey: `sale:conformance-${++keys}`,
  keyFirstUsedAt: testClock.now().toISOString(),
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

/** A bank debit's test account and what the processor says of it later (the last of its notices). */
interface DebitNoticeCase {
  case: string;
  accounts: Record<ProcessorName, string>;
  expected: { kind: 'cleared' } | { kind: 'returned'; code: string; category: string };
  /** Notices before it, where a processor sends some: the sandbox's R10 account clears first. */
  before?: Partial<Record<ProcessorName, string[]>>;
}

const bothBanks = (account: string) => ({ sandbox: account, stripe: account });

const DEBIT_NOTICE_CASES: DebitNoticeCase[] = [
  { case: 'a debit clears', accounts: bothBanks('000123456789'), expected: { kind: 'cleared' } },
  {
    case: 'a debit returned R01 (insufficient funds)',
    accounts: bothBanks('000222222227'),
    expected: { kind: 'returned', code: 'R01', category: 'nsf' },
  },
  {
    case: 'a debit returned R02 (account closed)',
    accounts: bothBanks('000111111113'),
    expected: { kind: 'returned', code: 'R02', category: 'administrative' },
  },
  {
    case: 'a debit returned R10 (unauthorized)',
    accounts: bothBanks('000333333335'),
    expected: { kind: 'returned', code: 'R10', category: 'unauthorized' },
    before: { sandbox: ['cleared'] },
  },
];

/** A disputed card charge: its test card, the dispute's reason, and how it closes. */
const DISPUTE_CASES = [
  {
    case: 'a fraudulent dispute, lost',
    card: both('4000000000000259'),
    reason: 'fraudulent',
    closed: 'lost',
  },
  {
    case: 'a product-not-received dispute, won',
    card: both('4000000000002685'),
    reason: 'product_not_received',
    closed: 'won',
  },
] as const;

/** Every notice a listing gives from `cursor` on, page after page (at most `limit` a page), and where it ended. */
async function listAll(s: Subject, from: string | undefined, limit = 100) {
  const notices: ProcessorNotice[] = [];
  let cursor = from;
  let more = true;
  while (more) {
    const page = await s.processor.listNotices!({ ...(cursor !== undefined && { cursor }), limit });
    notices.push(...page.notices);
    ({ cursor, more } = page);
  }
  return { notices, cursor: cursor! };
}

/** Where the backstop would stand now: the cursor at the end of everything listed so far. */
const cursorNow = async (s: Subject) => (await listAll(s, undefined)).cursor;

interface Charged {
  processorTransactionId: string;
  idempotencyKey: string;
}

async function approvedCharge(s: Subject, account: { card: string } | { bank: string }, amountCents = 2500) {
  const { token } = await s.processor.tokenize(accountOf(account));
  const request = saleOf(token, amountCents);
  const answer = await s.processor.sale(request);
  expect(answer.approved).toBe(true);
  return { processorTransactionId: answer.processorTransactionId, idempotencyKey: request.idempotencyKey };
}

const ofCharge = (notices: readonly ProcessorNotice[], charge: Charged) =>
  notices.filter((n) => 'charge' in n && n.charge.processorTransactionId === charge.processorTransactionId);

/** What a notice says, as the service reads it (a return's category from its code). */
const said = (n: ProcessorNotice) =>
  n.kind === 'returned'
    ? { kind: n.kind, code: n.code, category: returnCodeOf(n.code, n.reason).category }
    : { kind: n.kind };

const ids = (notices: readonly ProcessorNotice[]) => notices.map((n) => n.noticeId);

describe.each(['sandbox', 'stripe'] as const)('%s: notices', (name) => {
  it.each(DEBIT_NOTICE_CASES.map((c) => [c.case, c] as const))('%s', async (_case, c) => {
    const s = subject(name);
    const cursor = await cursorNow(s);
    const charge = await approvedCharge(s, { bank: c.accounts[name] });
    await s.notices.allDue();
    const notices = ofCharge((await listAll(s, cursor)).notices, charge);
    expect(notices.map(said)).toEqual([...(c.before?.[name] ?? []).map((kind) => ({ kind })), c.expected]);
    // Each names the charge by the processor's id and the service's key, for the service's merchant.
    for (const n of notices)
      expect(n).toMatchObject({ merchantId: MERCHANT, objectId: charge.processorTransactionId, charge });
  });

  it('a returned debit’s activity: the approved sale when it was made, and a return line with its code when it was returned', async () => {
    const s = subject(name);
    const cursor = await cursorNow(s);
    const since = testClock.now().toISOString();
    const charge = await approvedCharge(s, { bank: '000222222227' }, 3100);
    await s.notices.allDue();
    const [returned] = ofCharge((await listAll(s, cursor)).notices, charge);
    expect(returned?.kind).toBe('returned');
    const until = new Date(testClock.now().getTime() + 1000).toISOString();
    const lines = (await s.processor.listActivity(since, until)).filter(
      (a) => a.idempotencyKey === charge.idempotencyKey,
    );
    expect(lines.map((a) => [a.kind, a.approved, a.amountCents, a.responseCode])).toEqual([
      ['sale', true, 3100, '00'],
      ['return', true, 3100, 'R01'],
    ]);
    expect(lines.map((a) => a.processorTransactionId)).toEqual([
      charge.processorTransactionId,
      charge.processorTransactionId,
    ]);
    // The sale when it was made, the return when the bank returned it.
    expect(lines[0]!.at).toBe(since);
    expect(lines[1]!.at).toBe(returned!.occurredAt);
  });

  it.each(DISPUTE_CASES.map((c) => [c.case, c] as const))('%s', async (_case, c) => {
    const s = subject(name);
    const cursor = await cursorNow(s);
    const charge = await approvedCharge(s, c.card[name], 7000);
    await s.notices.allDue();
    await s.notices.closeDispute(charge.processorTransactionId, c.closed);
    const notices = ofCharge((await listAll(s, cursor)).notices, charge);
    expect(notices.map((n) => [n.kind, 'status' in n && n.status])).toEqual([
      ['dispute_opened', 'needs_response'],
      ['dispute_closed', c.closed],
    ]);
    const disputeId = notices[0]!.objectId;
    for (const n of notices)
      expect(n).toMatchObject({
        merchantId: MERCHANT,
        objectId: disputeId,
        disputeId,
        reason: c.reason,
        amountCents: 7000,
        charge,
      });
    expect(notices[0]).toMatchObject({ evidenceDueBy: expect.any(String) });
    // The processor's order of the dispute's notices.
    expect(notices[0]!.sequence).toBeLessThan(notices[1]!.sequence);
  });

  it('listed twice from one cursor: the same notices, the same ids; paged from each cursor it returns: each once', async () => {
    const s = subject(name);
    const cursor = await cursorNow(s);
    const charges = [
      ...[1, 2, 3].map(() => ({ bank: '000123456789' })),
      { bank: '000222222227' },
      { bank: '000111111113' },
    ];
    const charged: Charged[] = [];
    for (const account of charges) charged.push(await approvedCharge(s, account));
    await s.notices.allDue();

    const all = await listAll(s, cursor);
    expect(ids((await listAll(s, cursor)).notices)).toEqual(ids(all.notices));
    const paged = await listAll(s, cursor, 1);
    expect(ids(paged.notices)).toEqual(ids(all.notices));
    expect(new Set(ids(paged.notices)).size).toBe(paged.notices.length);
    expect(charged.map((c) => ofCharge(paged.notices, c).length)).toEqual([1, 1, 1, 1, 1]);
  });

  it('webhooks, where the processor sends them: a correctly signed one reads to the notices listed, a wrongly signed one is refused', async () => {
    const s = subject(name);
    const webhooks = s.notices.webhooks;
    // A processor that sends none has no way in for them.
    expect(typeof s.processor.readWebhook).toBe(webhooks ? 'function' : 'undefined');
    if (!webhooks) return;
    const cursor = await cursorNow(s);
    const first = webhooks.length;
    const debit = await approvedCharge(s, { bank: '000222222227' });
    const card = await approvedCharge(s, { card: '4000000000002685' });
    await s.notices.allDue();

    const arrived = webhooks.slice(first);
    expect(arrived.map((a) => a.read.verified).filter((v) => !v)).toEqual([]);
    expect(arrived.map((a) => [a.otherSecret.verified, a.changedBody.verified])).toEqual(
      arrived.map(() => [false, false]),
    );
    expect(arrived.map((a) => !a.otherSecret.verified && a.otherSecret.why)).toEqual(
      arrived.map(() => expect.stringContaining('Stripe-Signature')),
    );
    const read = arrived.flatMap((a) => (a.read.verified ? a.read.notices : []));
    const listed = (await listAll(s, cursor)).notices;
    const byId = (n: readonly ProcessorNotice[]) =>
      [...n].sort((a, b) => a.noticeId.localeCompare(b.noticeId));
    for (const charge of [debit, card]) {
      expect(ofCharge(listed, charge)).not.toEqual([]);
      expect(byId(ofCharge(read, charge))).toEqual(byId(ofCharge(listed, charge)));
    }
  });
});
