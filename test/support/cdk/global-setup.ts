/** Infra tier: a directory for the stages' templates, synthesized once per run (stageTemplateOf). */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): void {
  process.env.INFRA_TEMPLATE_DIR = mkdtempSync(join(tmpdir(), 'sps-infra-templates-'));
}
