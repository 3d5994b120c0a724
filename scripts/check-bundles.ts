/**
 * Bundles that load: bundles every function of both stages with esbuild and the options
 * CDK's NodejsFunction uses (ServiceFunction.bundling), loads each bundle in a Node 22 process
 * where only the AWS SDK can be resolved, with the function's environment from the synthesized
 * stack, and checks that it exports `handler`. Prod's inline refusal functions are loaded and
 * called too. Fails on a bundle that does not load or is over the budget; writes the sizes,
 * against the budget, to bench/bundles.md.
 *
 *   npm run check:bundles            (npm test runs it through test/infra/bundles.test.ts)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { App, type Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { build } from 'esbuild';
import { addServiceStacks } from '../lib/cdk/app';
import { REPO_ROOT, ServiceFunction } from '../lib/cdk/service-function';
import cdkJson from '../cdk.json';

/**
 * Minified size budget of one bundle (its source map not counted): 267 KB since a refused method
 * came to be refused before its account is vaulted, and a 400 to clip what it echoes
 * (docs/decisions.md "Bundle budget enforced").
 */
export const BUNDLE_BUDGET_BYTES = 267 * 1024;
/**
 * What a bundle that carries one of these libraries may hold besides: the library, not our code,
 * is the difference. Measured from the bundle's own inputs (esbuild's metafile), so a function
 * that stops needing one loses its allowance.
 */
export const LIBRARY_ALLOWANCES = [
  {
    // About 70 KB minified.
    library: 'luxon',
    what: "the time-zone library luxon (the series' time rules)",
    bytes: 100 * 1024,
    inputs: ['node_modules/luxon/'],
  },
  {
    // About 77 KB minified with its zip library fflate (docs/decisions.md "Group report files").
    library: 'write-excel-file',
    what: "the spreadsheet writer write-excel-file (the group report's .xlsx pages)",
    bytes: 100 * 1024,
    inputs: ['node_modules/write-excel-file/', 'node_modules/fflate/'],
  },
] as const;

export type Library = (typeof LIBRARY_ALLOWANCES)[number]['library'];
/**
 * Context of the check's synthesis: prod needs its account, region, sender and processor
 * (lib/cdk/app.ts); the sandbox's, as the infra tier's prod (test/support/cdk/synth.ts).
 */
const CONTEXT = {
  prodAccount: '222222222222',
  devAccount: '111111111111',
  region: 'eu-west-1',
  senderAddress: 'payments@payments.example.org',
  prodProcessor: 'sandbox',
};

export interface BundleResult {
  readonly stage: string;
  readonly functionName: string;
  /** Handler module under lambdas/, or `inline` for prod's refusal functions. */
  readonly handler: string;
  readonly bytes: number;
  /** Its budget: BUNDLE_BUDGET_BYTES, plus the allowance of each library of LIBRARY_ALLOWANCES it carries. */
  readonly budget: number;
  /** The libraries of LIBRARY_ALLOWANCES it carries. */
  readonly libraries: readonly Library[];
  readonly loaded: boolean;
  readonly error?: string;
}

interface Target {
  stage: string;
  functionName: string;
  handler: string;
  entry?: string;
  inlineCode?: string;
  environment: Record<string, string>;
}

/** A resolved environment value as the function would see it; references become placeholders. */
function placeholder(name: string, value: unknown, stack: Stack): string {
  if (typeof value === 'string') return value;
  const ref = JSON.stringify(value).replace(/[^A-Za-z0-9]+/g, '-');
  return name.endsWith('_ARN')
    ? `arn:aws:states:${stack.region}:${stack.account}:stateMachine:${ref}`
    : `placeholder${ref}`;
}

