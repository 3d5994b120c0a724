/**
 * One webhook attempt's bounds (lambdas/shared/webhook-http.ts), on a real receiver on loopback:
 * no status within the timeout is the answer `timeout` (the request destroyed); a status is the
 * answer however long the body takes, and a body that never ends is cut off (the connection closed);
 * a body over the read limit too.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { postWebhook, type WebhookPost } from '#shared/webhook-http';

let server: http.Server;
let handle: (req: http.IncomingMessage, res: http.ServerResponse) => void;
let port: number;

beforeAll(async () => {
  server = http.createServer((req, res) => handle(req, res));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
});

const post = (timeoutMs: number): WebhookPost => ({
  url: new URL(`http://receiver.test:${port}/hook`),
  address: '127.0.0.1',
  family: 4,
  headers: { 'content-type': 'application/json' },
  body: '{"type":"payment.approved"}',
  timeoutMs,
  maxResponseBytes: 4096,
});

/** Resolves when the server side of the request's connection closes (reset by the client or not). */
const closed = (req: http.IncomingMessage) =>
  new Promise<void>((resolve) => {
    req.socket.on('error', () => undefined);
    req.socket.on('close', () => resolve());
  });

describe('a webhook attempt', () => {
  it('answers timeout when no status comes within its timeout, and closes the connection', async () => {
    let connection: Promise<unknown> | undefined;
    handle = (req) => {
      connection = closed(req);
    };
    expect(await postWebhook(post(200))).toEqual({ error: 'timeout' });
    await connection;
  });

  it('answers the status at once; a body that never ends is cut off, the connection closed', async () => {
    let connection: Promise<unknown> | undefined;
    handle = (req, res) => {
      connection = closed(req);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('still');
    };
    expect(await postWebhook(post(5_000))).toEqual({ status: 200 });
    await connection;
  });

  it('closes the connection of a body over the read limit', async () => {
    let connection: Promise<unknown> | undefined;
    handle = (req, res) => {
      connection = closed(req);
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.write('x'.repeat(64 * 1024));
    };
    expect(await postWebhook(post(5_000))).toEqual({ status: 500 });
    await connection;
  });

  it('answers a refused connection as such', async () => {
    const closedServer = http.createServer();
    closedServer.listen(0, '127.0.0.1');
    await once(closedServer, 'listening');
    const free = (closedServer.address() as AddressInfo).port;
    closedServer.close();
    await once(closedServer, 'close');
    expect(await postWebhook({ ...post(5_000), url: new URL(`http://receiver.test:${free}/hook`) })).toEqual({
      error: 'connection refused',
    });
  });
});
