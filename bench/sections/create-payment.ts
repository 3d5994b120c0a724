/**
 * Create-payment: `POST /rest/merchants/{MID}/groups/{GroupID}/payments` against the DynamoDB
 * calls the handler makes for it, done directly with the SDK:
 *
 * - the grant lookup of lambdas/core/merchants.ts `authorize` (GetCommand, cached per client|MID
 *   for AUTHZ_CACHE_SECONDS, so nearly never),
 * - lambdas/core/profiles.ts `resolveProfiles` → store/methods.ts `methodsByRef`: one
 *   BatchGetCommand of the method item,
 * - lambdas/store/payments.ts `addPayment`: one TransactWriteCommand of 5 items: Put payment (if
 *   absent), Update group totals (if pending, this merchant's and not full), ConditionCheck of the
 *   method (there and not being deleted), Put the method's use, Put the `payment.created` event.
 *   The bench's payments do not ask for a payment-scheduled notice, so the handler reads no group
 *   and writes no outbox item.
 *
 * The raw side runs the stores' own methodsByRef and addPayment on the raw client (as list-groups
 * runs the store's readPage), with the payment made by the domain's newPayment, so both sides
 * write the same items and stay so when the handler's writes change. Load is spread round-robin
 * over `paymentGroups` groups per side.
 */
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { newPayment } from '../../lambdas/domain/groups';
import { newId } from '../../lambdas/shared/ids';
import { keys } from '../../lambdas/store/keys';
import { DynamoMethodStore } from '../../lambdas/store/methods';
import { DynamoPaymentStore } from '../../lambdas/store/payments';
import { CLIENT, MID, type BenchContext } from '../support/context';
import { compareSection } from './section';

/** 1.00 .. 999.99, varied so that items are not all alike. */
// Whole cents over 100: the double prints with at most two decimals (1 + 0.29 would not), which
// the API requires of an amount as written.
const amountOf = (seq: number) => (100 + (seq % 99_900)) / 100;

/** The handler's grant cache (lambdas/core/merchants.ts), per measured side. */
export function grantCache(db: DynamoDBDocumentClient, tableName: string, ttlSeconds: number) {
  let until = 0;
  return async (nowMs: number) => {
    if (until > nowMs) return;
    const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.grant(CLIENT.id, MID) }));
    if (!Item) throw new Error(`no grant for ${CLIENT.id} on ${MID}`);
    if (ttlSeconds > 0) until = nowMs + ttlSeconds * 1000;
  };
}

async function prepare(ctx: BenchContext) {
  const { api, runtime, config } = ctx;
  const tableName = runtime.tableName;
  const profileId = await ctx.profileId();
  const [payorId, methodId] = profileId.split('/') as [string, string];
  const apiGroups = await ctx.createGroups(config.paymentGroups);
  const rawGroups = await ctx.createGroups(config.paymentGroups);

  const apiOp = async (_w: number, seq: number) => {
    const groupId = apiGroups[seq % apiGroups.length]!;
    const reply = await api.send('POST', `/rest/merchants/${MID}/groups/${groupId}/payments`, {
      paymentGroupId: groupId,
      profileId,
      amount: amountOf(seq),
    });
    return reply.status === 201 ? undefined : `${reply.status} ${reply.text.slice(0, 160)}`;
  };

  const rawOp = (raw: DynamoDBDocumentClient) => {
    const authorize = grantCache(raw, tableName, config.authzCacheSeconds);
    const methods = new DynamoMethodStore(raw, tableName);
    const payments = new DynamoPaymentStore(raw, tableName);
    return async (_w: number, seq: number) => {
      const now = new Date();
      const paymentGroupId = rawGroups[seq % rawGroups.length]!;
      await authorize(now.getTime());
      const found = await methods.methodsByRef([{ payorId, savedPaymentMethodId: methodId }], MID);
      // methodsByRef keeps only this merchant's methods.
      if (!found.has(profileId)) return 'profile not found';
      const payment = newPayment(
        { paymentGroupId, profileId, amount: amountOf(seq) },
        { paymentGroupId, merchantId: MID },
        newId(),
        now,
      );
      const outcome = await payments.addPayment(payment, now);
      return outcome === 'ok' ? undefined : outcome;
    };
  };

  return {
    api: apiOp,
    raw: rawOp,
    notes: { groupsPerSide: config.paymentGroups },
  };
}

export const createPayment = compareSection({
  name: 'create-payment',
  key: 'createPayment',
  title: 'Create payment',
  operation: 'POST /rest/merchants/{MID}/groups/{GroupID}/payments',
  cpuTarget: 0.9,
  prepare,
});
