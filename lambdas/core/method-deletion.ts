/**
 * Safe deletion of saved methods and payors (docs/architecture.md "Safe method deletion"). A
 * method that a pending payment or a series' payment uses is not deleted: the request is refused
 * (409, the payments and series listed), or with `?replaceWith=` the payments (of groups and of
 * series) move to another method of the payor and the method is deleted after them.
 *
 * Written ahead: the deletion first marks the method (no payment can take it from then on) and
 * writes its record; then it lists the method's pending payments, moves them in batches (one
 * transaction each) and deletes the method with the record in one last transaction. A request cut
 * off anywhere leaves the mark and the record: the sweeper (`sweepDeletions`, or the next DELETE
 * of the same method with the same replacement) finishes a move, and undoes a plain deletion.
 * Every payment names a method that exists at every moment.
 */
import { randomUUID } from 'node:crypto';
import { nextSequence } from '#domain/events';
import {
  methodEvent,
  payorEvent,
  replacementDefault,
  type DeletionMark,
  type Payor,
  type SavedMethod,
} from '#domain/payors';
import { BadRequestError, ConflictError } from '#shared/errors';
import { logger } from '#shared/logger';
import { PAYOR, withOptimisticRetry } from '#shared/optimistic-concurrency';
import {
  assertNotReplacing,
  assertReplacement,
  DELETION_SWEEP_AFTER_SECONDS,
  type DeletionRecord,
} from '#domain/method-deletions';
import { methodDeletionStore, MOVE_BATCH } from '#store/method-deletions';
import { pendingUses, type PendingUses } from '#store/method-uses';
import { READ_LIMITS } from '#store/read-limits';
import { config } from '#shared/config';
import { ddb } from '#shared/ddb';
import {
  MethodInUseError,
  NOTHING_LISTED,
  usesInWords,
  whatToDo,
  whenTheyCanMove,
  type Uses,
} from './method-in-use';
import { MethodNotFoundError, ONLY_METHOD, requirePayor } from './payors';
import { clock } from '#shared/clock';

/**
 * A request moves payments for at most this long, then answers 202 and leaves the rest to the
 * sweeper: well inside the API function's 10-second timeout.
 */
const REQUEST_MOVE_BUDGET_MS = 5_000;

/** A deletion done, or (with a replacement) still moving payments in the background. */
type DeletionOutcome = { status: 'deleted' } | { status: 'accepted'; movedCount: number };

const uses = (methodId: string) => pendingUses(ddb(), config().tableName, methodId, READ_LIMITS.methodUses);

const MOVE_ADVICE = 'move them with ?replaceWith=<savedPaymentMethodId>';

/**
 * The method's uses, listed again while a listing cut short (READ_LIMITS.methodUses) found none
 * still pending: each listing removes the settled uses it read, so the next one reads on. Past
 * `deadline` (epoch ms) an incomplete listing is answered as it is: its caller must not delete.
 */
async function listedUses(methodId: string, deadline: number): Promise<PendingUses> {
  for (;;) {
    const found = await uses(methodId);
    if (found.complete || found.uses.length + found.seriesUses.length > 0) return found;
    if (clock.nowMs() > deadline) return found;
  }
}

/** A deletion whose uses could not all be checked within its request: 409, nothing deleted. */
const stillChecking = (what: string) =>
  new ConflictError(`${what} has more uses than one request checks; retry the request to go on`, {
    details: NOTHING_LISTED,
  });

/**
 * DELETE of a saved method (`replaceWith`: the method of the same payor its pending payments move
 * to). 404 for a missing method, 400 for the payor's only one or a bad replacement, 409 while
 * payments use it (without a replacement, or of groups being processed), 202 when the moves go on
 * in the background.
 */
