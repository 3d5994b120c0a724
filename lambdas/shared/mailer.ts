/**
 * Sending e-mail: SES v2 with the sender address and configuration set from stack configuration
 * (SES_FROM_ADDRESS, SES_CONFIGURATION_SET). Locally the SDK is pointed at aws-ses-v2-local with
 * AWS_ENDPOINT_URL_SESV2.
 */
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import type { RenderedEmail } from '#domain/notifications';
import { config, needed } from './config';
import { tracer } from './tracer';

export interface Mailer {
  send(to: string, email: RenderedEmail): Promise<{ messageId: string }>;
}

class SesMailer implements Mailer {
  private readonly client = tracer.captureAWSv3Client(new SESv2Client({ maxAttempts: 3 }));
  private readonly from = needed('sesFromAddress');
  private readonly configurationSet = config().sesConfigurationSet;

  async send(to: string, email: RenderedEmail): Promise<{ messageId: string }> {
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
          },
        },
      }),
    );
    return { messageId: out.MessageId ?? 'unknown' };
  }
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
