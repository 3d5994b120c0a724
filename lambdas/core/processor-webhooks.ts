/**
 * A processor's webhook (docs/architecture.md "Notices", its first way in): verified by the
 * processor's adapter before anything of it is read, then applied through the same path as the
 * backstop's listing (core/notices.ts), each notice once. The processor is told 200 once the
 * notices are applied or kept (a notice whose record does not exist yet is held and tried again),
 * 400 when the webhook does not verify, so that it neither stops sending nor resends what was
 * received. An event of an unknown account or of a kind that is not a notice is answered 200 and
 * counted.
 */
import { paymentProcessor } from '#core/processor';
import { ProcessorUnavailableError, type WebhookRequest } from '#processor/processor';
import { needed } from '#shared/config';
import { readSecretSetting } from '#shared/secret-setting';
import { BadRequestError, NotFoundError } from '#shared/errors';
import { logger } from '#shared/logger';
import { clock } from '#shared/clock';
import { receiveNotices, type NoticeCounts } from './notices';

interface WebhookReceipt {
  received: true;
  /** What its notices came to (none: `ignored` says why). */
  notices: NoticeCounts;
  ignored?: 'unknown_account' | 'not_a_notice';
}

/** How long a signing secret read stands before a refused signature may read it again. */
const SECRET_REREAD_MS = 60_000;

/**
 * The endpoint's signing secret, read where PROCESSOR_WEBHOOK_SECRET names it: once, and again
 * when asked `fresh` (a signature it refused: operators roll the secret) a minute or more after
 * the last read, so that a flood of forged webhooks costs one read a minute. One that cannot be
 * read leaves the processor unavailable (503: the processor sends the webhook again).
 */
let secret: Promise<string> | undefined;
let secretReadAt = Number.NEGATIVE_INFINITY;
const signingSecret = (fresh = false): Promise<string> => {
  if (fresh && clock.nowMs() - secretReadAt >= SECRET_REREAD_MS) secret = undefined;
  if (secret === undefined) {
    secretReadAt = clock.nowMs();
    secret = readSecretSetting(needed('processorWebhookSecret'), 'PROCESSOR_WEBHOOK_SECRET').catch(
      (error: unknown) => {
        secret = undefined;
        throw Object.assign(new ProcessorUnavailableError('the webhook signing secret cannot be read'), {
          cause: error,
        });
      },
    );
  }
  return secret;
};

export async function receiveProcessorWebhook(
  request: Omit<WebhookRequest, 'signingSecret'>,
  now: Date,
): Promise<WebhookReceipt> {
  const processor = paymentProcessor();
  if (!processor.readWebhook) throw new NotFoundError('no such route');
  const reading = await processor.readWebhook({ ...request, signingSecret });
  if (!reading.verified) {
    // Counted in the logs (a flood of them is someone probing the route, or a rolled secret).
    logger.warn('processor webhook refused', { why: reading.why });
    throw new BadRequestError(reading.why);
  }
  const notices = await receiveNotices(reading.notices, 'webhook', now);
  if (reading.ignored !== undefined) {
    logger.info('processor webhook ignored', { ignored: reading.ignored });
  }
  return { received: true, notices, ...(reading.ignored !== undefined && { ignored: reading.ignored }) };
}
