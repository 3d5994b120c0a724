// The static checks of `npm test`, at once: the typecheck, the functions' table access check
// (lib/cdk/function-access.json current), eslint, Prettier's check, the OpenAPI check and knip (no
// unused file, export or dependency: knip.config.ts) are each one process, and none reads what
// another writes, so on two cores they overlap instead of taking the sum of their times. The
// typecheck is TypeScript 7's compiler (`npm run typecheck`), on one thread here: beside the other
// checks its threads would only compete for the same two cores.
// Each one's output is printed whole when it ends; the exit code is non-zero when any failed.
import { runTogether } from './together.mjs';

const checks = [
  ['typecheck', ['run', '-s', 'typecheck', '--', '--singleThreaded']],
  ['access --check', ['run', '-s', 'access', '--', '--check']],
  ['eslint', ['exec', '--no', '--', 'eslint', '.']],
  ['prettier --check', ['exec', '--no', '--', 'prettier', '--check', '.']],
  ['openapi --check', ['run', '-s', 'openapi', '--', '--check']],
  ['knip', ['run', '-s', 'knip']],
];

process.exit((await runTogether(checks)) ? 0 : 1);
