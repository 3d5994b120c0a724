/**
 * A secret named by a setting, as the idempotency hash key and the Stripe secret key are:
 *
 * - `secretsmanager:<secret ARN>` (the cloud): the secret's string, read with the function's role;
 * - `file:<path>` (the local runtime, tests): the file's text.
 *
 * The value is never logged or put in an error: a failure names the setting's kind only.
 */
import { readFileSync } from 'node:fs';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { awsClient } from './tracer';

/** The secret's text, trimmed; throws (without the value) when it cannot be read. */
export async function readSecretSetting(setting: string, what: string): Promise<string> {
  let text: string | undefined;
  if (setting.startsWith('secretsmanager:')) {
    const client = awsClient(new SecretsManagerClient({ maxAttempts: 3 }));
    const out = await client.send(new GetSecretValueCommand({ SecretId: setting.slice(15) }));
    text = out.SecretString;
  } else if (setting.startsWith('file:')) {
    text = readFileSync(setting.slice(5), 'utf8');
  } else {
    throw new Error(`${what} must be named as secretsmanager:<secret ARN> or file:<path>`);
  }
  return (text ?? '').trim();
}
