/**
 * A real webhook receiver on loopback for the tests: an HTTP server on 127.0.0.1 that verifies
 * every request with the `standardwebhooks` package (as an integrator's receiver would), records
 * it, and answers what the test's `answer` says (a status, `hang`: never answer, a status after a
 * delay, or once a promise gives it); and `until`,
 * the tests' bounded wait for what a receiver should have got by now.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { sleep } from '#shared/clock';

export interface Received {
  /** Arrival order among every request this receiver got. */
  n: number;
  /** When it arrived (its body read), epoch ms. */
  at: number;
  path: string;
  id: string;
  timestamp: string;
  signature: string;
  contentType: string | undefined;
  body: string;
  event: { id: string; type: string; objectId: string; sequence: number; merchantId: string; data: unknown };
  /** True when the signature verifies with every secret of `secrets` at the time it arrived. */
  verified: boolean;
  /** What it was answered (undefined: left hanging). */
  status?: number;
}

/**
 * A status, `hang` (never answer), a status sent `afterMs` later (a slow receiver), or a promise
 * of one (a blocked receiver: it answers when the test releases it).
 */
export type Answer = (
  request: Received,
  attemptOfThisId: number,
) => number | 'hang' | { status: number; afterMs: number } | Promise<number>;

export interface Receiver {
  readonly url: (path: string) => string;
  readonly received: Received[];
  /** Secrets each request must verify with (one Webhook each); set after the endpoint exists. */
  secrets: string[];
  answer: Answer;
  /**
   * The receiving side's clock (epoch ms) when it is not the real one (a test clock): set, the
   * timestamp is checked against it with the package's 5-minute tolerance, and the signature by
   * the package's `sign` of the same id, timestamp and body.
   */
  now?: () => number;
  close(): Promise<void>;
}

/** Standard Webhooks' tolerance for the timestamp (the package's WEBHOOK_TOLERANCE_IN_SECONDS). */
const TOLERANCE_SECONDS = 5 * 60;

/** `Webhook.verify` at the time `nowMs`: a timestamp within the tolerance and a matching v1 signature. */
function verifyAt(nowMs: number, secret: string, body: string, headers: Record<string, string>): boolean {
  const timestamp = Number(headers['webhook-timestamp']);
  if (!Number.isInteger(timestamp) || Math.abs(nowMs / 1000 - timestamp) > TOLERANCE_SECONDS) return false;
  const expected = new Webhook(secret).sign(headers['webhook-id']!, new Date(timestamp * 1000), body);
  return (headers['webhook-signature'] ?? '').split(' ').includes(expected);
}

export async function startReceiver(answer: Answer = () => 204): Promise<Receiver> {
  const received: Received[] = [];
  const attempts = new Map<string, number>();
  const hanging: ServerResponse[] = [];
  const receiver: Receiver = {
    url: (path) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    received,
    secrets: [],
    answer,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(req.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
      };
      const verified =
        receiver.secrets.length > 0 &&
        receiver.secrets.every((secret) => {
          try {
            if (receiver.now) return verifyAt(receiver.now(), secret, body, headers);
            new Webhook(secret).verify(body, headers);
            return true;
          } catch {
            return false;
          }
        });
      let event: Received['event'];
      try {
        event = JSON.parse(body) as Received['event'];
      } catch {
        event = { id: '', type: '', objectId: '', sequence: 0, merchantId: '', data: undefined };
      }
      const r: Received = {
        n: received.length + 1,
        at: Date.now(),
        path: req.url ?? '',
        id: headers['webhook-id'],
        timestamp: headers['webhook-timestamp'],
        signature: headers['webhook-signature'],
        contentType: req.headers['content-type'],
        body,
        event,
        verified,
      };
      received.push(r);
      const attempt = (attempts.get(r.id) ?? 0) + 1;
      attempts.set(r.id, attempt);
      const status = receiver.answer(r, attempt);
      if (status === 'hang') {
        hanging.push(res);
        return;
      }
      const send = (code: number) => {
        r.status = code;
        res.writeHead(code, { 'content-type': 'text/plain' }).end('ok');
      };
      if (typeof status === 'number') return send(status);
      hanging.push(res);
      const late = (code: number) => {
        hanging.splice(hanging.indexOf(res), 1);
        if (!res.destroyed) send(code);
      };
      if (status instanceof Promise) return void status.then(late);
      setTimeout(() => late(status.status), status.afterMs);
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  return receiver;
}

/** Polls `probe` every 200 ms until it gives a value (not undefined or false); throws after `ms`. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  ms = 60_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(200);
  }
}

/** The requests whose answer was a 2xx. */
export const delivered = (r: Receiver, path?: string): Received[] =>
  r.received.filter(
    (x) => (path === undefined || x.path === path) && x.status !== undefined && x.status < 300,
  );
