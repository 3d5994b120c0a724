import { payorView } from '#domain/payors';
import { merchantRoute } from '#shared/http';
import { searchPayorsQuerySchema, type SearchPayorsQuery } from '#shared/schemas';
import { validator } from '#shared/validation';
import { payorStore } from '#store/payors';

const parseQuery = validator<SearchPayorsQuery>(searchPayorsQuerySchema, 'query');

/** GET /v1/rest/merchants/{MID}/payors?customerAccountId=: an array of 0 or 1 payor. */
export const handler = merchantRoute({}, async ({ merchant, query }) => {
  const { customerAccountId } = parseQuery(query);
  const store = payorStore();
  const payorId = await store.payorIdByCustomer(merchant.merchantId, customerAccountId);
  const found = payorId ? await store.find(payorId, merchant.merchantId) : undefined;
  return { status: 200, body: found ? [payorView(found.payor, found.methods)] : [] };
});
