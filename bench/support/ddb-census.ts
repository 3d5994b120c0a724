/**
 * Preloaded into the benchmarked runtime (`node --import tsx --import ./bench/support/ddb-census.ts`):
 * counts every AWS call the runtime makes, by command name (and the items of transactions and
 * batches), so the bench can show what one API request costs in DynamoDB calls, check that the
 * raw ceiling does the same work, and see the runtime's background calls (the local stream reader's
 * `Streams.GetRecords`) on both sides. Lambdas stay untouched: this wraps `send` of the SDK's
 * client base class (the document client's parent), which every client of the runtime inherits.
 *
 * On SIGUSR2 the counts are written to `<DATA_DIR>/ddb-census.json` (the bench reads them
 * before and after each measured slice). The cost is a couple of Map updates per call.
 *
 * It also times the calls (from `send` to its answer, by client: `''` for DynamoDB, `SFN.`...), written
 * beside the counts to `<DATA_DIR>/ddb-timing.json` as `{ [prefix]: { calls, ms } }`: the
 * peak-local section's measured DynamoDB Local call time on this machine.
 *
 * `BENCH_DDB_LATENCY_MS` (default 0) holds every DynamoDB call back that many milliseconds first:
 * DynamoDB Local answers on loopback in about a millisecond, DynamoDB in the Region in 5-10, and
 * work that calls it one call after another is bound by that round trip, which a CPU-bound local
 * run hides (the receipts section uses it).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { countCall } from './count-call';

type Send = (this: object, command: object, ...rest: unknown[]) => unknown;

const counts: Record<string, number> = {};
const timing: Record<string, { calls: number; ms: number }> = {};
const base = Object.getPrototypeOf(DynamoDBDocumentClient.prototype) as { send: Send };
const send = base.send;
/** '' for DynamoDB itself (document or plain client), `Streams.` / `SFN.` / ... for the others. */
const prefixOf = (client: object): string => {
  const name = client.constructor.name;
  if (name === 'DynamoDBDocumentClient' || name === 'DynamoDBClient') return '';
  return `${name.replace(/^DynamoDB/, '').replace(/Client$/, '')}.`;
};
const latencyMs = Number(process.env.BENCH_DDB_LATENCY_MS ?? '0');
/** The call itself, timed (a held-back call's hold is not part of it). */
function timed(this: object, prefix: string, command: object, rest: unknown[]): unknown {
  const started = performance.now();
  const settle = () => {
    const t = (timing[prefix] ??= { calls: 0, ms: 0 });
    t.calls++;
    t.ms += performance.now() - started;
  };
  const result = send.call(this, command, ...rest) as Promise<unknown>;
  result.then(settle, settle);
  return result;
}
base.send = function (this: object, command: object, ...rest: unknown[]) {
  const prefix = prefixOf(this);
  countCall(counts, command, prefix);
  if (latencyMs > 0 && prefix === '')
    return new Promise((r) => setTimeout(r, latencyMs)).then(() => timed.call(this, prefix, command, rest));
  return timed.call(this, prefix, command, rest);
};

process.on('SIGUSR2', () => {
  const dir = process.env.DATA_DIR ?? '.data';
  writeFileSync(join(dir, 'ddb-timing.json'), JSON.stringify(timing));
  writeFileSync(join(dir, 'ddb-census.json'), JSON.stringify(counts));
});
