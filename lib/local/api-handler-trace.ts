/**
 * Each API handler invocation of the local API gateway (lib/local/http-server.ts), published on a
 * `node:diagnostics_channel` tracing channel for tools that measure it: the bench's handler CPU
 * per route (bench/support/handler-cpu-probe.ts, preloaded into the runtime it measures). Without
 * a subscriber the channel costs nothing; channels are the process's by name, so a preloaded
 * module's copy of this file and the runtime bundle's are the same channel.
 */
import { tracingChannel } from 'node:diagnostics_channel';

/** What each event of an invocation carries: the route (contract/routes) it runs. */
export interface ApiHandlerTrace {
  routeId: string;
}

export const apiHandlerTrace = tracingChannel<unknown, ApiHandlerTrace>(
  'scheduled-payments:local-api-handler',
);
