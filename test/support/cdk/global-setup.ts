/**
 * Infra tier: one scratch directory for the run, removed by the teardown (test/support/run-scratch.ts).
 * It holds the stages' templates, synthesized once per run (stageTemplateOf), and the workers'
 * TMPDIR: each CDK App synthesized without an outdir writes its cloud assembly to a `cdk.out*`
 * directory of the temporary directory and leaves it there (a megabyte each).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { makeRunScratch } from '../run-scratch';

export default function setup(): void {
  process.env.INFRA_TEMPLATE_DIR = join(makeRunScratch('infra'), 'templates');
  mkdirSync(process.env.INFRA_TEMPLATE_DIR);
}
