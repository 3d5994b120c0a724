/**
 * Create-payment: `POST /rest/merchants/{MID}/groups/{GroupID}/payments` against the DynamoDB
 * calls the handler makes for it, done directly with the SDK:
 *
 * - the grant lookup of lambdas/shared/http.ts `authorize` (GetCommand, cached per client|MID for
 *   AUTHZ_CACHE_SECONDS, so nearly never),
 * - lambdas/core/profiles.ts `resolveProfiles` → store/methods.ts `methodsByRef`: one
 *   BatchGetCommand of the method item (projection payorId, savedPaymentMethodId, merchantId,
 *   maskedAccountNumber, accountType),
 * - lambdas/store/payments.ts `addPayment`: one TransactWriteCommand, Put payment (if absent) +
 *   Update group totals (if pending and this merchant's). The bench's payments do not ask for a
 *   payment-scheduled notice, so the handler reads no group and writes no outbox item.
 *
 * The raw payment item is a copy of one the API wrote (new id, group and timestamps), so both
 * sides write the same attributes. Load is spread round-robin over `paymentGroups` groups per side.
 */
import {
  BatchGetCommand,
  GetCommand,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { v7 } from 'uuid';
import { keys } from '../../lambdas/shared/keys';
import { CLIENT, MID, type BenchContext } from '../support/context';
import { compareSection } from './section';

type Item = Record<string, unknown>;

/** 1.00 .. 999.99, varied so that items are not all alike. */
// Whole cents over 100: the double prints with at most two decimals (1 + 0.29 would not), which
// the API requires of an amount as written.
const amountOf = (seq: number) => (100 + (seq % 99_900)) / 100;

/** The handler's grant cache (lambdas/shared/http.ts), per measured side. */
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
  const { api, db, runtime, config } = ctx;
  const tableName = runtime.tableName;
  const profileId = await ctx.profileId();
  const [payorId, methodId] = profileId.split('/') as [string, string];
  const apiGroups = await ctx.createGroups(config.paymentGroups);
  const rawGroups = await ctx.createGroups(config.paymentGroups);

  // One payment through the API, read back as the template of the raw side's items.
  const sample = await api.json<{ paymentId: string }>(
    'POST',
    `/rest/merchants/${MID}/groups/${apiGroups[0]}/payments`,
    { paymentGroupId: apiGroups[0], profileId, amount: 12.34 },
    201,
  );
  const { Item: template } = await db.send(
    new GetCommand({ TableName: tableName, Key: keys.payment(apiGroups[0]!, sample.paymentId) }),
  );
  if (!template) throw new Error('the sample payment is not in the table');

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
    return async (_w: number, seq: number) => {
      const now = new Date();
      const groupId = rawGroups[seq % rawGroups.length]!;
      await authorize(now.getTime());

      // resolveProfiles → methodsByRef
      let request: Record<string, { Keys: Item[]; ProjectionExpression?: string }> | undefined = {
        [tableName]: {
          Keys: [keys.method(payorId, methodId)],
          ProjectionExpression: 'payorId, savedPaymentMethodId, merchantId, maskedAccountNumber, accountType',
        },
      };
      let found = false;
      while (request && Object.keys(request).length > 0) {
        const out = await raw.send(new BatchGetCommand({ RequestItems: request }));
        for (const item of out.Responses?.[tableName] ?? []) if (item.merchantId === MID) found = true;
        request = out.UnprocessedKeys as typeof request;
      }
      if (!found) return 'profile not found';

      // PaymentStore.addPayment
      const paymentId = v7();
      const ts = now.toISOString();
      const amountCents = Math.round(amountOf(seq) * 100);
      await raw.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: tableName,
                Item: {
                  ...template,
                  ...keys.payment(groupId, paymentId),
                  paymentId,
                  paymentGroupId: groupId,
                  amountCents,
                  dateCreated: ts,
                  lastUpdated: ts,
                },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            {
              Update: {
                TableName: tableName,
                Key: keys.group(groupId),
                UpdateExpression: 'ADD paymentCount :c, totalCents :t SET lastUpdated = :now',
                ConditionExpression: '#status = :pending AND merchantId = :m',
                ExpressionAttributeNames: { '#status': 'status' },
                ExpressionAttributeValues: {
                  ':c': 1,
                  ':t': amountCents,
                  ':now': ts,
                  ':pending': 'pending',
                  ':m': MID,
                },
              },
            },
          ],
        }),
      );
      return undefined;
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
  prepare,
});
