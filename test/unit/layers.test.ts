/**
 * The layering rule (eslint.config.mjs) bites: each forbidden import is an error where it is
 * written, and an allowed one is not. Linted with ESLint's Node API on code that exists only here.
 */
import { join } from 'node:path';
import { ESLint } from 'eslint';
import config from '../../eslint.config.mjs';

const root = join(__dirname, '..', '..');
// The project's own config, given as an object: Jest cannot load the .mjs file the way ESLint does.
const eslint = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: config });

/** The messages of the layering rule for `code` written in the file at `path` (from the root). */
async function layerErrors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport const used = x;\n`, { filePath: join(root, path) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('the layering rule', () => {
  it.each([
    ['lambdas/groups/x.ts', "import { x } from '../../lib/local/runtime';"],
    ['lambdas/shared/x.ts', "import { x } from '#lib/routes';"],
    ['lambdas/x.ts', "import { x } from '../test/support/api';"],
    ['lambdas/shared/x.ts', "import { x } from '../../bin/local';"],
    ['contract/x.ts', "import { x } from '../lambdas/shared/config';"],
    ['contract/x.ts', "import { x } from '#shared/config';"],
    ['contract/schemas/x.ts', "import { x } from '../../lib/routes';"],
    ['lib/cdk/x.ts', "import { x } from '../../lambdas/processing/begin-group';"],
    ['lib/cdk/x.ts', "import { x } from '#shared/keys';"],
    ['lib/cdk/x.ts', "import { x } from '../local/runtime';"],
  ])('forbids, in %s, %s', async (path, code) => {
    expect(await layerErrors(path, code)).toHaveLength(1);
  });

  it.each([
    ['lambdas/groups/x.ts', "import { x } from '#contract/stage';"],
    ['lambdas/groups/x.ts', "import { x } from '#shared/config';"],
    ['lambdas/groups/x.ts', "import { x } from '@aws-sdk/lib-dynamodb';"],
    ['contract/schemas/x.ts', "import { x } from '../limits';"],
    ['lib/cdk/x.ts', "import { x } from '../../contract/processing';"],
    ['lib/cdk/x.ts', "import { x } from 'aws-cdk-lib/aws-lambda';"],
    ['lib/local/x.ts', "import { x } from '../../lambdas/store/merchants';"],
  ])('allows, in %s, %s', async (path, code) => {
    expect(await layerErrors(path, code)).toEqual([]);
  });
});
