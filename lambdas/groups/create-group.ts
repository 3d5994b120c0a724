import { fitting } from '#core/answer-size';
import { createGroup, storedGroup } from '#core/groups';
import { assertServicePayId, groupWithPaymentsView } from '#domain/groups';
import * as routes from '#generated/validators';
import { merchantRoute } from '#core/merchants';

/**
 * The group with its payments. A create too large to answer is refused before it is written
 * (core/groups.ts); a group that a replay (or a resumed create) finds grown since, by payments
 * added, past what an answer carries is named instead, to be read page by page.
 */
const view = (created: Parameters<typeof groupWithPaymentsView>[0]) =>
  fitting(
    groupWithPaymentsView(created),
    `payment group ${created.group.paymentGroupId} was created: read it with GET .../groups/${created.group.paymentGroupId} and its payments page by page`,
  );

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
