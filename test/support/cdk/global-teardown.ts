import { rmSync } from 'node:fs';

export default function teardown(): void {
  if (process.env.INFRA_TEMPLATE_DIR)
    rmSync(process.env.INFRA_TEMPLATE_DIR, { recursive: true, force: true });
}
