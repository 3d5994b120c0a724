/**
 * A saved method's deletion while payments use it (docs/architecture.md "Safe method deletion"):
 * the record written ahead of it (store/method-deletions.ts) and when the sweeper takes it over.
 */
import type { DeletionMark } from './payors';

/**
 * How long after its start the sweeper takes a deletion over: longer than the API function that
 * began it may run (its timeout is 10 s), so a live request is never overtaken.
 */
export const DELETION_SWEEP_AFTER_SECONDS = 60;

/** The record written ahead of a deletion, beside the mark on its methods. */
export interface DeletionRecord {
  merchantId: string;
  payorId: string;
  /** The methods marked: the one deleted, or every method of a payor being deleted. */
  methodIds: string[];
  mark: DeletionMark;
}
