/**
 * Sending e-mail: SES v2 with the sender address and configuration set from stack configuration
 * (SES_FROM_ADDRESS, SES_CONFIGURATION_SET). Locally the SDK is pointed at aws-ses-v2-local with
 * AWS_ENDPOINT_URL_SESV2.
 */
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { config, needed } from './config';
import { awsClient } from './tracer';

/**
 * The header that carries an e-mail's stable id (its outbox item's id): delivery is at least once
 * (docs/decisions.md, "E-mail delivery: at least once"), and a repeated send of one outbox item
 * carries the same id, so that a receiving system or a person can tell a repeat from a new e-mail.
 */
export const MESSAGE_ID_HEADER = 'X-Scheduled-Payments-Message-Id';

/** An e-mail as sent: its subject and its two bodies (domain/notifications.ts renders them). */
interface Email {
  subject: string;
  text: string;
  html: string;
}

interface Mailer {
  /** Sends `email` to `to`; `messageId` is the outbox item's id, the same on every attempt. */
  send(to: string, email: Email, messageId: string): Promise<{ messageId: string }>;
}

class SesMailer implements Mailer {
  private readonly client = awsClient(new SESv2Client({ maxAttempts: 3 }));
  private readonly from = needed('sesFromAddress');
  private readonly configurationSet = config().sesConfigurationSet;

  async send(to: string, email: Email, messageId: string): Promise<{ messageId: string }> {
    const out = await this.client.send(
      new SendEmailCommand({
        FromEmailAddress: this.from,
        Destination: { ToAddresses: [to] },
        ConfigurationSetName: this.configurationSet,
        Content: {
          Simple: {
            Subject: { Data: email.subject, Charset: 'UTF-8' },
            Body: {
              Text: { Data: email.text, Charset: 'UTF-8' },
              Html: { Data: email.html, Charset: 'UTF-8' },
            },
            // SES sets its own Message-ID per send; this one is ours and never changes.
            Headers: [{ Name: MESSAGE_ID_HEADER, Value: messageId }],
          },
        },
      }),
    );
    return { messageId: out.MessageId ?? 'unknown' };
  }
}

/**
 * Whether a send failed because SES is sending too fast for the account, not because it refused
 * this message: SES v2's TooManyRequestsException ("Maximum sending rate exceeded"), the SDK's
 * throttling names, and the daily quota (it passes with time too). A throttled send is no attempt.
 */
export function isThrottle(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    /^(TooManyRequests(Exception)?|Throttling(Exception)?|ThrottledException)$/.test(error.name) ||
    /maximum sending rate exceeded|daily message quota exceeded/i.test(error.message)
  );
}

let mailer: Mailer | undefined;

export function emailSender(): Mailer {
  mailer ??= new SesMailer();
  return mailer;
}

/** Test hook (and the local runtime's fault injection): use this mailer instead of SES. */
export const useMailer = (m: Mailer | undefined): void => {
  mailer = m;
};
