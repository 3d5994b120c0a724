/**
 * The notices backstop is bounded by its deadline (contract/notices.ts NOTICE_BACKSTOP_JOB: no
 * page listed, and no held notice or follow-up started, after its budget of 40 s; the function's
 * timeout is 55 s). The stores are stand-ins whose every step takes STEP_MS on the test clock (a
 * processor call, a series' suspensions): what each run starts is what it may start.
 */
import { useTestClock } from '#support/clock';
import { useClock } from '#shared/clock';

process.env.TABLE_NAME ??= 'unit-test-table';

const START = Date.parse('2026-05-14T10:00:00.000Z');
const DEADLINE = START + 40_000;
/** Each step of the work takes this long. */
const STEP_MS = 15_000;
const clock = useTestClock(START);
/** What was started, in order. */
const started: string[] = [];
const dropped: string[] = [];
/** Follow-ups put off by a pass, with when they are due again. */
const later: [string, string][] = [];
/** Sales whose reading fails (a follow-up step that cannot finish now). */
const failing = new Set<string>();

const followUps = Array.from({ length: 6 }, (_, i) => ({
  noticeId: `f${i}`,
  dueAt: new Date(START - 60_000).toISOString(),
  work: { kind: 'return-email', merchantId: '32350000001', payorId: 'p', transactionId: `t${i}` },
}));
/** Held notices of one object (applied one after another, in their order). */
const held = Array.from({ length: 6 }, (_, i) => ({
  notice: { noticeId: `h${i}`, objectId: 'py_1', sequence: i + 1, kind: 'debit_cleared' },
  heldAt: new Date(START - 120_000).toISOString(),
  tries: 1,
}));
let heldDue: typeof held = [];
let followUpsDue: typeof followUps = [];

jest.mock('#core/processor', () => ({ paymentProcessor: () => ({}) }));
jest.mock('#store/notices', () => ({
  noticeStore: () => ({
    dueHolds: async () => heldDue,
    dueFollowUps: async () => followUpsDue,
    followUp: async (id: string) => followUps.find((i) => i.noticeId === id),
    followUpDone: async () => undefined,
    followUpLater: async (noticeId: string, dueAt: string) => {
      later.push([noticeId, dueAt]);
      return true;
    },
    // A held notice's application starts by reading its mark: applied before, here.
    isMarked: async (noticeId: string) => {
      started.push(noticeId);
      clock.advance(STEP_MS);
      return true;
    },
    dropHold: async (noticeId: string) => {
      dropped.push(noticeId);
    },
  }),
}));
jest.mock('#store/transactions', () => ({
  transactionStore: () => ({
    // A return e-mail's follow-up reads the sale first: none (nothing to send), after STEP_MS.
    find: async (transactionId: string) => {
      started.push(transactionId);
      clock.advance(STEP_MS);
      if (failing.has(transactionId)) throw new Error(`${transactionId} cannot be read now`);
      return undefined;
    },
  }),
}));

let runNoticeBackstop: typeof import('#core/notice-backstop').runNoticeBackstop;
beforeAll(async () => {
  ({ runNoticeBackstop } = await import('#core/notice-backstop'));
});
beforeEach(() => {
  clock.set(START);
  started.length = 0;
  dropped.length = 0;
  later.length = 0;
  failing.clear();
});
afterAll(() => useClock(undefined));

test('defect: the notices backstop started every due follow-up of its batch after its deadline (up to 100, each a processor call or more)', async () => {
  heldDue = [];
  followUpsDue = followUps;
  const report = await runNoticeBackstop(new Date(START), DEADLINE);
  // 0 s, 15 s and 30 s are before the deadline; the 4th would start at 45 s.
  expect(started).toEqual(['t0', 't1', 't2']);
  expect(report.followUps).toBe(3);
});

test('defect: the notices backstop tried every due held notice of its batch after its deadline: those not started stay held, and no follow-up starts after them', async () => {
  heldDue = held;
  followUpsDue = followUps;
  const report = await runNoticeBackstop(new Date(START), DEADLINE);
  expect(started).toEqual(['h0', 'h1', 'h2']);
  // Applied before: no longer held. The others keep their holds for the next run.
  expect(dropped).toEqual(['h0', 'h1', 'h2']);
  expect(report.held.applied_before).toBe(3);
});

test('defect: a follow-up a pass could not finish stayed due first, so that a hundred waiting ones (a retry round charging) kept every newer one from the backstop: it goes behind the work due at the pass', async () => {
  heldDue = [];
  followUpsDue = [followUps[0]!, followUps[1]!, followUps[2]!];
  failing.add('t0').add('t1');
  const report = await runNoticeBackstop(new Date(START), Number.POSITIVE_INFINITY);
  expect(report.followUps).toBe(1);
  // Due again from the pass's time: after every follow-up written before it, at the next pass.
  expect(later).toEqual([
    ['f0', new Date(START).toISOString()],
    ['f1', new Date(START).toISOString()],
  ]);
});
