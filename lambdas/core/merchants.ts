/**
 * Merchants as the functions meet them: every API request acts for the merchant of its path's MID
 * once the merchant registry (store/merchants.ts) says that the client may, a grant a warm
 * container trusts for AUTHZ_CACHE_SECONDS (docs/decisions.md, "Grants cached for 30 seconds");
 * and a merchant's record for the e-mails its payors get.
 */
import { config } from '#shared/config';
import { ddb } from '#shared/ddb';
import { ForbiddenError } from '#shared/errors';
import { merchantRoutes } from '#shared/http';
import { idempotent } from './idempotency';
import { MerchantRegistry, type Merchant } from '#store/merchants';

let registry: MerchantRegistry | undefined;
const merchants = (): MerchantRegistry => (registry ??= new MerchantRegistry(ddb(), config().tableName));

const grantCache = new Map<string, { merchant: Merchant; until: number }>();

/** The merchant this client may act for under the path MID; 403 for unknown or not granted. */
async function authorize(clientId: string, mid: string, nowMs: number): Promise<Merchant> {
  const cacheKey = `${clientId}|${mid}`;
  const hit = grantCache.get(cacheKey);
  if (hit && hit.until > nowMs) return hit.merchant;
  const merchant = await merchants().authorized(clientId, mid);
  if (!merchant) {
    grantCache.delete(cacheKey);
    throw new ForbiddenError(`client ${clientId} is not authorized for merchant ${mid}`);
  }
  const ttl = config().authzCacheSeconds * 1000;
  if (ttl > 0) grantCache.set(cacheKey, { merchant, until: nowMs + ttl });
  return merchant;
}

/**
 * The handler of a route under `/rest/merchants/{MID}` (shared/http.ts), for an authorized
 * merchant; a route that declares `idempotency` runs once per key (core/idempotency.ts).
 */
export const merchantRoute = /* @__PURE__ */ merchantRoutes(authorize, idempotent);

/** The merchant registered under this MID (8 or 11 digits), if any. */
export const findMerchant = (mid: string): Promise<Merchant | undefined> => merchants().find(mid);
