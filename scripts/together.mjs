// Runs npm scripts at once, each one's output printed whole when it ends (never interleaved); the
// exit code is non-zero when any failed. Used by `npm run checks` (scripts/checks.mjs) and by
// `npm run test:quick` for the integration and infra tiers, which overlap well on two cores: the
// integration tier's files mostly wait (timers, retries, a processor outage of minutes) while the
// infra tier's synthesize and lint without pause.
//   node scripts/together.mjs <npm script> [...]
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/** Runs each `[name, npm arguments]` at once; true when all passed. */
export async function runTogether(commands) {
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
  return (await Promise.all(commands.map(run))).every(Boolean);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const scripts = process.argv.slice(2);
  if (scripts.length === 0) {
    console.error('usage: node scripts/together.mjs <npm script> [...]');
    process.exit(2);
  }
  process.exit((await runTogether(scripts.map((s) => [s, ['run', '-s', s]]))) ? 0 : 1);
}
