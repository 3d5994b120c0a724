/**
 * What DynamoDB Local cannot produce, injected into a document client's middleware stack for the
 * integration tier's race tests:
 * - stale reads: an eventually consistent GetItem of a watched key answers the item as it was
 *   when watching began (a replica that has not caught up), as DynamoDB may for about a second
 *   after a write; a strongly consistent read (`ConsistentRead: true`) answers the truth;
 * - transaction conflicts: a TransactWriteItems is cancelled with `TransactionConflict` (another
 *   transaction held one of its items), which DynamoDB Local never does, at a seeded rate.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

type Key = Record<string, unknown>;
/** An initialize-step middleware: it sees document-level input and output (before marshalling). */
type Handler = (args: { input: object }) => Promise<{ output: object }>;
type Middleware = (next: Handler, context: { commandName?: string }) => Handler;

const keyOf = (key: Key): string => `${String(key.pk)}|${String(key.sk)}`;

export interface Injection {
  /** Eventually consistent reads of the watched keys that were answered stale. */
  readonly staleAnswers: number;
  /** Transactions cancelled with TransactionConflict. */
  readonly conflicts: number;
  remove(): void;
}

let counter = 0;

/** A small seeded generator (mulberry32), so that a failing run can be repeated. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface FaultOptions {
  /** Keys whose eventually consistent GetItem answers the item as it is now, from now on. */
  stale?: Key[];
  /** Share (0-1) of TransactWriteItems calls cancelled with TransactionConflict. */
  conflictRate?: number;
  seed?: number;
}

/** Installs the faults on `db` (the container's client: core code uses it); `remove()` ends them. */
export async function injectFaults(
  db: DynamoDBDocumentClient,
  tableName: string,
  options: FaultOptions,
): Promise<Injection> {
  const snapshots = new Map<string, Key | undefined>();
  for (const key of options.stale ?? []) {
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
    snapshots.set(keyOf(key), Item);
  }
  const random = seeded(options.seed ?? 1);
  const rate = options.conflictRate ?? 0;
  const state = { staleAnswers: 0, conflicts: 0 };
  const name = `test-faults-${++counter}`;
  const middleware: Middleware = (next, context) => async (args) => {
    const input = args.input as Record<string, unknown>;
    if (context.commandName === 'GetItemCommand' && input.ConsistentRead !== true) {
      const key = keyOf(input.Key as Key);
      if (snapshots.has(key)) {
        state.staleAnswers++;
        const Item = snapshots.get(key);
        return { output: { ...(Item && { Item }), $metadata: {} } };
      }
    }
    if (context.commandName === 'TransactWriteItemsCommand' && rate > 0 && random() < rate) {
      state.conflicts++;
      const items = (input.TransactItems as unknown[]).length;
      throw new TransactionCanceledException({
        message:
          'Transaction cancelled, please refer cancellation reasons for specific reasons [TransactionConflict]',
        $metadata: {},
        CancellationReasons: Array.from({ length: items }, (_, i) =>
          i === 0 ? { Code: 'TransactionConflict' } : { Code: 'None' },
        ),
      });
    }
    return next(args);
  };
  db.middlewareStack.add(middleware as never, { step: 'initialize', name });
  return {
    get staleAnswers() {
      return state.staleAnswers;
    },
    get conflicts() {
      return state.conflicts;
    },
    remove: () => void db.middlewareStack.remove(name),
  };
}

/** The injected crash: the container died at this point (nothing after it ran). */
export class CrashError extends Error {
  constructor(readonly at: string) {
    super(`injected crash ${at}`);
    this.name = 'CrashError';
  }
}

interface Crash {
  /** Crashes so far (0 or 1: the injection ends with its crash). */
  readonly crashed: number;
  remove(): void;
}

const crashes = new Set<() => void>();

/**
 * A crash at one write: the first `commandName` call whose document-level input `matches` throws
 * CrashError `before` it is sent (the write never happens) or `after` DynamoDB answered it (the
 * write happened, its caller never hears so). Once: the injection removes itself when it fires.
 * With `dies`, the container stays dead instead: every later call of the client throws CrashError
 * too (no clean-up path runs, as after a real crash) until `remove()` (the restart).
 * `removeCrashes()` ends any that never fired (an afterEach).
 */
export function injectCrash(
  db: DynamoDBDocumentClient,
  commandName: string,
  when: 'before' | 'after',
  matches: (input: Record<string, unknown>) => boolean = () => true,
  options: { dies?: boolean } = {},
): Crash {
  const name = `test-crash-${++counter}`;
  const state = { crashed: 0 };
  const remove = () => {
    crashes.delete(remove);
    db.middlewareStack.remove(name);
  };
  const middleware: Middleware = (next, context) => async (args) => {
    const input = args.input as Record<string, unknown>;
    if (state.crashed > 0 && options.dies) throw new CrashError(`dead: ${context.commandName ?? 'a call'}`);
    if (state.crashed > 0 || context.commandName !== commandName || !matches(input)) return next(args);
    state.crashed++;
    if (!options.dies) remove();
    if (when === 'after') await next(args);
    throw new CrashError(`${when} ${commandName}`);
  };
  db.middlewareStack.add(middleware as never, { step: 'initialize', name });
  crashes.add(remove);
  return {
    get crashed() {
      return state.crashed;
    },
    remove,
  };
}

/** Ends every crash injection still waiting for its write. */
export function removeCrashes(): void {
  for (const remove of [...crashes]) remove();
}

/**
 * A pause at some calls: every `commandName` call whose document-level input `matches` waits for
 * `pause()` before it is sent (a writer slowed mid-write, a reader held at one step), in real
 * order, without a timer. `remove()` ends it.
 */
export function injectPause(
  db: DynamoDBDocumentClient,
  commandName: string,
  matches: (input: Record<string, unknown>) => boolean,
  pause: () => Promise<unknown>,
): { remove(): void } {
  const name = `test-pause-${++counter}`;
  const middleware: Middleware = (next, context) => async (args) => {
    if (context.commandName === commandName && matches(args.input as Record<string, unknown>)) await pause();
    return next(args);
  };
  db.middlewareStack.add(middleware as never, { step: 'initialize', name });
  return { remove: () => db.middlewareStack.remove(name) };
}
