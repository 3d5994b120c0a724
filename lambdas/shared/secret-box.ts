/**
 * Webhook secrets at rest (docs/decisions.md "Webhook secrets"): sealed before they are stored,
 * opened only to sign. One small interface, chosen by configuration as the processor is
 * (WEBHOOK_SECRET_KEY), so that no handler has a local branch:
 *
 * - `kms:<key id or ARN>` (the cloud): AWS KMS Encrypt/Decrypt with the customer-managed key,
 *   the merchant and endpoint as encryption context (a sealed secret copied to another endpoint
 *   does not open);
 * - `file:<path>` (the local runtime): AES-256-GCM with a 32-byte key kept in that file (made
 *   by the runtime in its data directory), the same context as additional data.
 *
 * Opened secrets are cached in the container for a few minutes (a delivery signs with them), by
 * their sealed text: a rotation seals a new one, so the cache never serves an old secret as new.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { needed } from './config';
import { awsClient } from './tracer';
import { clock } from './clock';

type SecretContext = Record<string, string>;

interface SecretBox {
  seal(plain: string, context: SecretContext): Promise<string>;
  open(sealed: string, context: SecretContext): Promise<string>;
}

class KmsSecretBox implements SecretBox {
  private readonly client = awsClient(new KMSClient({ maxAttempts: 3 }));
  constructor(private readonly keyId: string) {}

  async seal(plain: string, context: SecretContext): Promise<string> {
    const out = await this.client.send(
      new EncryptCommand({
        KeyId: this.keyId,
        Plaintext: Buffer.from(plain, 'utf8'),
        EncryptionContext: context,
      }),
    );
    return `kms:${Buffer.from(out.CiphertextBlob!).toString('base64')}`;
  }

  async open(sealed: string, context: SecretContext): Promise<string> {
    if (!sealed.startsWith('kms:')) throw new Error('not a KMS-sealed secret');
    const out = await this.client.send(
      new DecryptCommand({
        KeyId: this.keyId,
        CiphertextBlob: Buffer.from(sealed.slice(4), 'base64'),
        EncryptionContext: context,
      }),
    );
    return Buffer.from(out.Plaintext!).toString('utf8');
  }
}

const aad = (context: SecretContext): Buffer =>
  Buffer.from(JSON.stringify(Object.entries(context).sort(([a], [b]) => a.localeCompare(b))));

export class FileSecretBox implements SecretBox {
  private key: Buffer | undefined;
  constructor(private readonly path: string) {}

  private keyBytes(): Buffer {
    if (!this.key) {
      const key = Buffer.from(readFileSync(this.path, 'utf8').trim(), 'base64');
      if (key.length !== 32) throw new Error(`${this.path} does not hold a 32-byte base64 key`);
      this.key = key;
    }
    return this.key;
  }

  async seal(plain: string, context: SecretContext): Promise<string> {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keyBytes(), iv).setAAD(aad(context));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `aesgcm:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  async open(sealed: string, context: SecretContext): Promise<string> {
    if (!sealed.startsWith('aesgcm:')) throw new Error('not an AES-GCM-sealed secret');
    const bytes = Buffer.from(sealed.slice(7), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.keyBytes(), bytes.subarray(0, 12))
      .setAAD(aad(context))
      .setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
  }
}

/** The box WEBHOOK_SECRET_KEY names. */
function secretBoxOf(setting: string): SecretBox {
  if (setting.startsWith('kms:')) return new KmsSecretBox(setting.slice(4));
  if (setting.startsWith('file:')) return new FileSecretBox(setting.slice(5));
  throw new Error('WEBHOOK_SECRET_KEY must be kms:<key id> or file:<path>');
}

const OPENED_TTL_MS = 5 * 60_000;

/** A box that keeps what it opened for a few minutes (per container). */
class CachingBox implements SecretBox {
  private readonly opened = new Map<string, { plain: string; until: number }>();
  constructor(private readonly inner: SecretBox) {}
  seal(plain: string, context: SecretContext): Promise<string> {
    return this.inner.seal(plain, context);
  }
  async open(sealed: string, context: SecretContext): Promise<string> {
    const key = `${JSON.stringify(context)}|${sealed}`;
    const hit = this.opened.get(key);
    if (hit && hit.until > clock.nowMs()) return hit.plain;
    const plain = await this.inner.open(sealed, context);
    if (this.opened.size > 1000) this.opened.clear();
    this.opened.set(key, { plain, until: clock.nowMs() + OPENED_TTL_MS });
    return plain;
  }
}

let box: SecretBox | undefined;

export const secretBox = (): SecretBox => (box ??= new CachingBox(secretBoxOf(needed('webhookSecretKey'))));
