/**
 * Infra tier: one scratch directory for the run, removed by the teardown. It holds the stages'
 * templates, synthesized once per run (stageTemplateOf), and is the workers' TMPDIR: each CDK App
 * synthesized without an outdir writes its cloud assembly to a `cdk.out*` directory of the
 * system's temporary directory and leaves it there (some 60 a run, a megabyte each, had piled up
 * by the thousand in /tmp).
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): void {
  const scratch = mkdtempSync(join(tmpdir(), 'sps-infra-'));
  process.env.INFRA_SCRATCH_DIR = scratch;
  process.env.INFRA_TEMPLATE_DIR = join(scratch, 'templates');
  mkdirSync(process.env.INFRA_TEMPLATE_DIR);
  // The workers start after this, with this process's environment.
  process.env.TMPDIR = join(scratch, 'tmp');
  mkdirSync(process.env.TMPDIR);
}