export async function deleteMethod(
  payorId: string,
  methodId: string,
  merchantId: string,
  replaceWith: string | undefined,
  now: Date,
): Promise<DeletionOutcome> {
  const store = methodDeletionStore();
  return withOptimisticRetry(async () => {
    const { methods } = await requirePayor(payorId, merchantId);
    const method = methods.find((m) => m.savedPaymentMethodId === methodId);
    if (!method) throw new MethodNotFoundError(methodId);
    if (methods.length === 1) throw new BadRequestError(ONLY_METHOD);
    if (replaceWith !== undefined) assertReplacement(methods, methodId, replaceWith);
    assertNotReplacing(methods, methodId);
    if (method.deletion) {
      const record = await store.find(payorId, method.deletion.payor ? 'PAYOR' : { methodId });
      if (!record) return undefined; // finished or undone meanwhile: read again
      // The same request again (a client's retry after a timeout): it finishes that deletion.
      if (!record.mark.payor && record.mark.replaceWith === replaceWith) return run(record, now);
      await takeOver(record, now, `saved payment method ${methodId}`);
      return undefined;
    }
    const mark: DeletionMark = {
      token: randomUUID(),
      startedAt: now.toISOString(),
      ...(replaceWith !== undefined && { replaceWith }),
    };
    const record: DeletionRecord = { merchantId, payorId, methodIds: [methodId], mark };
    if ((await store.begin(record, [method])) !== 'ok') return undefined;
    return run(record, now);
  }, PAYOR);
}

/**
 * A deletion found under way: 409 while its request may still be running; past that, finished or
 * undone as the sweeper would, and the caller starts over.
 */
async function takeOver(record: DeletionRecord, now: Date, what: string): Promise<void> {
  const due = Date.parse(record.mark.startedAt) + DELETION_SWEEP_AFTER_SECONDS * 1000;
  if (now.getTime() < due)
    throw new ConflictError(`${what} is being deleted by another request; retry in a minute`, {
      details: NOTHING_LISTED,
    });
  await resume(record, now);
}

/**
 * Runs a method's deletion from wherever it stands: lists the pending payments (of groups and of
 * series); without a replacement, refuses (undoing the mark) or deletes; with one, moves them
 * batch by batch and deletes. `deadline` (epoch ms): no move batch starts after it (202: the
 * sweeper goes on). Undefined: the mark was taken away meanwhile (another run undid it): the
 * caller starts over.
 */
async function run(
  record: DeletionRecord,
  now: Date,
  deadline = clock.nowMs() + REQUEST_MOVE_BUDGET_MS,
): Promise<DeletionOutcome | undefined> {
  const methodId = record.methodIds[0]!;
  const what = `saved payment method ${methodId}`;
  let movedCount = 0;
  for (;;) {
    const found = await listedUses(methodId, deadline);
    const inUse = found.uses.length + found.seriesUses.length;
    if (record.mark.replaceWith === undefined) {
      if (inUse > 0 || !found.complete) {
        await undo(record);
        if (inUse === 0) throw stillChecking(what);
        throw new MethodInUseError(
          `${what} is used by ${usesInWords(found, found.complete)}: ${whatToDo(found, MOVE_ADVICE)}`,
          found,
        );
      }
      return finishPlain(record, now);
    }
    const stuck: Uses = {
      uses: found.uses.filter((u) => u.groupStatus !== 'pending'),
      seriesUses: found.seriesUses.filter((u) => u.seriesStatus === 'creating'),
    };
    if (stuck.uses.length + stuck.seriesUses.length > 0) {
      await undo(record);
      const words = { groups: ' of groups being processed (or created)', series: ' being created' };
      throw new MethodInUseError(
        `${what} is used by ${usesInWords(stuck, found.complete, words)}: they cannot move now; ${whenTheyCanMove(stuck)}${movedCount > 0 ? ` (${movedCount} payment(s) were moved)` : ''}`,
        stuck,
      );
    }
    if (inUse === 0) return found.complete ? finish(record, now) : { status: 'accepted', movedCount };
    for (const batch of moveBatches(record, found)) {
      if (clock.nowMs() > deadline) {
        logger.info('method deletion continues in the background', { methodId, movedCount });
        return { status: 'accepted', movedCount };
      }
      if (await batch.move()) {
        movedCount += batch.count;
        continue;
      }
      // Refused: a payment changed or its group was claimed (list again), or the replacement is
      // no longer there to take them (give up).
      await assertReplacementStays(record);
      break;
    }
  }
}

/** The moves of the payments listed, in transactions of MOVE_BATCH: the groups' first, then the series'. */
function moveBatches(
  record: DeletionRecord,
  found: PendingUses,
): { count: number; move(): Promise<boolean> }[] {
  const store = methodDeletionStore();
  const batches: { count: number; move(): Promise<boolean> }[] = [];
  for (let i = 0; i < found.uses.length; i += MOVE_BATCH) {
    const payments = found.uses.slice(i, i + MOVE_BATCH).map((u) => u.payment!);
    batches.push({ count: payments.length, move: () => store.movePayments(record, payments, clock.now()) });
  }
  for (let i = 0; i < found.seriesUses.length; i += MOVE_BATCH) {
    const moves = found.seriesUses
      .slice(i, i + MOVE_BATCH)
      .map((u) => ({ seriesId: u.seriesId, merchantId: u.merchantId, payment: u.payment! }));
    batches.push({ count: moves.length, move: () => store.moveSeriesPayments(record, moves) });
  }
  return batches;
}

