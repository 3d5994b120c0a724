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

/** Whether the handler's bundle (as CDK bundles it: esbuild, node, tree-shaken) holds processor code. */
async function bundlesProcessor(handler: string): Promise<boolean> {
  const result = await build({
    entryPoints: [resolve(ROOT, 'lambdas', `${handler}.ts`)],
    absWorkingDir: ROOT,
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'cjs',
    logLevel: 'silent',
    external: ['@aws-sdk/*'],
  });
  return Object.values(result.metafile.outputs).some((output) =>
    Object.entries(output.inputs).some(
      ([path, input]) => path.startsWith('lambdas/processor/') && input.bytesInOutput > 0,
    ),
  );
}

const flagged = new Map<string, boolean>();
for (const route of routes)
  flagged.set(route.handler, (flagged.get(route.handler) ?? false) || route.callsProcessor === true);
for (const task of [...processGroupTasks, ...voidOrRefundTasks])
  flagged.set(task.handler, task.callsProcessor === true);

it('flags exactly the API handlers and tasks whose code reaches the processor', async () => {
  const actual: [string, boolean][] = [];
  for (const handler of flagged.keys()) actual.push([handler, await bundlesProcessor(handler)]);
  expect(actual).toEqual([...flagged.entries()]);
  // Sanity: both kinds exist (a broken bundling would answer false everywhere).
  expect(actual.filter(([, calls]) => calls).length).toBeGreaterThan(5);
}, 120_000);

it('flags every route of a handler alike', () => {
  for (const route of routes)
    expect([route.id, route.callsProcessor === true]).toEqual([route.id, flagged.get(route.handler)]);
});
