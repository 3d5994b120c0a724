/**
 * Receiving webhooks (docs/integrating.md "Webhooks"): `verifyWebhook` checks a delivery's Standard
 * Webhooks signature with the `standardwebhooks` package (the signature over `id.timestamp.body`,
 * a timestamp within 5 minutes) and returns the event typed by its `type`, so a `switch` on
 * `event.type` narrows `event.data` to the object the event is about.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { Schemas } from './types';

export { WebhookVerificationError };

type EventBase = Schemas['Event'];
/** Every event type the service sends (the catalogue of docs/integrating.md). */
export type EventType = EventBase['type'];

/** The object each event type's `data` holds: the response of that object's GET. */
export interface EventData {
  group: Schemas['Group'];
  payment: Schemas['Payment'];
  transaction: Schemas['Transaction'];
  refund: Schemas['Refund'];
  payor: Schemas['Payor'];
  payment_method: Schemas['SavedPaymentMethod'];
}

type DataOf<T extends EventType> = T extends `${infer O}.${string}`
  ? O extends keyof EventData
    ? EventData[O]
    : Record<string, unknown>
  : never;

/** An event as delivered: a union over `type`, each with its own `data`. */
export type WebhookEvent = {
  [T in EventType]: Omit<EventBase, 'type' | 'data'> & { type: T; data: DataOf<T> };
}[EventType];

/** Request headers as Node (`req.headers`), fetch (`Headers`) or a plain record give them. */
export type WebhookHeaders =
  Headers | Record<string, string | string[] | undefined> | { get(name: string): string | null };

const NAMES = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

function headerOf(headers: WebhookHeaders, name: string): string {
  if (typeof (headers as { get?: unknown }).get === 'function')
    return (headers as { get(name: string): string | null }).get(name) ?? '';
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}

/**
 * Verifies one delivery and returns its event. `payload` is the raw body exactly as received (verify
 * before parsing: re-serialised JSON no longer matches). `secrets` is the endpoint's `whsec_`
 * secret, or several while one is being rotated: any one verifying is enough. Throws
 * WebhookVerificationError for a missing or wrong signature or a timestamp over 5 minutes away.
 */
export function verifyWebhook(
  payload: string | Buffer,
  headers: WebhookHeaders,
  secrets: string | readonly string[],
): WebhookEvent {
  const body = typeof payload === 'string' ? payload : payload.toString('utf8');
  const signed = Object.fromEntries(NAMES.map((name) => [name, headerOf(headers, name)]));
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  if (list.length === 0) throw new WebhookVerificationError('no secret to verify with');
  let last: unknown;
  for (const secret of list) {
    try {
      return new Webhook(secret).verify(body, signed) as WebhookEvent;
    } catch (error) {
      last = error;
    }
  }
  throw last instanceof WebhookVerificationError ? last : new WebhookVerificationError(String(last));
}
