import type { RuntimeProcess } from './runtime';

export default async function teardown(): Promise<void> {
  await (globalThis as { __E2E_RUNTIME__?: RuntimeProcess }).__E2E_RUNTIME__?.stop();
}
