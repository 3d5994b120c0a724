/**
 * The functions' webhook settings for an integration file on its own table: a sealing key of its
 * own (a key file in a temporary directory), receivers on loopback allowed, the retry schedule
 * shortened a thousandfold; the configuration reloaded.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServiceEvent } from '#domain/events';
import { reloadConfigForTests } from '#shared/config';
import type { EventMessage } from '#shared/webhook-queue';

export function useWebhookTestEnv(tableName: string, prefix: string): void {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  writeFileSync(join(dir, 'key'), randomBytes(32).toString('base64'));
  Object.assign(process.env, {
    TABLE_NAME: tableName,
    SERVICE_STAGE: 'dev',
    WEBHOOK_SECRET_KEY: `file:${join(dir, 'key')}`,
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    WEBHOOK_RETRY_SCALE: '0.001',
  });
  reloadConfigForTests();
}

/** The webhook queue's message for a stored event, as the outbox forwarder sends it (its fan-out). */
export const eventMessage = (e: ServiceEvent): EventMessage => ({
  kind: 'event',
  eventId: e.id,
  merchantId: e.merchantId,
  objectId: e.objectId,
  sequence: e.sequence,
  type: e.type,
  createdAt: e.createdAt,
});
