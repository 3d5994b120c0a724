/**
 * A lean keep-alive JSON client for the load generator: node:http with one Agent whose socket
 * pool matches the concurrency, so every in-flight request reuses a warm connection and the
 * client itself costs as little CPU as possible (it shares the 2 cores with the runtime).
 */
import { Agent, request } from 'node:http';

export interface HttpReply {
  status: number;
  text: string;
  /** The response's headers, names in lower case. */
  headers: Record<string, string | string[] | undefined>;
}

export interface HttpClient {
  send(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpReply>;
  /** JSON in, JSON out; throws unless the status is the expected one. */
  json<T>(method: string, path: string, body: unknown, expected: number): Promise<T>;
  close(): void;
}

export function httpClient(
  baseUrl: string,
  options: { maxSockets: number; token?: () => string },
): HttpClient {
  const base = new URL(baseUrl);
  const agent = new Agent({
    keepAlive: true,
    maxSockets: options.maxSockets,
    maxFreeSockets: options.maxSockets,
  });
  const send = (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) =>
    new Promise<HttpReply>((ok, fail) => {
      const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const token = options.token?.();
      const req = request(
        {
          agent,
          hostname: base.hostname,
          port: base.port,
          method,
          path,
          headers: {
            ...(token && { authorization: `Bearer ${token}` }),
            ...(payload !== undefined && {
              'content-type': 'application/json',
              'content-length': String(Buffer.byteLength(payload)),
            }),
            ...extra,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            ok({
              status: res.statusCode ?? 0,
              text: Buffer.concat(chunks).toString('utf8'),
              headers: res.headers,
            }),
          );
          res.on('error', fail);
        },
      );
      req.on('error', fail);
      req.end(payload);
    });
  return {
    send,
    async json<T>(method: string, path: string, body: unknown, expected: number) {
      const reply = await send(method, path, body);
      if (reply.status !== expected)
        throw new Error(`${method} ${path}: ${reply.status} ${reply.text.slice(0, 300)}`);
      return (reply.text === '' ? undefined : JSON.parse(reply.text)) as T;
    },
    close: () => agent.destroy(),
  };
}