/** Every function of both stages: its handler entry or inline code, and its environment. */
function targets(): Target[] {
  const app = new App({ context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [], ...CONTEXT } });
  return addServiceStacks(app).flatMap((stack) => {
    const entries = new Map(
      stack.node
        .findAll()
        .filter((c): c is ServiceFunction => c instanceof ServiceFunction)
        .map((s) => [s.fn as lambda.Function, s.entry]),
    );
    return stack.node
      .findAll()
      .filter((c): c is lambda.CfnFunction => c instanceof lambda.CfnFunction)
      .map((cfn) => {
        const fn = cfn.node.scope as lambda.Function;
        const resolved = stack.resolve(cfn.environment) as
          { variables?: Record<string, unknown> } | undefined;
        const variables = resolved?.variables ?? {};
        const code = stack.resolve(cfn.code) as { zipFile?: string };
        const entry = entries.get(fn);
        return {
          stage: stack.stage,
          functionName: String(stack.resolve(cfn.functionName)),
          handler:
            entry === undefined ? 'inline' : relative(join(REPO_ROOT, 'lambdas'), entry).replace(/\.ts$/, ''),
          entry,
          inlineCode: code.zipFile,
          environment: Object.fromEntries(
            Object.entries(variables).map(([k, v]) => [k, placeholder(k, v, stack)]),
          ),
        };
      })
      .filter((t) => t.entry !== undefined || t.inlineCode !== undefined);
  });
}

/** Runs in the child process: loads each bundle with its environment, reports one JSON line each. */
const LOADER = `
const targets = JSON.parse(require('node:fs').readFileSync(process.argv[1], 'utf8'));
const base = { ...process.env };
(async () => {
  for (const t of targets) {
    process.env = { ...base, ...t.environment, AWS_LAMBDA_FUNCTION_NAME: t.functionName };
    try {
      const mod = require(t.file);
      if (typeof mod.handler !== 'function') throw new Error('no exported handler function');
      if (t.call) {
        const res = await mod.handler({}, {});
        if (res.statusCode !== 403) throw new Error('refusal answered ' + res.statusCode);
      }
      console.log(JSON.stringify({ file: t.file, loaded: true }));
    } catch (e) {
      console.log(JSON.stringify({ file: t.file, loaded: false, error: String(e && e.message || e).slice(0, 300) }));
    }
  }
})();
`;

