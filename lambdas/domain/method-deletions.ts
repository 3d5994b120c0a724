/**
 * A saved method's deletion while payments use it (docs/architecture.md "Safe method deletion"):
 * the record written ahead of it (store/method-deletions.ts), when the sweeper takes it over, and
 * what a replacement must be.
 */
import { BadRequestError, ConflictError } from '#shared/errors';
import { isUnusable, type DeletionMark, type SavedMethod } from './payors';

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

/**
 * 409 while the method is the replacement of another's deletion under way: deleted now, it would
 * leave that deletion neither finished (its payments move onto it) nor undone.
 */
export function assertNotReplacing(methods: readonly SavedMethod[], methodId: string): void {
  const replaced = methods.find((m) => m.deletion?.replaceWith === methodId);
  if (replaced)
    throw new ConflictError(
      `saved payment method ${methodId} is the replacement of saved payment method ${replaced.savedPaymentMethodId}, whose deletion is under way: delete it once that is done`,
    );
}

/** 400 unless `replaceWith` is another usable method of the payor, not itself being deleted. */
export function assertReplacement(
  methods: readonly SavedMethod[],
  methodId: string,
  replaceWith: string,
): void {
  if (replaceWith === methodId)
    throw new BadRequestError('replaceWith must name another saved payment method');
  const replacement = methods.find((m) => m.savedPaymentMethodId === replaceWith);
  if (!replacement)
    throw new BadRequestError(`replaceWith ${replaceWith} names no saved payment method of this payor`);
  if (isUnusable(replacement))
    throw new BadRequestError(
      `replaceWith ${replaceWith} names a method whose account is ${replacement.status}`,
    );
  if (replacement.deletion)
    throw new BadRequestError(`replaceWith ${replaceWith} names a method being deleted`);
}
