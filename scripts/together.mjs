// Runs npm scripts in lanes: the lanes at once, each lane's scripts one after the other, each
// one's output printed whole when it ends (never interleaved): the static checks of
// `npm run checks` (scripts/checks.mjs).
import { spawn } from 'node:child_process';

/** One `[name, npm arguments]`; true when it passed. */
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

/** Runs every lane's commands (all of them, also after a failure); true when all passed. */
export async function runLanes(lanes) {
  const lane = async (commands) => {
    const passed = [];
    for (const command of commands) passed.push(await run(command));
    return passed.every(Boolean);
  };
  return (await Promise.all(lanes.map(lane))).every(Boolean);
}