/** Bundle, load and measure every function; write bench/bundles.md. */
export async function checkBundles(): Promise<BundleResult[]> {
  const all = targets();
  const dir = mkdtempSync(join(tmpdir(), 'sps-bundles-'));
  try {
    // The only package a bundle may resolve: the AWS SDK, as the Lambda runtime provides it.
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(join(REPO_ROOT, 'node_modules', '@aws-sdk'), join(dir, 'node_modules', '@aws-sdk'));
    const handlers = [...new Set(all.flatMap((t) => (t.entry === undefined ? [] : [t.entry])))];
    const slug = (entry: string): string => relative(REPO_ROOT, entry).replace(/[^A-Za-z0-9]+/g, '-');
    const { bundling } = ServiceFunction;
    const { metafile } = await build({
      metafile: true,
      entryPoints: handlers.map((entry) => ({ in: entry, out: slug(entry) })),
      outdir: join(dir, 'out'),
      bundle: true,
      platform: 'node',
      format: bundling.format,
      target: bundling.target,
      minify: bundling.minify,
      sourcemap: bundling.sourceMap,
      sourcesContent: bundling.sourcesContent,
      external: [...bundling.externalModules],
      // Both stages run the sandbox here (CONTEXT): their bundles carry its adapter alone.
      define: ServiceFunction.defineFor('sandbox'),
      absWorkingDir: REPO_ROOT,
      logLevel: 'error',
    });
    const loads = all.map((t, i) => {
      if (t.entry !== undefined) return { ...t, file: join(dir, 'out', `${slug(t.entry)}.js`), call: false };
      const file = join(dir, 'inline', String(i), 'index.js');
      mkdirSync(join(file, '..'), { recursive: true });
      writeFileSync(file, t.inlineCode ?? '');
      return { ...t, file, call: true };
    });
    const manifest = join(dir, 'targets.json');
    writeFileSync(manifest, JSON.stringify(loads));
    const child = spawnSync(process.execPath, ['-e', LOADER, manifest], {
      cwd: dir,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '',
        AWS_REGION: CONTEXT.region,
        AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
      },
      timeout: 120_000,
    });
    const outcomes = new Map(
      child.stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { file: string; loaded: boolean; error?: string })
        .map((o) => [o.file, o]),
    );
    const librariesOf = (file: string): (typeof LIBRARY_ALLOWANCES)[number][] => {
      const inputs = Object.keys(metafile.outputs[relative(REPO_ROOT, file)]?.inputs ?? {});
      return LIBRARY_ALLOWANCES.filter((l) =>
        inputs.some((input) => l.inputs.some((prefix) => input.includes(prefix))),
      );
    };
    return loads.map((t) => {
      const outcome = outcomes.get(t.file);
      const libraries = t.call ? [] : librariesOf(t.file);
      return {
        stage: t.stage,
        functionName: t.functionName,
        handler: t.handler,
        bytes: statSync(t.file).size,
        budget: BUNDLE_BUDGET_BYTES + libraries.reduce((sum, l) => sum + l.bytes, 0),
        libraries: libraries.map((l) => l.library),
        loaded: outcome?.loaded === true,
        ...(outcome?.loaded === true ? {} : { error: outcome?.error ?? child.stderr.slice(0, 500) }),
      };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A Markdown table with padded columns, as Prettier writes it (npm run lint checks the file). */
function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

/** bench/bundles.md: one row per handler module (the same bundle serves both stages). */
export function bundlesReport(results: readonly BundleResult[]): string {
  const bundles = [
    ...new Map(results.filter((r) => r.handler !== 'inline').map((r) => [r.handler, r])).values(),
  ].sort((a, b) => b.bytes - a.bytes || a.handler.localeCompare(b.handler));
  const over = bundles.filter((r) => r.bytes > r.budget).length;
  const rows = bundles.map((r) => [
    r.handler,
    `${(r.bytes / 1024).toFixed(1)} KB`,
    r.bytes <= r.budget ? (r.libraries.length > 0 ? `within (${r.libraries.join(', ')})` : 'within') : 'OVER',
  ]);
  return [
    '# Function bundles',
    '',
    'Written by `npm run check:bundles` (and `npm test`): each function bundled by esbuild as CDK bundles it',
    `(minified CommonJS for Node 22, AWS SDK external), loaded on Node ${process.versions.node.split('.')[0]} with only the AWS SDK`,
    `resolvable and the stack's environment. Budget: ${BUNDLE_BUDGET_BYTES / 1024} KB minified per bundle (source map not counted);`,
    ...LIBRARY_ALLOWANCES.map(
      (l) => `${l.bytes / 1024} KB more for a bundle that carries ${l.what}: "within (${l.library})".`,
    ),
    '',
    `${bundles.length} handler bundles, ${over} over the budget.`,
    '',
    ...table(['handler', 'minified', 'budget'], rows),
    '',
  ].join('\n');
}

/** Write bench/bundles.md. */
export function writeBundlesReport(results: readonly BundleResult[]): void {
  writeFileSync(join(REPO_ROOT, 'bench', 'bundles.md'), bundlesReport(results));
}

async function main(): Promise<void> {
  const results = await checkBundles();
  writeBundlesReport(results);
  for (const r of results) {
    const size = `${(r.bytes / 1024).toFixed(1)} KB${r.bytes > r.budget ? ' (over budget)' : ''}`;
    console.log(
      `${r.loaded ? 'PASS' : 'FAIL'} ${r.stage} ${r.functionName} ${size}${r.error === undefined ? '' : ` ${r.error}`}`,
    );
  }
  const failed = results.filter((r) => !r.loaded);
  const over = new Set(results.filter((r) => r.bytes > r.budget).map((r) => r.handler));
  console.log(
    `${results.length - failed.length}/${results.length} bundles load; ${over.size} handler bundles over the ${BUNDLE_BUDGET_BYTES / 1024} KB budget; wrote bench/bundles.md`,
  );
  if (failed.length > 0 || over.size > 0) process.exitCode = 1;
}

if (require.main === module) void main();
