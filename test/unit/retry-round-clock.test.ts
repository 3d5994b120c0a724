/**
 * A retry round runs for its slot. Its answers schedule the next retry from the later of the
 * processor's answer and that slot: in the cloud the same hour; a round run ahead of its hour (a
 * non-production tick of a future slot) must not schedule the next retry inside the slot it ran
 * for, where a repeated tick of it would charge it at once (the retries e2e, red in CI).
 */
import type { AuthResponse } from '#contract/schemas/transactions';
import type { Payment } from '#domain/groups';
import type { retryDecision as RetryDecision } from '#core/attempts';

// core/attempts loads the configuration on import (through the merchant lookup).
process.env.TABLE_NAME ??= 'unit-test-table';
let retryDecision: typeof RetryDecision;
beforeAll(async () => {
  ({ retryDecision } = await import('#core/attempts'));
});

const declined = (processedAt: string) =>
  ({
    auth: {
      status: 'Declined',
      responseCode: '51',
      responseMessage: 'Insufficient funds',
      declineCategory: '2',
      processedAt,
    } as unknown as AuthResponse,
    txn: undefined,
  }) as unknown as Parameters<typeof RetryDecision>[1];

const payment = { paymentId: 'p', paymentGroupId: 'g' } as unknown as Payment;
const policy = { maxRetries: 3, intervalHours: 24 };

test('defect "a repeated tick of a retry slot run ahead of its hour charged the next retry at once"', async () => {
  // Attempt 2 answered today at 05:23 by a round run for tomorrow's 06:00 slot.
  const retry = await retryDecision(payment, declined('2026-11-26T05:23:00.000Z'), 2, {
    merchantId: 'm',
    retryPolicy: policy,
    retry: { round: 1, bound: '2026-11-27T06', groupDeleted: false, startedAt: '2026-11-26T05:22:00.000Z' },
  });
  expect(retry).toMatchObject({ status: 'scheduled' });
  expect(Date.parse(retry!.nextAttemptAt!)).toBeGreaterThanOrEqual(Date.parse('2026-11-28T06:00:00Z'));
});

test('a first attempt, and a retry-now round (every retry), count from the answer', async () => {
  for (const retry of [undefined, { round: 1, bound: '9999-12-31T23', groupDeleted: false, startedAt: '' }]) {
    const decided = await retryDecision(payment, declined('2026-11-26T05:23:00.000Z'), 1, {
      merchantId: 'm',
      retryPolicy: policy,
      ...(retry && { retry }),
    });
    expect(decided).toMatchObject({ status: 'scheduled' });
    const next = Date.parse(decided!.nextAttemptAt!);
    expect(next).toBeGreaterThanOrEqual(Date.parse('2026-11-27T05:23:00Z'));
    expect(next).toBeLessThan(Date.parse('2026-11-27T07:00:00Z'));
  }
});
