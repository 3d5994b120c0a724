/**
 * The `callsProcessor` flags of the contract (contract/routes, contract/processing.ts), which decide
 * the functions CDK gives the processor's settings and grants (lib/cdk/processor.ts), agree with the
 * code: a handler is flagged exactly when its bundle holds code of lambdas/processor/.
 */
import { resolve } from 'node:path';
import { build } from 'esbuild';
import { routeList as routes } from '#contract/routes/index';
import { processGroupTasks, voidOrRefundTasks } from '#contract/processing';

const ROOT = resolve(__dirname, '..', '..');

/**
 * The handlers whose bundle (as CDK bundles each: esbuild, node, tree-shaken) holds processor code.
 * One build for them all: each entry is bundled on its own, as in a build of its own, and each
 * module is read and parsed once (with a build per handler the file took 11 CPU-s, now 7).
 */
async function bundlingProcessor(handlers: string[]): Promise<Set<string>> {
  const result = await build({
    entryPoints: handlers.map((handler) => resolve(ROOT, 'lambdas', `${handler}.ts`)),
    absWorkingDir: ROOT,
    outdir: resolve(ROOT, 'processor-bindings'),
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'cjs',
    logLevel: 'silent',
    external: ['@aws-sdk/*'],
  });
  const outputs = Object.values(result.metafile.outputs);
  // One output per handler, none shared (a chunk would hide which handler holds what).
  expect(outputs.map((o) => o.entryPoint).sort()).toEqual(handlers.map((h) => `lambdas/${h}.ts`).sort());
  return new Set(
    outputs
      .filter((output) =>
        Object.entries(output.inputs).some(
          ([path, input]) => path.startsWith('lambdas/processor/') && input.bytesInOutput > 0,
        ),
      )
      .map((output) => output.entryPoint!.replace(/^lambdas\/(.*)\.ts$/, '$1')),
  );
}

const flagged = new Map<string, boolean>();
for (const route of routes)
  flagged.set(route.handler, (flagged.get(route.handler) ?? false) || route.callsProcessor === true);
for (const task of [...processGroupTasks, ...voidOrRefundTasks])
  flagged.set(task.handler, task.callsProcessor === true);

it('flags exactly the API handlers and tasks whose code reaches the processor', async () => {
  const calling = await bundlingProcessor([...flagged.keys()]);
  const actual = [...flagged.keys()].map((handler): [string, boolean] => [handler, calling.has(handler)]);
  expect(actual).toEqual([...flagged.entries()]);
  // Sanity: both kinds exist (a broken bundling would answer false everywhere).
  expect(actual.filter(([, calls]) => calls).length).toBeGreaterThan(5);
}, 120_000);

it('flags every route of a handler alike', () => {
  for (const route of routes)
    expect([route.id, route.callsProcessor === true]).toEqual([route.id, flagged.get(route.handler)]);
});
