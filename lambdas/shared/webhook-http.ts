/**
 * One webhook attempt over HTTP(S): a POST to the URL's host connected to the address given (the
 * one the caller checked: a custom `lookup` pins it, while SNI and Host still name the host), the
 * exchange up to the status bounded by a timeout and the body's drain by another (both the one
 * `withTimeout`), no redirect followed (a 3xx is just a status), and at most a few KiB of the
 * response body read, then thrown away. It never throws: a failure is an answer.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { finished } from 'node:stream/promises';
import { withTimeout } from './clock';

export interface WebhookPost {
  url: URL;
  /** The checked address to connect to. */
  address: string;
  family: 4 | 6;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  maxResponseBytes: number;
}

/** How long a response body may take to arrive (up to the read limit) once the status has. */
const DRAIN_MS = 1000;

export type WebhookAnswer = { status: number } | { error: string };

// Connections are kept alive between attempts to one receiver (a burst of events reuses them).
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 16 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 16 }),
};

const reasonOf = (error: NodeJS.ErrnoException): string => {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    default:
      return error.code ? `network error ${error.code}` : `network error: ${error.message}`.slice(0, 200);
  }
};

export function postWebhook(post: WebhookPost): Promise<WebhookAnswer> {
  const { url, address, family } = post;
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const transport = url.protocol === 'https:' ? https : http;
  const body = Buffer.from(post.body, 'utf8');
  let req: http.ClientRequest | undefined;
  const exchange = new Promise<WebhookAnswer>((resolve) => {
    req = transport.request(
      {
        method: 'POST',
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        headers: {
          ...post.headers,
          'content-length': String(body.length),
          'user-agent': 'scheduled-payments-webhooks/1.0',
        },
        lookup: pinned,
        agent: agents[url.protocol as 'http:' | 'https:'],
      },
      (res) => {
        // The status decides; the body is read up to the limit (so that a kept-alive connection
        // can serve the next attempt), else the connection is closed.
        resolve({ status: res.statusCode ?? 0 });
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > post.maxResponseBytes) res.destroy();
        });
        void withTimeout(
          finished(res).then(
            () => true,
            () => true,
          ),
          DRAIN_MS,
          () => {
            res.destroy();
            return false;
          },
        );
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: reasonOf(error) }));
    req.end(body);
  });
  return withTimeout(exchange, post.timeoutMs, () => {
    req?.destroy();
    return { error: 'timeout' };
  });
}
