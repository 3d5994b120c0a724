/**
 * `spay listen --forward-to <url>`: webhook deliveries to an application on this machine, as
 * `stripe listen` does. It receives on a loopback port (`--port`, else a free one: 127.0.0.1
 * only, so that nothing on the network can post to it), registers that address as a webhook
 * endpoint of the merchant (the local runtime delivers to loopback; a deployed stage does not),
 * prints the endpoint's signing secret, and forwards every delivery to `--forward-to` unchanged
 * (body and `webhook-*` headers, so the application verifies it with that secret). The service is
 * answered the application's status (502 when it cannot be reached), so its retries work as in
 * production. Ctrl-C deletes the endpoint.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidArgumentError, type Command } from 'commander';
import { clientOf, loadSession } from './session';

/** The service waits 10 s for an answer: the application gets a little less. */
const FORWARD_TIMEOUT_MS = 9_000;
const FORWARDED_HEADERS = ['content-type', 'webhook-id', 'webhook-timestamp', 'webhook-signature'];

const clock = () => new Date().toISOString().slice(11, 19);

async function forward(target: string, req: IncomingMessage, body: Buffer): Promise<number> {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  try {
    const answer = await fetch(target, {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await answer.arrayBuffer();
    return answer.status;
  } catch {
    return 0;
  }
}

function portOption(value: string): number {
  const port = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!(port >= 1 && port <= 65535))
    throw new InvalidArgumentError('It must be a port number from 1 to 65535.');
  return port;
}

/** Listens on 127.0.0.1 (`port`, else a free one); a busy port is one line naming `--port`. */
async function listenOnLoopback(server: Server, port: number | undefined): Promise<number> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port ?? 0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'EADDRINUSE') throw error;
    throw new Error(
      `port ${port} is already in use: stop what listens on it, or choose another --port ` +
        '(without --port a free one is picked)',
      { cause: error },
    );
  }
  return (server.address() as AddressInfo).port;
}

export function listenCommands(program: Command): void {
  program
    .command('listen')
    .description('forward webhook deliveries to a local URL (local runtime), like `stripe listen`')
    .requiredOption('--forward-to <url>', 'where each delivery is POSTed, e.g. http://localhost:4242/hooks')
    .option('--events <types>', 'comma-separated types or patterns, e.g. "payment.*,group.processed"', '*')
    .option('--port <port>', 'the loopback port deliveries arrive on (default: a free one)', portOption)
    .action(async (options: { forwardTo: string; events: string; port?: number }) => {
      let target: string;
      try {
        target = new URL(options.forwardTo).toString();
      } catch (error) {
        throw new Error(`--forward-to ${options.forwardTo}: not a URL (e.g. http://localhost:4242/hooks)`, {
          cause: error,
        });
      }
      const session = loadSession();
      const api = clientOf(session);
      const server = createServer((req: IncomingMessage, res: ServerResponse) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const body = Buffer.concat(chunks);
          let type = '?';
          try {
            type = String((JSON.parse(body.toString('utf8')) as { type?: unknown }).type ?? '?');
          } catch {
            // not JSON: forwarded as it is
          }
          const id = String(req.headers['webhook-id'] ?? '');
          console.log(`${clock()} -> ${type} ${id}`);
          const started = Date.now();
          void forward(target, req, body).then((status) => {
            const ms = Date.now() - started;
            console.log(
              status === 0
                ? `${clock()} <- not reached: ${target} (the service retries)`
                : `${clock()} <- ${status} from ${target} (${ms} ms)`,
            );
            res.writeHead(status === 0 ? 502 : status, { 'content-type': 'text/plain' }).end();
          });
        });
      });
      const port = await listenOnLoopback(server, options.port);
      const enabledEvents = options.events
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const endpoint = await api
        .createWebhookEndpoint(session.mid, {
          url: `http://127.0.0.1:${port}/`,
          enabledEvents,
          description: `spay listen -> ${target}`.slice(0, 500),
        })
        .catch((error: unknown) => {
          // Refused (a deployed stage delivers to public https hosts only): nothing to listen for.
          server.close();
          throw error;
        });
      console.log(`Ready: forwarding ${enabledEvents.join(', ')} to ${target}`);
      console.log('Signing secret (verify each delivery with it):');
      console.log(endpoint.secret);
      console.log('Ctrl-C stops and deletes the endpoint.');
      // Ctrl-C reaches this process more than once: from the terminal, and again from npm, which
      // forwards it. The handlers stay until the endpoint is deleted, so a repeat does not kill
      // the process half-way through its clean-up (it used to: the endpoint was left behind now
      // and then). npm runs it in one Node process (scripts/tool.mjs), not under the tsx command, whose parent
      // process kills a child that is slow to take a signal (package.json).
      let onSignal = (): void => undefined;
      await new Promise<void>((resolve) => {
        onSignal = () => resolve();
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
      });
      try {
        await api.deleteWebhookEndpoint(session.mid, String(endpoint.webhookEndpointId));
      } finally {
        server.closeAllConnections();
        server.close();
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
      console.log(`Stopped: endpoint ${endpoint.webhookEndpointId} deleted.`);
    });
}
