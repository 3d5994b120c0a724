/**
 * SANDBOX_LATENCY_MS (docs/decisions.md): the sandbox answers every call after that long, a pause
 * taken on the service's clock; the test clock records it, so the latency is asserted exactly.
 */
import '#support/handlers/env';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { useClock } from '#shared/clock';
import { loadConfig } from '#shared/config';
import { SandboxProcessor } from '#processor/sandbox';
import { useTestClock, type TestClock } from '#support/clock';

const ddbMock = mockClient(DynamoDBDocumentClient);
const db = DynamoDBDocumentClient.from(
  new DynamoDBClient({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } }),
);
const schedule = { periodSeconds: 3600, offsetSeconds: 1800 };

let testClock: TestClock;
beforeEach(() => {
  ddbMock.reset();
  ddbMock.on(PutCommand).resolves({});
  ddbMock.on(GetCommand).resolves({}); // the timeout reversal's read of its entry: none
  testClock = useTestClock('2026-03-02T10:00:00Z');
});
afterEach(() => useClock(undefined));

/** The pauses `call` took on the clock before it answered, and the clock's move across it. */
async function paused(call: () => Promise<unknown>): Promise<{ slept: number[]; movedMs: number }> {
  testClock.slept.length = 0;
  const start = testClock.nowMs();
  await call();
  return { slept: [...testClock.slept], movedMs: testClock.nowMs() - start };
}

describe('SANDBOX_LATENCY_MS', () => {
  it('is read into the configuration: 0 by default, a whole number of milliseconds', () => {
    expect(loadConfig({ TABLE_NAME: 't' }).sandboxLatencyMs).toBe(0);
    expect(loadConfig({ TABLE_NAME: 't', SANDBOX_LATENCY_MS: '300' }).sandboxLatencyMs).toBe(300);
    expect(() => loadConfig({ TABLE_NAME: 't', SANDBOX_LATENCY_MS: '-1' })).toThrow(
      'SANDBOX_LATENCY_MS must be an integer >= 0',
    );
  });

  it('delays every call (tokenize, sale, void, refund, reversal) by the latency; 0 answers at once', async () => {
    const slow = new SandboxProcessor(db, 't', schedule, 120);
    const { token } = await slow.tokenize({
      merchantId: '32350000001',
      payorId: 'payor-1',
      kind: 'card',
      number: '4111111111111111',
      expiryMonth: 12,
      expiryYear: 2030,
    });
    const sale = {
      idempotencyKey: 'k1',
      keyFirstUsedAt: testClock.now().toISOString(),
      merchantId: '32350000001',
      token,
      amountCents: 100,
      allowPartial: false,
    };
    const reversal = {
      idempotencyKey: 'r1',
      merchantId: '32350000001',
      processorTransactionId: 'sbx_1',
      amountCents: 100,
    };
    const calls: [string, () => Promise<unknown>][] = [
      [
        'tokenize',
        () =>
          slow.tokenize({
            merchantId: '32350000001',
            payorId: 'payor-1',
            kind: 'bank',
            routingNumber: '011000015',
            accountNumber: '000123456789',
            accountType: 'CHECKING',
          }),
      ],
      ['sale', () => slow.sale(sale)],
      ['void', () => slow.void(reversal)],
      ['refund', () => slow.refund({ ...reversal, idempotencyKey: 'r2' })],
      ['reverseUnanswered', () => slow.reverseUnanswered({ idempotencyKey: 'k2' })],
    ];
    for (const [name, call] of calls) {
      expect([name, await paused(call)]).toEqual([name, { slept: [120], movedMs: 120 }]);
    }
    // The answer comes after the pause: a sale is processed at the time the latency ends.
    const before = testClock.nowMs();
    const answered = await slow.sale({ ...sale, idempotencyKey: 'k4' });
    expect(answered).toMatchObject({ processedAt: new Date(before + 120).toISOString() });
    const fast = new SandboxProcessor(db, 't', schedule);
    expect(await paused(() => fast.sale({ ...sale, idempotencyKey: 'k3' }))).toEqual({
      slept: [],
      movedMs: 0,
    });
  });
});
