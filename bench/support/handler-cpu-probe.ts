/**
 * Preloaded into the benchmarked runtime (`node --import ./bench/support/handler-cpu-probe.ts`,
 * bench/support/runtime.ts): the process's CPU time (user + system, all threads: the handler's
 * JavaScript, its SDK calls' own work, the garbage collection it causes) across each API handler
 * invocation of the local API gateway (lib/local/api-handler-trace.ts), by route id. The wait for
 * DynamoDB Local's answers costs the runtime no CPU, so the figure does not move with DynamoDB
 * Local's speed; the bench's handler-cpu section sends one request at a time, so no other request
 * runs meanwhile (the runtime's background work still may: bench/sections/handler-cpu.ts).
 *
 * On SIGUSR2 (the census's signal, bench/support/ddb-census.ts) the figures are written to
 * `<DATA_DIR>/handler-cpu.json`: per route the invocations so far and the last SAMPLES of them, in µs.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiHandlerTrace, type ApiHandlerTrace } from '../../lib/local/api-handler-trace';

/** Invocations kept per route: more than the section measures of one route in a row. */
const SAMPLES = 1024;

export interface HandlerCpuProbe {
  [routeId: string]: { count: number; samplesUs: number[] };
}

const routes: HandlerCpuProbe = {};
const started = new WeakMap<object, NodeJS.CpuUsage>();

apiHandlerTrace.subscribe({
  start(ctx: ApiHandlerTrace) {
    started.set(ctx, process.cpuUsage());
  },
  end() {},
  asyncStart() {},
  asyncEnd(ctx: ApiHandlerTrace) {
    const before = started.get(ctx);
    if (!before) return;
    const used = process.cpuUsage(before);
    const route = (routes[ctx.routeId] ??= { count: 0, samplesUs: [] });
    route.count++;
    route.samplesUs.push(used.user + used.system);
    if (route.samplesUs.length > SAMPLES) route.samplesUs.shift();
  },
  error() {},
});

process.on('SIGUSR2', () => {
  writeFileSync(join(process.env.DATA_DIR ?? '.data', 'handler-cpu.json'), JSON.stringify(routes));
});
