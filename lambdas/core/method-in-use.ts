/**
 * The 409 of a saved method (or a payor) still in use (docs/architecture.md "Safe method
 * deletion"): what uses it is listed, the pending payments of groups (`payments`) and the series
 * whose payments name it (`series`), at most MAX_LISTED of each, and the message says what to do.
 */
import { ConflictError } from '#shared/errors';
import type { PendingSeriesUse } from '#store/method-series-uses';
import type { PendingUse } from '#store/method-uses';

/** Payments, and series, a 409 lists at most (each). */
const MAX_LISTED = 100;

/** What uses a method: payments of groups, and payments of series. */
export interface Uses {
  uses: readonly PendingUse[];
  seriesUses: readonly PendingSeriesUse[];
}

/** The series of these uses, each once, in the order found. */
const seriesOf = (seriesUses: readonly PendingSeriesUse[]): string[] => [
  ...new Set(seriesUses.map((u) => u.seriesId)),
];

/** The body's lists of a 409 naming nothing (a deletion already under way). */
export const NOTHING_LISTED = { payments: [], series: [] };

/** The 409 of a method (or payor) still used: `payments` and `series` list what uses it. */
export class MethodInUseError extends ConflictError {
  constructor(message: string, found: Uses) {
    super(message, {
      details: {
        payments: found.uses
          .slice(0, MAX_LISTED)
          .map((u) => ({ paymentGroupId: u.paymentGroupId, paymentId: u.paymentId })),
        series: seriesOf(found.seriesUses)
          .slice(0, MAX_LISTED)
          .map((seriesId) => ({ seriesId })),
      },
    });
  }
}

/**
 * What uses it, in words: "2 pending payment(s) of groups being processed" and/or "the payments of
 * 1 series being created" (`or more` when the listing was cut short; `groups` and `series` say
 * what stands after each count, if anything).
 */
export function usesInWords(
  found: Uses,
  complete: boolean,
  words: { groups?: string; series?: string } = {},
): string {
  const more = complete ? '' : ' or more';
  const parts: string[] = [];
  if (found.uses.length > 0)
    parts.push(`${found.uses.length}${more} pending payment(s)${words.groups ?? ''}`);
  const series = seriesOf(found.seriesUses).length;
  if (series > 0) parts.push(`the payments of ${series}${more} series${words.series ?? ''}`);
  return parts.join(' and ');
}

/**
 * What a merchant can do about these uses before deleting again: `move` (when the payments can
 * move), or change or delete the payments of groups, and cancel the series.
 */
export function whatToDo(found: Uses, move: string | undefined): string {
  const first = [
    ...(found.uses.length > 0 ? ['change or delete those payments'] : []),
    ...(found.seriesUses.length > 0 ? ['cancel those series'] : []),
  ].join(' and ');
  return move === undefined ? `${first} first` : `${move}, or ${first} first`;
}

/** When uses that cannot move now (of groups being processed or created, of series being created) can. */
export function whenTheyCanMove(stuck: Uses): string {
  const groups = stuck.uses.length > 0 ? 'those groups are processed' : undefined;
  const series = stuck.seriesUses.length > 0 ? 'those series are created' : undefined;
  return `retry once ${[groups, series].filter((w) => w !== undefined).join(' and ')}`;
}
