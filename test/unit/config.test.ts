import '#support/handlers/env';
import { loadConfig } from '#shared/config';

describe('the functions configuration', () => {
  it('gives every optional value its default', () => {
    expect(loadConfig({ TABLE_NAME: 't' })).toEqual({
      tableName: 't',
      stage: 'dev',
      serviceName: 'scheduled-payments',
      authzCacheSeconds: 30,
      duplicateWindowSeconds: 300,
      processor: 'sandbox',
      settlement: { periodSeconds: 3600, offsetSeconds: 1800 },
      sandboxLatencyMs: 0,
      processBatchSize: 250,
      processConcurrency: 16,
      processFanOut: 40,
      processFirstBatchSize: 16,
      processorRate: 1000,
      processorGroupRate: 200,
      processorMerchantRate: 400,
      settlementPollSeconds: 60,
      receiptsPageSize: 500,
      maxSendAttempts: 5,
      emailSendRate: 14,
      emailSendConcurrency: 1,
      maxNotReadyRetries: 140,
      emailRetryMaxDelaySeconds: 900,
      superviseAfterSeconds: 300,
      voidOrRefundBackgroundAbove: undefined,
      stateMachineArn: undefined,
      stripeApi: undefined,
      stripeMode: 'test',
      stripeSecretKey: undefined,
      voidOrRefundStateMachineArn: undefined,
      sesFromAddress: undefined,
      sesConfigurationSet: undefined,
      notificationQueueUrl: undefined,
      webhookQueueUrl: undefined,
      webhookSecretKey: undefined,
      idempotencyHashKey: undefined,
      webhookAllowLoopback: false,
      webhookRetryScale: 1,
      emitMetrics: true,
    });
  });

  it('writes the metrics unless EMIT_METRICS is exactly false (the local runtime)', () => {
    expect(loadConfig({ TABLE_NAME: 't', EMIT_METRICS: 'false' }).emitMetrics).toBe(false);
    for (const value of ['true', '0', 'no', ''])
      expect(loadConfig({ TABLE_NAME: 't', EMIT_METRICS: value }).emitMetrics).toBe(true);
  });

  it('allows loopback webhooks only when WEBHOOK_ALLOW_LOOPBACK is exactly true', () => {
    expect(loadConfig({ TABLE_NAME: 't', WEBHOOK_ALLOW_LOOPBACK: 'true' }).webhookAllowLoopback).toBe(true);
    for (const value of ['1', 'yes', 'TRUE', ''])
      expect(loadConfig({ TABLE_NAME: 't', WEBHOOK_ALLOW_LOOPBACK: value }).webhookAllowLoopback).toBe(false);
  });

  it('reads the void-or-refund background threshold as a whole number of at least 1', () => {
    const above = (value: string) =>
      loadConfig({ TABLE_NAME: 't', VOID_OR_REFUND_BACKGROUND_ABOVE: value }).voidOrRefundBackgroundAbove;
    expect(above('150')).toBe(150);
    expect(() => above('0')).toThrow(/VOID_OR_REFUND_BACKGROUND_ABOVE/);
    expect(() => above('1.5')).toThrow(/VOID_OR_REFUND_BACKGROUND_ABOVE/);
  });

  it('is frozen', () => {
    const config = loadConfig({ TABLE_NAME: 't' });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.settlement)).toBe(true);
  });

  it.each([
    [{}, 'missing required environment variable TABLE_NAME'],
    [{ TABLE_NAME: '' }, 'missing required environment variable TABLE_NAME'],
    [{ TABLE_NAME: 't', SERVICE_STAGE: 'qa' }, 'stage must be one of dev, prod, got "qa"'],
    [{ TABLE_NAME: 't', PROCESS_BATCH_SIZE: '0' }, 'PROCESS_BATCH_SIZE must be an integer >= 1, got "0"'],
    [{ TABLE_NAME: 't', AUTHZ_CACHE_SECONDS: 'soon' }, 'AUTHZ_CACHE_SECONDS must be an integer >= 0'],
    [
      { TABLE_NAME: 't', WEBHOOK_RETRY_SCALE: '2' },
      'WEBHOOK_RETRY_SCALE must be a number in (0, 1], got "2"',
    ],
    [
      { TABLE_NAME: 't', WEBHOOK_RETRY_SCALE: '0' },
      'WEBHOOK_RETRY_SCALE must be a number in (0, 1], got "0"',
    ],
    [{ TABLE_NAME: 't', STRIPE_MODE: 'sandbox' }, 'STRIPE_MODE must be live or test, got "sandbox"'],
  ])('refuses %j with a message naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
