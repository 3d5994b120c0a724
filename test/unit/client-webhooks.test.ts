/**
 * The client's `verifyWebhook` (issue 18 item 6): a delivery signed as the service signs it
 * (Standard Webhooks, the `standardwebhooks` package) verifies and comes back typed by `type`;
 * a wrong secret, a changed body or an old timestamp throws; during a rotation either secret does.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError, type WebhookEvent } from '../../client/index';

const secret = () => `whsec_${randomBytes(24).toString('base64')}`;

const event = {
  id: 'evt_0123456789abcdef0123456789abcdef',
  type: 'payment.approved',
  createdAt: '2030-01-01T09:00:00.000Z',
  merchantId: '32350000001',
  objectId: '01890a5d-ac96-774b-bcce-b302099a8057',
  sequence: 3,
  data: { paymentId: '01890a5d-ac96-774b-bcce-b302099a8057', amount: 12.5 },
};

function signed(key: string, body = JSON.stringify(event), at = new Date()) {
  const id = event.id;
  return {
    body,
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(key).sign(id, at, body),
    },
  };
}

test('a signed delivery verifies and comes back as the event', () => {
  const key = secret();
  const { body, headers } = signed(key);
  expect(verifyWebhook(body, headers, key)).toEqual(event);
  // Buffers, fetch Headers and headers in any case are read the same.
  const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
  expect(verifyWebhook(Buffer.from(body), upper, key)).toEqual(event);
  expect(verifyWebhook(body, new Headers(headers), key)).toEqual(event);
});

test('during a rotation either secret verifies; none of them: the library error', () => {
  const [old, current] = [secret(), secret()];
  const { body, headers } = signed(old);
  expect(verifyWebhook(body, headers, [current, old]).id).toBe(event.id);
  expect(() => verifyWebhook(body, headers, [current])).toThrow(WebhookVerificationError);
  expect(() => verifyWebhook(body, headers, [])).toThrow(WebhookVerificationError);
});

test('a changed body, a missing signature or a timestamp 10 minutes old is refused', () => {
  const key = secret();
  const { body, headers } = signed(key);
  expect(() => verifyWebhook(body.replace('12.5', '125'), headers, key)).toThrow(WebhookVerificationError);
  expect(() => verifyWebhook(body, { ...headers, 'webhook-signature': undefined }, key)).toThrow(
    WebhookVerificationError,
  );
  const stale = signed(key, body, new Date(Date.now() - 10 * 60_000));
  expect(() => verifyWebhook(stale.body, stale.headers, key)).toThrow(WebhookVerificationError);
});

test("the event's type narrows its data", () => {
  const key = secret();
  const { body, headers } = signed(key);
  const received: WebhookEvent = verifyWebhook(body, headers, key);
  const describe = (e: WebhookEvent): string => {
    switch (e.type) {
      case 'payment.approved':
        return `payment ${e.data.paymentId} approved`;
      case 'group.processed':
        return `group ${e.data.paymentGroupId}`;
      default:
        return e.type;
    }
  };
  expect(describe(received)).toBe(`payment ${event.data.paymentId} approved`);
});
