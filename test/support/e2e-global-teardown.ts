import type { LocalRuntimeProcess } from '#lib/local/launcher';

export default async function teardown(): Promise<void> {
  const runtimes = (globalThis as { __E2E_RUNTIMES__?: LocalRuntimeProcess[] }).__E2E_RUNTIMES__ ?? [];
  await Promise.all(runtimes.map((runtime) => runtime.stop()));
}
