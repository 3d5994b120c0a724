// `npm test`'s first step (pretest, after check-node.mjs): every program the tests need beyond npm,
// checked in the first second and listed together with how to install them, instead of a failure
// fifteen minutes in. The README's "Set up" lists the same (Java, chromium, tmux, cfn-lint).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const onPath = (name) => spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;

const missing = [];
if (!onPath('java'))
  missing.push('Java 11+ (DynamoDB Local): e.g. sudo apt-get install -y default-jre-headless');
const chromium = process.env.CHROMIUM_PATH
  ? existsSync(process.env.CHROMIUM_PATH)
  : onPath('chromium') || onPath('chromium-browser');
if (!chromium)
  missing.push(
    'Chromium (the docs page browser test): sudo apt-get install -y chromium, or set CHROMIUM_PATH',
  );
if (!onPath('tmux')) missing.push('tmux (the CLI terminal tests): sudo apt-get install -y tmux');
if (!onPath('cfn-lint')) missing.push('cfn-lint (the infra tier lints the templates): pip install cfn-lint');
if (missing.length > 0) {
  console.error(`npm test needs:\n${missing.map((m) => `  - ${m}`).join('\n')}\n(README "Set up")`);
  process.exit(1);
}
