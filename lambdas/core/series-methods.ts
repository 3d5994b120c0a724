/**
 * A series PUT's `payments` (docs/product.md#series): payments of the series, named by index,
 * given a new saved method. This is how a payment suspended because its method was revoked
 * (`authorization_revoked`) is charged again without a `replaceWith` deletion of that method: the
 * new method may be another payor's. Each payment moves with its method use and under the deletion
 * fence (store/series.ts changeMethods), with the series' write on the revision read, so an
 * occurrence's group is made either from the payments before or after the change, never half.
 */
import type { UpdateSeriesInput } from '#contract/schemas/series';
import { parseProfileId } from '#domain/payors';
import { centsOf, type Series } from '#domain/series';
import { updatedSeries } from '#domain/series-changes';
import { seriesEvent } from '#domain/series-view';
import { BadRequestError } from '#shared/errors';
import { ValidationError } from '#shared/validation';
import { seriesStore } from '#store/series';
import { resolveProfiles } from './profiles';

type MethodChange = NonNullable<UpdateSeriesInput['payments']>[number];

/** 400 naming the second of two changes of one payment: a request gives each payment one method. */
function assertDistinct(changes: readonly MethodChange[]): void {
  const first = new Map<number, number>();
  changes.forEach((change, i) => {
    const earlier = first.get(change.index);
    if (earlier !== undefined)
      throw new ValidationError([
        {
          field: `payments[${i}].index`,
          message: `payments[${i}].index ${change.index} names the same payment as payments[${earlier}]`,
        },
      ]);
    first.set(change.index, i);
  });
}

/**
 * The series after the PUT (its other fields too, as updatedSeries makes them) with the named
 * payments on their new methods; the series as it is when nothing changes; `undefined` when the
 * series or a payment changed since read (the caller reads again).
 */
export async function withNewMethods(
  series: Series,
  input: UpdateSeriesInput,
  now: Date,
): Promise<Series | undefined> {
  const changes = input.payments ?? [];
  assertDistinct(changes);
  // A canceled or completed series is refused here, before anything is read.
  const changed = updatedSeries(series, input, now);
  await resolveProfiles(
    series.merchantId,
    changes.map((c) => c.profileId),
    (i) => `payments[${i}].profileId`,
  );
  const store = seriesStore();
  const read = await store.paymentsAt(
    series.seriesId,
    changes.map((c) => c.index),
  );
  const missing = changes.findIndex((c) => !read.has(c.index));
  if (missing >= 0)
    throw new BadRequestError(
      `payments[${missing}].index ${changes[missing]!.index} names no payment of series ${series.seriesId}`,
    );
  const moves = changes.flatMap((c) => {
    const payment = read.get(c.index)!;
    const ref = parseProfileId(c.profileId);
    const to = `${ref.payorId}/${ref.savedPaymentMethodId}`;
    const same = parseProfileId(payment.profileId);
    const unchanged =
      same.payorId === ref.payorId &&
      same.savedPaymentMethodId === ref.savedPaymentMethodId &&
      payment.status === undefined;
    return unchanged ? [] : [{ payment, to }];
  });
  if (moves.length === 0 && changed === undefined) return series;
  const written: Series = changed ?? {
    ...series,
    lastUpdated: now.toISOString(),
    revision: series.revision + 1,
    eventSeq: (series.eventSeq ?? 0) + 1,
  };
  // A suspended payment given a method is active again: each occurrence charges it too.
  const lifted = moves.filter((m) => m.payment.status === 'suspended');
  const next = { ...written, totalCents: written.totalCents + centsOf(lifted.map((m) => m.payment)) };
  const event = seriesEvent('series.updated', next, now);
  return (await store.changeMethods(next, series, moves, event)) ? next : undefined;
}
