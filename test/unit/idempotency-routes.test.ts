/**
 * Every POST takes the Idempotency-Key header by declaration (docs/architecture.md "Adding an
 * endpoint"): a POST route without `idempotency` fails here, and so does a creating (201) or
 * money-moving (callsProcessor) POST declared `'none'`. The generated checks carry the declaration
 * to the route builder, which runs the key (lambdas/shared/http.ts).
 */
import { routeList, type Route } from '#contract/routes/index';
import * as generated from '#generated/validators';
import { idempotencyOf } from '../../scripts/generate-validators';

const posts = routeList.filter((r) => r.method === 'POST');
const checks = generated as unknown as Record<string, { idempotency?: ReturnType<typeof idempotencyOf> }>;

describe('Idempotency-Key on every POST', () => {
  test.each(posts.map((r) => [r.id, r] as const))('%s declares how it takes the key', (_id, route: Route) => {
    expect(route.idempotency).toBeDefined();
  });

  test.each(posts.filter((r) => r.status === 201 || r.callsProcessor).map((r) => [r.id, r] as const))(
    '%s creates or moves money: it takes the key',
    (_id, route: Route) => {
      expect(route.idempotency).not.toBe('none');
    },
  );

  test('the routes the issue names take it, the three older body keys among them', () => {
    const keyed = posts.filter((r) => idempotencyOf(r) !== undefined).map((r) => r.id);
    expect(keyed).toEqual(
      expect.arrayContaining([
        'CreatePayor',
        'AddMethod',
        'CreateGroup',
        'AddPayment',
        'AddPaymentAlias',
        'CreateSale',
        'VoidTransaction',
        'RefundTransaction',
        'VoidOrRefundGroup',
        'CreateWebhookEndpoint',
      ]),
    );
    expect(posts.filter((r) => idempotencyOf(r)?.bodyKey).map((r) => r.id)).toEqual(
      expect.arrayContaining(['CreateSale', 'RefundTransaction', 'CreateGroup']),
    );
  });

  test('no other method takes it: GET, PUT and DELETE are idempotent as they are', () => {
    expect(routeList.filter((r) => r.method !== 'POST' && r.idempotency !== undefined)).toEqual([]);
  });

  test('the generated checks carry each declaration; an alias shares its target records', () => {
    for (const route of routeList) expect(checks[route.id]?.idempotency).toEqual(idempotencyOf(route));
    expect(idempotencyOf(routeList.find((r) => r.id === 'AddPaymentAlias')!)).toEqual({
      scope: 'request',
      operation: 'AddPayment',
      bodyKey: false,
    });
    // The older records' scopes stay, so that a key sent before the header existed still replays.
    expect(checks.CreateSale?.idempotency).toMatchObject({ scope: 'sale', bodyKey: true });
    expect(checks.RefundTransaction?.idempotency).toMatchObject({
      scope: 'refund:{TransactionID}',
      bodyKey: true,
    });
    expect(checks.CreateGroup?.idempotency).toMatchObject({ scope: 'group', bodyKey: true });
  });
});
