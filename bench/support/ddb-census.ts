/**
 * Preloaded into the benchmarked runtime (`node --import tsx --import ./bench/support/ddb-census.ts`):
 * counts every DynamoDB call the handlers make, by command name, so the bench can show how many
 * calls one API request costs and check that the raw ceiling does the same work. Lambdas stay
 * untouched: this wraps `DynamoDBDocumentClient.prototype.send`, which every store goes through.
 *
 * On SIGUSR2 the counts are written to `<DATA_DIR>/ddb-census.json` (the bench reads them
 * before and after a measured phase). The cost is one Map update per call.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

const counts: Record<string, number> = {};
const proto = DynamoDBDocumentClient.prototype as unknown as { send: (command: object, ...rest: unknown[]) => unknown };
const send = proto.send;
proto.send = function (this: unknown, command: object, ...rest: unknown[]) {
  const name = command.constructor.name;
  counts[name] = (counts[name] ?? 0) + 1;
  return send.call(this, command, ...rest);
};

process.on('SIGUSR2', () => {
  writeFileSync(join(process.env.DATA_DIR ?? '.data', 'ddb-census.json'), JSON.stringify(counts));
});
