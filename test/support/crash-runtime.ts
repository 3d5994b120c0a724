/**
 * The crash test's local runtime: one data directory and one pair of ports, killed with SIGKILL
 * and started again on both; and the seeded random numbers that make its schedule reproducible.
 *
 * What is killed is the service's process: its functions, state machines, queues and timers, all
 * in memory. The table lives in a DynamoDB Local started once beside it (DYNAMODB_ENDPOINT), as
 * DynamoDB outlives a Lambda in the cloud; so a restart takes the runtime's start-up only (about
 * two seconds), not a JVM's too (about seven: the test spent two thirds of its time on them).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDynamoDbLocal, type DynamoDbLocal } from '#lib/local/dynamodb-local';
import { launchLocalRuntime, type LocalRuntimeProcess } from '#lib/local/launcher';

/** mulberry32: a small seeded generator; each call gives a number in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export const between = (random: () => number, min: number, max: number): number =>
  min + Math.floor(random() * (max - min + 1));

export const pick = <T>(random: () => number, items: readonly T[]): T =>
  items[Math.floor(random() * items.length)]!;

/** The runtime's settings for the crash test (docs/integrating.md "Local runtime", README "Tests"). */
const CRASH_RUNTIME_ENV = {
  // Cut-offs every 30 s, so that sales settle and are refunded within the test (void margin 0.3 s).
  SANDBOX_SETTLEMENT_SECONDS: '30',
  // Each processor call takes a little time, as a card network's does: kills land inside them.
  SANDBOX_LATENCY_MS: '15',
  // A group whose execution died with the runtime is re-driven by a tick 3 s after its claim,
  // not 5 minutes (SUPERVISE_AFTER_SECONDS).
  SUPERVISE_AFTER_SECONDS: '3',
  // Smaller tasks: more of them start and end between kills.
  PROCESS_BATCH_SIZE: '60',
  POWERTOOLS_LOG_LEVEL: 'ERROR',
  // Webhooks: a delivery whose message died with the runtime is found by the sweep (every
  // second) a second later, not 5 minutes; retries come as quickly.
  WEBHOOK_RETRY_SCALE: '0.002',
  LOCAL_WEBHOOK_SWEEP_SECONDS: '1',
};

/** A memory-backed file system when there is one: a killed process's writes survive it all the same. */
const DATA_ROOT = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();

export class CrashRuntime {
  readonly dataDir = mkdtempSync(join(DATA_ROOT, 'sps-crash-'));
  /** Command lines of DynamoDB Local processes that outlived a kill or the final stop. */
  readonly orphans: string[] = [];
  kills = 0;
  starts = 0;
  private current: LocalRuntimeProcess | undefined;
  private ports: { port: number; sesPort: number } | undefined;
  /** The table's DynamoDB Local: started with the first runtime, stopped with the last. */
  private dynamo: DynamoDbLocal | undefined;

  /** The API's address (the same after every restart). */
  get url(): string {
    if (!this.current) throw new Error('the crash runtime is not running');
    return this.current.url;
  }

  get running(): boolean {
    return this.current !== undefined;
  }

  async start(): Promise<void> {
    this.dynamo ??= await startDynamoDbLocal();
    this.current = await launchLocalRuntime({
      dataDir: this.dataDir,
      ...this.ports,
      env: { ...CRASH_RUNTIME_ENV, DYNAMODB_ENDPOINT: this.dynamo.endpoint },
    });
    this.ports = { port: this.current.port, sesPort: this.current.sesPort };
    this.starts += 1;
  }

  /** SIGKILL: no handler runs; executions, queued messages and timers in memory are lost. */
  async kill(): Promise<void> {
    const runtime = this.current;
    if (!runtime) return;
    this.current = undefined;
    const { orphans } = await runtime.stop('SIGKILL');
    this.kills += 1;
    this.orphans.push(...orphans);
  }

  /**
   * Stops it as Ctrl-C does (if running); the data directory goes when no Java process is left,
   * unless `keepData` (to look into a failed run). Safe to repeat.
   */
  async stop(keepData = false): Promise<number | null> {
    const runtime = this.current;
    this.current = undefined;
    const result = runtime ? await runtime.stop('SIGINT') : { exitCode: 0, orphans: [] };
    this.orphans.push(...result.orphans);
    await this.dynamo?.stop();
    this.dynamo = undefined;
    if (this.orphans.length === 0 && !keepData) rmSync(this.dataDir, { recursive: true, force: true });
    return result.exitCode;
  }

  /** The last output of the running runtime (for failure messages). */
  output(): string {
    return this.current?.output() ?? '';
  }
}