/**
 * 409 (the deletion undone) when the replacement went away, began to be deleted itself, or was
 * revoked (a series' payment is not moved onto it: store/method-deletions.ts moveSeriesPayments).
 */
async function assertReplacementStays(record: DeletionRecord): Promise<void> {
  const { methods } = await requirePayor(record.payorId, record.merchantId);
  const replacement = methods.find((m) => m.savedPaymentMethodId === record.mark.replaceWith);
  const revoked = replacement?.status === 'revoked';
  if (replacement && !replacement.deletion && !revoked) return;
  await undo(record);
  const what = revoked
    ? 'was revoked (an unauthorized return or a fraud dispute)'
    : 'was deleted or began to be deleted';
  throw new ConflictError(
    `replaceWith ${record.mark.replaceWith} ${what} while payments moved to it; the deletion of saved payment method ${record.methodIds[0]} is undone`,
    { details: NOTHING_LISTED },
  );
}

/**
 * A plain deletion's last step; when it fails (the payor's other methods went meanwhile, or the
 * table did not answer) the mark is taken away at once, not left for the sweeper: the client is
 * told the deletion did not happen, and the method takes payments again.
 */
async function finishPlain(record: DeletionRecord, now: Date): Promise<DeletionOutcome | undefined> {
  try {
    return await finish(record, now);
  } catch (error) {
    await undo(record).catch((cleanup: unknown) =>
      logger.warn('could not undo a method deletion; the sweeper will', { record, cleanup }),
    );
    throw error;
  }
}

/**
 * Deletes the marked method with its record (the replacement becomes the default if it was);
 * undefined when the mark is no longer this deletion's (undone by another run). 400 when the
 * payor's other methods were deleted meanwhile (it is the only one now).
 */
async function finish(record: DeletionRecord, now: Date): Promise<DeletionOutcome | undefined> {
  const store = methodDeletionStore();
  const methodId = record.methodIds[0]!;
  const done = await withOptimisticRetry(async () => {
    const { payor, methods } = await requirePayor(record.payorId, record.merchantId);
    const method = methods.find((m) => m.savedPaymentMethodId === methodId);
    // Gone: a concurrent run of this deletion finished it (only a run holding the mark deletes it).
    if (!method) return 'deleted';
    if (method.deletion?.token !== record.mark.token) return 'undone';
    // Concurrent deletions of the payor's other methods finished first.
    if (methods.length === 1) throw new BadRequestError(ONLY_METHOD);
    // The new default is a method not being deleted itself; while every other one is, wait for
    // them (they finish, or are undone) and read again.
    const candidates = methods.filter((m) => m.savedPaymentMethodId === methodId || !m.deletion);
    const nextDefault = record.mark.replaceWith ?? replacementDefault(candidates, methodId);
    if (payor.defaultPaymentMethodId === methodId && nextDefault === undefined) return undefined;
    const deleted: SavedMethod = { ...method, eventSeq: nextSequence(method.eventSeq) };
    const event = methodEvent('payment_method.deleted', deleted, payor.defaultPaymentMethodId, now);
    return (await store.finishMethod(record, payor, method, nextDefault, event)) === 'ok'
      ? 'deleted'
      : undefined;
  }, PAYOR);
  return done === 'deleted' ? { status: 'deleted' } : undefined;
}

/** Removes this deletion's mark from the methods that still carry it, and its record. */
async function undo(record: DeletionRecord): Promise<void> {
  const found = await requirePayor(record.payorId, record.merchantId).catch(() => undefined);
  const marked = (found?.methods ?? []).filter((m) => m.deletion?.token === record.mark.token);
  await methodDeletionStore().undo(record, marked);
}

/**
 * A deletion whose request is gone: a move is finished (the payments moved so far stay moved;
 * refused and undone when the rest belongs to groups being processed); a plain deletion or a
 * payor's is undone (the client never heard it done, and asks again).
 */
