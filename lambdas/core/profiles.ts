/** Scheduled payments must name a saved method of a payor of the same merchant (DESIGN.md 3). */
import { parseProfileId } from '#domain/payors';
import { BadRequestError } from '#shared/errors';
import { payorStore } from '#store/payors';

/**
 * 400 naming the first payment whose profileId is not a saved method of this merchant.
 * `field(i)` names payment i in the message (`payments[3].profileId`).
 */
export async function assertProfilesExist(
  merchantId: string,
  profileIds: string[],
  field: (index: number) => string = () => 'profileId',
): Promise<void> {
  if (profileIds.length === 0) return;
  const missing = await payorStore().missingMethods(profileIds.map(parseProfileId), merchantId);
  if (missing.size === 0) return;
  const index = profileIds.findIndex((id) => {
    const ref = parseProfileId(id);
    return missing.has(`${ref.payorId}/${ref.savedPaymentMethodId}`);
  });
  throw new BadRequestError(
    `${field(index)} ${profileIds[index]} names no saved payment method of a payor of this merchant`,
  );
}
