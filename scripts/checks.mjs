// The static checks of `npm test`: the typecheck, the functions' table access check
// (lib/cdk/function-access.json current), eslint, Prettier's check, the OpenAPI check and knip (no
// unused file, export or dependency: knip.config.ts). Each is one process, and none reads what
// another writes. They run in two lanes, one per core, each lane's one after the other: six
// processes at once on two cores spent a third more CPU in all than each alone (each slowing the
// others' caches), and the lanes hold about the same CPU each. The typecheck is TypeScript 7's
// compiler (`npm run typecheck`), here on one thread: the other lane has the other core.
// Each one's output is printed whole when it ends; the exit code is non-zero when any failed.
import { runLanes } from './together.mjs';

const lanes = [
  [
    ['access --check', ['run', '-s', 'access', '--', '--check']],
    ['prettier --check', ['run', '-s', 'lint:format']],
    ['openapi --check', ['run', '-s', 'openapi', '--', '--check']],
  ],
  [
    ['typecheck', ['run', '-s', 'typecheck', '--', '--singleThreaded']],
    ['eslint', ['run', '-s', 'lint:code']],
    ['knip', ['run', '-s', 'knip']],
  ],
];

process.exit((await runLanes(lanes)) ? 0 : 1);
