// The static checks of `npm test`, at once: typecheck, lint, the OpenAPI check, the functions'
// table access check (lib/cdk/function-access.json current) and knip (no unused file, export or
// dependency: knip.config.ts) are each one process on one core, and none reads what another
// writes, so on two cores they overlap instead of taking the sum of their times. The typecheck and
// the access check share one process and one TypeScript program (scripts/typecheck-program.ts):
// each built its own, much the same work.
// Each one's output is printed whole when it ends; the exit code is non-zero when any failed.
import { runTogether } from './together.mjs';

const checks = [
  ['typecheck, access --check', ['run', '-s', 'access', '--', '--check', '--typecheck']],
  ['lint', ['run', '-s', 'lint']],
  ['openapi --check', ['run', '-s', 'openapi', '--', '--check']],
  ['knip', ['run', '-s', 'knip']],
];

process.exit((await runTogether(checks)) ? 0 : 1);
