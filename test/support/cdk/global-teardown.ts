import { rmSync } from 'node:fs';

export default function teardown(): void {
  if (process.env.INFRA_SCRATCH_DIR) rmSync(process.env.INFRA_SCRATCH_DIR, { recursive: true, force: true });
}
