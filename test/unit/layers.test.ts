/**
 * The layering rules (README "Layers") bite. ESLint's no-restricted-imports rules
 * (eslint.config.mjs): each forbidden import is an error where it is written, and an allowed one
 * is not, linted with ESLint's Node API on code that exists only here. And the import graph of the
 * whole tree, read from the files themselves: no circle of files, no circle of folders (so no
 * arrow runs back up), and generated code, which ESLint does not read, imports only shared/.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ESLint } from 'eslint';
import ts from 'typescript';
import config from '../../eslint.config.mjs';

const root = join(__dirname, '..', '..');
// The project's own config, given as an object: Jest cannot load the .mjs file the way ESLint does.
const eslint = new ESLint({ cwd: root, overrideConfigFile: true, overrideConfig: config });

/** The messages of the layering rule for `code` written in the file at `path` (from the root). */
async function layerErrors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport const used = x;\n`, { filePath: join(root, path) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('the layering rule between top-level folders', () => {
  it.each([
    ['lambdas/groups/x.ts', "import { x } from '../../lib/local/runtime';"],
    ['lambdas/shared/x.ts', "import { x } from '#lib/routes';"],
    ['lambdas/x.ts', "import { x } from '../test/support/api';"],
    ['lambdas/shared/x.ts', "import { x } from '../../bin/local';"],
    ['lambdas/core/x.ts', "import { x } from '#support/api';"],
    ['contract/x.ts', "import { x } from '../lambdas/shared/config';"],
    ['contract/x.ts', "import { x } from '#shared/config';"],
    ['contract/schemas/x.ts', "import { x } from '../../lib/routes';"],
    ['lib/cdk/x.ts', "import { x } from '../../lambdas/processing/begin-group';"],
    ['lib/cdk/x.ts', "import { x } from '#store/keys';"],
    ['lib/cdk/x.ts', "import { x } from '../local/runtime';"],
    ['client/x.ts', "import { x } from '#contract/limits';"],
    ['test/unit/x.test.ts', "import { x } from '../../lambdas/core/groups';"],
    ['test/e2e/x.test.ts', "import { x } from '../support/api';"],
    ['test/unit/x.test.ts', "import { x } from '#lambdas/core/groups';"],
  ])('forbids, in %s, %s', async (path, code) => {
    expect(await layerErrors(path, code)).toHaveLength(1);
  });

  it.each([
    ['lambdas/groups/x.ts', "import { x } from '#contract/stage';"],
    ['lambdas/groups/x.ts', "import { x } from '#shared/config';"],
    ['contract/schemas/x.ts', "import { x } from '../limits';"],
    ['lib/cdk/x.ts', "import { x } from '../../contract/processing';"],
    ['lib/cdk/x.ts', "import { x } from 'aws-cdk-lib/aws-lambda';"],
    ['lib/local/x.ts', "import { x } from '../../lambdas/store/merchants';"],
    ['test/unit/x.test.ts', "import { handler } from '#lambdas/groups/create-group';"],
    ['test/unit/x.test.ts', "import { x } from '#core/groups';"],
    ['test/e2e/x.test.ts', "import { x } from '#support/api';"],
  ])('allows, in %s, %s', async (path, code) => {
    expect(await layerErrors(path, code)).toEqual([]);
  });
});

describe('the layering rule inside lambdas/', () => {
  it.each([
    // Handlers reach stores and the processor through core/, and hold no helper modules.
    ['lambdas/groups/x.ts', "import { x } from '#store/groups';"],
    ['lambdas/processing/x.ts', "import type { x } from '#processor/processor';"],
    ['lambdas/notifications/x.ts', "import { x } from './queue';"],
    ['lambdas/groups/x.ts', "import { x } from '../void-or-refund/start';"],
    ['lambdas/groups/x.ts', "import { x } from '#lambdas/store/groups';"],
    // core/ never imports a handler, nor builds the table's keys.
    ['lambdas/core/x.ts', "import { x } from '../groups/create-group';"],
    ['lambdas/core/x.ts', "import { keys } from '#store/keys';"],
    // store/ and processor/ sit side by side, below core/.
    ['lambdas/store/x.ts', "import { x } from '#core/groups';"],
    ['lambdas/store/x.ts', "import { x } from '#processor/index';"],
    ['lambdas/processor/x.ts', "import { x } from '#store/transactions';"],
    ['lambdas/processor/x.ts', "import { x } from '#store/paging';"],
    ['lambdas/processor/x.ts', "import { x } from '#core/sale';"],
    // domain/ is rules: nothing above it, no AWS.
    ['lambdas/domain/x.ts', "import { x } from '#store/groups';"],
    ['lambdas/domain/x.ts', "import { x } from '#core/groups';"],
    ['lambdas/domain/x.ts', "import { x } from '@aws-sdk/lib-dynamodb';"],
    ['lambdas/domain/x.ts', "import type { x } from 'aws-lambda';"],
    // generated/ and shared/ import nothing above them.
    ['lambdas/generated/x.ts', "import { x } from '#domain/money';"],
    ['lambdas/shared/x.ts', "import { x } from '#domain/groups';"],
    ['lambdas/shared/x.ts', "import { x } from '#store/merchants';"],
    ['lambdas/shared/x.ts', "import { x } from '#core/merchants';"],
    ['lambdas/shared/x.ts', "import { x } from '#generated/validators';"],
    ['lambdas/shared/x.ts', "import { x } from '../domain/money';"],
  ])('forbids, in %s, %s', async (path, code) => {
    expect(await layerErrors(path, code)).toHaveLength(1);
  });

  it.each([
    ['lambdas/groups/x.ts', "import { x } from '#core/groups';"],
    ['lambdas/groups/x.ts', "import { x } from '#domain/groups';"],
    ['lambdas/groups/x.ts', "import * as routes from '#generated/validators';"],
    ['lambdas/core/x.ts', "import { x } from '#store/groups';"],
    ['lambdas/core/x.ts', "import { x } from '#processor/index';"],
    ['lambdas/core/x.ts', "import { x } from './groups';"],
    ['lambdas/store/x.ts', "import { x } from '#domain/groups';"],
    ['lambdas/store/x.ts', "import { x } from '@aws-sdk/lib-dynamodb';"],
    ['lambdas/processor/x.ts', "import { x } from '#domain/declines';"],
    ['lambdas/processor/x.ts', "import { queryDays } from '#store/day-index';"],
    ['lambdas/domain/x.ts', "import { x } from '#generated/validators';"],
    ['lambdas/domain/x.ts', "import { x } from '#shared/errors';"],
    ['lambdas/generated/x.ts', "import { x } from '#shared/route-check';"],
    ['lambdas/shared/x.ts', "import { x } from './config';"],
  ])('allows, in %s, %s', async (path, code) => {
    expect(await layerErrors(path, code)).toEqual([]);
  });
});

// ---- The import graph, read from the files ----

const SOURCE_FOLDERS = ['bench', 'bin', 'client', 'contract', 'lambdas', 'lib', 'scripts', 'test'];

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts)$/.test(name) ? [path] : [];
  });
}

const packageImports = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { imports: Record<string, string> }
).imports;

/** The file an import names, or undefined for a package (or a file that is no source file). */
function resolveImport(from: string, specifier: string): string | undefined {
  let base: string | undefined;
  if (specifier.startsWith('.')) base = resolve(dirname(from), specifier);
  else if (specifier.startsWith('#')) {
    for (const [pattern, target] of Object.entries(packageImports)) {
      const prefix = pattern.replace('*', '');
      if (specifier.startsWith(prefix))
        return resolve(root, target.replace('*', specifier.slice(prefix.length)));
    }
    throw new Error(`${relative(root, from)}: no package.json alias for ${specifier}`);
  }
  if (base === undefined) return undefined;
  return [base, `${base}.ts`, `${base}.d.ts`, join(base, 'index.ts')].find(
    (candidate) => /\.(ts|mts)$/.test(candidate) && exists(candidate),
  );
}

const exists = (path: string): boolean => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/** Every file's imports (static, dynamic with a literal name, and require), as repository paths. */
const graph = new Map<string, string[]>(
  SOURCE_FOLDERS.flatMap((folder) => sourceFiles(join(root, folder))).map((file) => {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((f) => resolveImport(file, f.fileName))
      .filter((t): t is string => t !== undefined)
      .map((t) => relative(root, t));
    return [relative(root, file), [...new Set(targets)]];
  }),
);

/** The circles of a graph: its strongly connected components of more than one node (Tarjan). */
function circles(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** A file's folder as the layers name it: lambdas/<layer>, lib/<part>, else the top-level folder. */
const folderOf = (file: string): string => {
  const [top, next] = file.split('/');
  return (top === 'lambdas' || top === 'lib') && next !== undefined && !next.endsWith('.ts')
    ? `${top}/${next}`
    : top!;
};

describe('the import graph', () => {
  it('reads the whole tree', () => {
    expect(graph.size).toBeGreaterThan(300);
    expect(graph.get('lambdas/groups/create-group.ts')).toContain('lambdas/core/groups.ts');
  });

  it('has no circle of files', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('has no circle of folders: no import runs back up, inside lambdas/ as between top-level folders', () => {
    const folders = new Map<string, Set<string>>();
    for (const [file, targets] of graph) {
      const from = folderOf(file);
      if (!folders.has(from)) folders.set(from, new Set());
      for (const target of targets) if (folderOf(target) !== from) folders.get(from)!.add(folderOf(target));
    }
    const edges = new Map([...folders].map(([folder, targets]) => [folder, [...targets]]));
    expect(circles(edges)).toEqual([]);
    // The layers of the functions, top to bottom, as the README draws them.
    expect(edges.get('lambdas/groups')).toEqual(expect.arrayContaining(['lambdas/core', 'contract']));
    expect(edges.get('lambdas/generated')!.sort()).toEqual(['contract', 'lambdas/shared']);
  });

  it('keeps generated code to shared/, the contract and the validation runtime (requires included)', () => {
    const generated = [...graph.keys()].filter((f) => f.startsWith('lambdas/generated/'));
    expect(generated.length).toBeGreaterThan(0);
    for (const file of generated) {
      const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
      for (const { fileName } of importedFiles)
        expect([file, fileName]).toEqual([file, expect.stringMatching(/^(#shared\/|#contract\/|\.\/|ajv)/)]);
    }
  });
});
