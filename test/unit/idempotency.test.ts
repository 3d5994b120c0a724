// #core/idempotency reaches the store, whose configuration is read when the module loads.
import '#support/handlers/env';
import { canonicalJson } from '#core/idempotency';

describe('canonicalJson', () => {
  it('sorts object keys at every depth, arrays keep their order', () => {
    const a = { profileId: 'p/m', amount: 19.99, meta: { z: 1, a: [{ y: 2, x: 1 }, 'b'] } };
    const b = { meta: { a: [{ x: 1, y: 2 }, 'b'], z: 1 }, amount: 19.99, profileId: 'p/m' };
    expect(canonicalJson(a)).toBe(
      '{"amount":19.99,"meta":{"a":[{"x":1,"y":2},"b"],"z":1},"profileId":"p/m"}',
    );
    expect(canonicalJson(b)).toBe(canonicalJson(a));
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
  });

  it('is JSON: it parses back to an equal value', () => {
    const value = { b: [1, 'two', null, true, { d: 'x"y\\z', c: -0.5 }], a: 'ü\n' };
    expect(JSON.parse(canonicalJson(value))).toEqual(value);
  });

  it('leaves out undefined properties, as JSON does', () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe(canonicalJson({ a: 1 }));
  });

  it('keeps null distinct from absent', () => {
    expect(canonicalJson({ a: 1, b: null })).toBe('{"a":1,"b":null}');
    expect(canonicalJson({ a: 1, b: null })).not.toBe(canonicalJson({ a: 1 }));
  });

  it('writes scalars as JSON does', () => {
    expect([canonicalJson('x'), canonicalJson(1.5), canonicalJson(true), canonicalJson(null)]).toEqual([
      '"x"',
      '1.5',
      'true',
      'null',
    ]);
  });

  it('escapes keys', () => {
    expect(canonicalJson({ 'a"b': 1 })).toBe('{"a\\"b":1}');
  });
});

// A request's hash (keyed: test/integration/idempotency-keys-hashed.test.ts) is of this text: the
// same text for the same request, another for any other.
describe('canonicalJson of a request', () => {
  const body = { profileId: 'payor1/method1', amount: 19.99, orderId: 'INV-1', idempotencyKey: 'k1' };

  it('is the same for the same request, whatever the key order', () => {
    const reordered = { idempotencyKey: 'k1', orderId: 'INV-1', amount: 19.99, profileId: 'payor1/method1' };
    expect(canonicalJson(reordered)).toBe(canonicalJson(body));
    expect(canonicalJson(JSON.parse(JSON.stringify(body)))).toBe(canonicalJson(body));
  });

  it.each([
    ['another amount', { ...body, amount: 19.98 }],
    ['the amount as a string', { ...body, amount: '19.99' }],
    ['another payment method', { ...body, profileId: 'payor1/method2' }],
    ['another orderId', { ...body, orderId: 'INV-2' }],
    ['a field left out', { profileId: body.profileId, amount: body.amount, idempotencyKey: 'k1' }],
    ['an extra field', { ...body, allowPartial: true }],
    ['allowPartial false vs absent', { ...body, allowPartial: false }],
  ])('differs for %s', (_what, other) => {
    expect(canonicalJson(other)).not.toBe(canonicalJson(body));
  });
});
