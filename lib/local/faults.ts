/**
 * Local-only fault injection, for the tests a real deployment cannot run on demand:
 *
 *   POST /__local/faults {"crashAfterSale": [paymentId, ...], "sesFailures": N}
 *
 * - crashAfterSale: the next processor sale of each payment succeeds at the processor and then
 *   crashes before the service writes anything (what a retry must survive without a second charge);
 * - sesFailures: the next N e-mail sends fail as a throttled SES would (N large: SES down).
 *
 * The wrappers are installed around the configured processor and mailer through their test hooks;
 * nothing of this exists in lambdas/ or in the cloud.
 */
import type { LocalRoute } from './http-server';

export async function installFaults(): Promise<LocalRoute> {
  const { paymentProcessor, useProcessor } = await import('../../lambdas/processor/index');
  const { emailSender, useMailer } = await import('../../lambdas/shared/mailer');
  const processor = paymentProcessor();
  const mailer = emailSender();
  const crashAfterSale = new Set<string>();
  let sesFailures = 0;

  useProcessor({
    tokenize: (r) => processor.tokenize(r),
    void: (r) => processor.void(r),
    refund: (r) => processor.refund(r),
    reverseUnanswered: (r) => processor.reverseUnanswered(r),
    settlementTime: (t) => processor.settlementTime(t),
    async sale(request) {
      const result = await processor.sale(request);
      const paymentId = request.idempotencyKey.replace(/^payment:/, '');
      if (crashAfterSale.delete(paymentId))
        throw new Error(`injected crash after the processor charged payment ${paymentId}`);
      return result;
    },
  });
  useMailer({
    async send(to, email) {
      if (sesFailures > 0) {
        sesFailures--;
        throw Object.assign(new Error('Maximum sending rate exceeded (injected)'), {
          name: 'TooManyRequestsException',
        });
      }
      return mailer.send(to, email);
    },
  });

  return async (_req, raw) => {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw || '{}') as Record<string, unknown>;
    } catch {
      return { status: 400, body: { message: 'body is not valid JSON', responseCode: 400 } };
    }
    const ids = body.crashAfterSale ?? [];
    const failures = body.sesFailures ?? 0;
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
      return {
        status: 400,
        body: { message: 'crashAfterSale must be an array of paymentIds', responseCode: 400 },
      };
    }
    if (typeof failures !== 'number' || !Number.isInteger(failures) || failures < 0) {
      return { status: 400, body: { message: 'sesFailures must be an integer >= 0', responseCode: 400 } };
    }
    for (const id of ids) crashAfterSale.add(id.toLowerCase());
    if (body.sesFailures !== undefined) sesFailures = failures;
    return { status: 200, body: { crashAfterSale: [...crashAfterSale], sesFailures } };
  };
}
