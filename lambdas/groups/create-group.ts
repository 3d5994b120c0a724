import { createGroup, storedGroup } from '#core/groups';
import { assertServicePayId, groupWithPaymentsView as view } from '#domain/groups';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';

/**
 * POST /rest/merchants/{MID}/groups: a group and (optionally) its payments, all or nothing, with
 * the payment-scheduled notices of the payments that ask for one. A key's record keeps the
 * group's id only (a 10,000-payment answer is far over an item's 400 KB): a replay answers the
 * group as stored now (docs/decisions.md "Idempotent group create").
 */
export const handler = merchantRoute(
  routes.CreateGroup,
  async ({ merchant, body, now, idempotency }) => {
    assertServicePayId(body.servicePayId, merchant);
    return { status: 201, body: view(await createGroup(body, merchant, now, idempotency)) };
  },
  {
    keep: {
      record: (result) => ({ paymentGroupId: (result.body as { paymentGroupId: string }).paymentGroupId }),
      replay: async (kept, { merchant }) => ({
        status: 201,
        body: view(
          await storedGroup((kept as { paymentGroupId: string }).paymentGroupId, merchant.merchantId),
        ),
      }),
    },
  },
);
