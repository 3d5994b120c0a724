// The static checks of `npm test`, at once: typecheck, lint, the OpenAPI check, the functions'
// table access check (lib/cdk/function-access.json current) and knip (no unused file, export or
// dependency: knip.config.ts) are each one process on one core, and none reads what another
// writes, so on two cores they overlap instead of taking the sum of their times. The typecheck and
// the access check share one process and one TypeScript program (scripts/typecheck-program.ts):
// each built its own, much the same work.
// Each one's output is printed whole when it ends; the exit code is non-zero when any failed.
import { spawn } from 'node:child_process';

const checks = [
  ['typecheck, access --check', ['run', '-s', 'access', '--', '--check', '--typecheck']],
  ['lint', ['run', '-s', 'lint']],
  ['openapi --check', ['run', '-s', 'openapi', '--', '--check']],
  ['knip', ['run', '-s', 'knip']],
];

const run = ([name, args]) =>
  new Promise((resolve) => {
    const started = Date.now();
    const child = spawn('npm', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log(`--- ${name}: ${code === 0 ? 'passed' : `FAILED (exit ${code})`} in ${seconds} s`);
      if (output.trim() !== '') console.log(output.trimEnd());
      resolve(code === 0);
    });
  });

const results = await Promise.all(checks.map(run));
process.exit(results.every(Boolean) ? 0 : 1);
