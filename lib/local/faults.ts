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

/** Enough to keep SES "down" for any test; a bound so that 1e308 is refused, not taken as N. */
const MAX_SES_FAILURES = 1_000_000;

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
    listActivity: (since, until) => processor.listActivity(since, until),
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

  const refuse = (message: string) => ({ status: 400, body: { message, responseCode: 400 } });
  return async (_req, raw) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw || '{}');
    } catch {
      return refuse('body is not valid JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      return refuse('body must be a JSON object');
    const body = parsed as Record<string, unknown>;
    const ids = body.crashAfterSale ?? [];
    const failures = body.sesFailures ?? 0;
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string'))
      return refuse('crashAfterSale must be an array of paymentIds');
    if (
      !Number.isSafeInteger(failures) ||
      (failures as number) < 0 ||
      (failures as number) > MAX_SES_FAILURES
    )
      return refuse(`sesFailures must be an integer from 0 to ${MAX_SES_FAILURES}`);
    for (const id of ids) crashAfterSale.add(id.toLowerCase());
    if (body.sesFailures !== undefined) sesFailures = failures as number;
    return { status: 200, body: { crashAfterSale: [...crashAfterSale], sesFailures } };
  };
}
