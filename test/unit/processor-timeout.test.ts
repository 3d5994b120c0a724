/**
 * The adapter as functions get it (lambdas/processor/timeout.ts): every call bounded, and every
 * optional call the adapter has kept. A wrapper that lists the calls it forwards drops a new one
 * silently: the inbound webhook route answered 404 on a Stripe stage until the wrapper forwarded
 * `readWebhook`.
 */
import type { PaymentProcessor } from '#processor/processor';
import { fixedAccounts } from '#processor/stripe/accounts';
import { STRIPE_TRAITS } from '#processor/stripe/traits';
import { withProcessorTimeout } from '#processor/timeout';

/** An adapter with every call of the port, each answering its own name. */
const everyCall = (): Required<PaymentProcessor> => {
  const named = (name: string) => jest.fn(async () => name);
  return {
    tokenize: named('tokenize'),
    sale: named('sale'),
    void: named('void'),
    refund: named('refund'),
    reverseUnanswered: named('reverseUnanswered'),
    settleNow: named('settleNow'),
    settlementTime: jest.fn(() => 'settlementTime'),
    listActivity: named('listActivity'),
    accountUpdates: named('accountUpdates'),
    listNotices: named('listNotices'),
    noticesNow: named('noticesNow'),
    readWebhook: named('readWebhook'),
    voidsBankDebits: false,
    voidIsRefund: true,
  } as unknown as Required<PaymentProcessor>;
};

test('defect: the timeout wrapper dropped readWebhook: every call of the adapter, optional ones included, is forwarded', async () => {
  const inner = everyCall();
  const wrapped = withProcessorTimeout(inner, 1000) as unknown as Record<
    string,
    (...a: unknown[]) => unknown
  >;
  expect(Object.keys(wrapped).sort()).toEqual(Object.keys(inner).sort());
  for (const [name, value] of Object.entries(inner))
    if (typeof value === 'function') await expect(Promise.resolve(wrapped[name]!({}))).resolves.toBe(name);
    else expect(wrapped[name]).toBe(value);
});

test('an adapter without the optional calls is wrapped without them', () => {
  const { settleNow: _s, listNotices: _l, noticesNow: _n, readWebhook: _r, ...required } = everyCall();
  expect(Object.keys(withProcessorTimeout(required, 1000)).sort()).toEqual(Object.keys(required).sort());
});

test('defect: the wrappers dropped voidIsRefund: the Stripe adapter as functions get it (PROCESSOR=stripe, loaded on use, then bounded) says its void is a refund, so a dispute of a voided sale is recorded', () => {
  const saved = { ...process.env };
  Object.assign(process.env, { TABLE_NAME: 'unit-table', PROCESSOR: 'stripe', STRIPE_MODE: 'test' });
  try {
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { configuredProcessor } = require('#processor/index') as typeof import('#processor/index');
      const configured = configuredProcessor({ merchantAccounts: () => fixedAccounts({}) });
      expect(configured).toMatchObject({ voidIsRefund: true, voidsBankDebits: false });
      expect(STRIPE_TRAITS).toEqual({ voidIsRefund: true, voidsBankDebits: false });
    });
  } finally {
    process.env = saved;
  }
});

test('defect: the sweeper took a sale Pending for 15 s as stale on every processor, while an API function at Stripe runs up to 27 s: its bound is the processor’s API timeout and a margin', () => {
  const saved = { ...process.env };
  try {
    for (const [processor, bound] of [
      ['sandbox', 15],
      ['stripe', 32],
    ] as const) {
      Object.assign(process.env, { TABLE_NAME: 'unit-table', PROCESSOR: processor, STRIPE_MODE: 'test' });
      jest.isolateModules(() => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { staleAfterSeconds } = require('#core/sweeper') as typeof import('#core/sweeper');
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { PROCESSOR_TIMING } = require('#contract/processor') as typeof import('#contract/processor');
        expect(staleAfterSeconds()).toBe(bound);
        expect(staleAfterSeconds()).toBeGreaterThan(PROCESSOR_TIMING[processor].apiTimeoutSeconds);
      });
    }
  } finally {
    process.env = saved;
  }
});