async function resume(record: DeletionRecord, now: Date, deadline?: number): Promise<string> {
  if (record.mark.payor || record.mark.replaceWith === undefined) {
    await undo(record);
    return 'undone';
  }
  try {
    const outcome = await run(record, now, deadline);
    return outcome === undefined ? 'undone' : outcome.status === 'deleted' ? 'deleted' : 'moving';
  } catch (error) {
    if (error instanceof ConflictError) return 'undone';
    throw error;
  }
}

/**
 * DELETE of a payor: refused (409) while any of its methods is used by a pending payment;
 * otherwise the payor, its methods and its customerAccountId go, announced by `payor.deleted`.
 */
export async function deletePayor(payorId: string, merchantId: string, now: Date): Promise<void> {
  const store = methodDeletionStore();
  await withOptimisticRetry(async () => {
    const { methods } = await requirePayor(payorId, merchantId);
    const marked = methods.find((m) => m.deletion);
    if (marked) {
      const target = marked.deletion!.payor ? 'PAYOR' : { methodId: marked.savedPaymentMethodId };
      const record = await store.find(payorId, target);
      if (record)
        await takeOver(
          record,
          now,
          record.mark.payor ? `payor ${payorId}` : `its saved payment method ${marked.savedPaymentMethodId}`,
        );
      return undefined;
    }
    const mark: DeletionMark = { token: randomUUID(), startedAt: now.toISOString(), payor: true };
    const record: DeletionRecord = {
      merchantId,
      payorId,
      methodIds: methods.map((m) => m.savedPaymentMethodId),
      mark,
    };
    if ((await store.begin(record, methods)) !== 'ok') return undefined;
    const inUse: PendingUses = { uses: [], seriesUses: [], complete: true };
    const deadline = clock.nowMs() + REQUEST_MOVE_BUDGET_MS;
    for (const m of methods) {
      const found = await listedUses(m.savedPaymentMethodId, deadline);
      inUse.uses.push(...found.uses);
      inUse.seriesUses.push(...found.seriesUses);
      inUse.complete &&= found.complete;
    }
    if (inUse.uses.length + inUse.seriesUses.length > 0 || !inUse.complete) {
      await undo(record);
      if (inUse.uses.length + inUse.seriesUses.length === 0) throw stillChecking(`payor ${payorId}`);
      throw new MethodInUseError(
        `payor ${payorId} has saved payment methods used by ${usesInWords(inUse, inUse.complete)}: ${whatToDo(inUse, inUse.uses.length > 0 ? 'move those payments to a method of another payor' : undefined)}`,
        inUse,
      );
    }
    const found = await requirePayor(payorId, merchantId);
    const deleted: Payor = { ...found.payor, eventSeq: nextSequence(found.payor.eventSeq) };
    const event = payorEvent('payor.deleted', deleted, found.methods, now);
    if ((await store.finishPayor(record, found, event)) === 'ok') return true;
    // A method added or changed meanwhile: undo and start over, marking it too.
    await undo(record);
    return undefined;
  }, PAYOR);
}

/** What the sweeper did with each deletion it took over. */
export interface DeletionSweepEntry {
  payorId: string;
  methodIds: string[];
  result: string;
}

/**
 * The sweeper's part: deletions whose request died (their record past its due time) are finished
 * or undone (`resume`); none is started after `deadline`.
 */
export async function sweepDeletions(
  now: Date,
  options: { olderThanSeconds?: number; deadline?: number; limit?: number } = {},
): Promise<DeletionSweepEntry[]> {
  // A record's sort key is its due time (its start + DELETION_SWEEP_AFTER_SECONDS): those begun
  // more than olderThanSeconds ago (default that same time) have a due time before the cut-off.
  const olderThan = options.olderThanSeconds ?? DELETION_SWEEP_AFTER_SECONDS;
  const cutoff = new Date(now.getTime() + (DELETION_SWEEP_AFTER_SECONDS - olderThan) * 1000);
  const records = await methodDeletionStore().stale(
    cutoff.toISOString(),
    options.limit ?? READ_LIMITS.staleDeletions,
  );
  const done: DeletionSweepEntry[] = [];
  for (const record of records) {
    if (options.deadline !== undefined && clock.nowMs() > options.deadline) break;
    let result: string;
    try {
      result = await resume(record, now, options.deadline);
    } catch (error) {
      logger.error('sweep: could not resume a method deletion', { payorId: record.payorId, error });
      result = `failed: ${String(error)}`;
    }
    done.push({ payorId: record.payorId, methodIds: record.methodIds, result });
  }
  return done;
}
