import type { LocalRuntimeProcess } from '#lib/local/launcher';

export default async function teardown(): Promise<void> {
  await (globalThis as { __E2E_RUNTIME__?: LocalRuntimeProcess }).__E2E_RUNTIME__?.stop();
}
