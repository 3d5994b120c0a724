// Runs npm scripts at once, each one's output printed whole when it ends (never interleaved): the
// static checks of `npm run checks` (scripts/checks.mjs).
import { spawn } from 'node:child_process';

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
