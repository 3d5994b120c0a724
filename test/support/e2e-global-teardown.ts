import { rmSync } from 'node:fs';
import type { LocalRuntimeProcess } from '#lib/local/launcher';
import { SHM } from './e2e-global-setup';

export default async function teardown(): Promise<void> {
  const runtimes = (globalThis as { __E2E_RUNTIMES__?: LocalRuntimeProcess[] }).__E2E_RUNTIMES__ ?? [];
  await Promise.all(runtimes.map((runtime) => runtime.stop()));
  // The setup's scratch directory in memory, with whatever a file left in it.
  const scratch = process.env.TMPDIR;
  if (scratch?.startsWith(`${SHM}/sps-e2e-tmp-`)) rmSync(scratch, { recursive: true, force: true });
}
