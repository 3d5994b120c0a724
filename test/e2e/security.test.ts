/**
 * The security matrix (issue 9): every operation of openapi.json × every way of holding the wrong
 * credentials answers the documented status with the error body, and another merchant's ids under
 * one's own MID are indistinguishable from random ids of the same shape.
 */
import { randomUUID } from 'node:crypto';
import { call, MID, MID8, OTHER, OTHER_MID, tokenFor } from '#support/api';
import {
  bodyOf,
  idsIn,
  lookalike,
  makeResources,
  operations,
  pathOf,
  type Ids,
} from '#support/security-operations';
import { tokenCases } from '#support/security-tokens';
import { keyedOperations } from '#support/fuzz-cases';

const all = operations();
/** The operations behind the authorizer; the open ones (the health check) are tested apart below. */
const ops = all.filter((op) => !op.open);
const open = all.filter((op) => op.open);
const keyed = keyedOperations();
/** Keyed POSTs carry an Idempotency-Key in the matrix: credentials are checked before the key is claimed. */
const keyFor = (op: { operationId: string }) =>
  keyed.has(op.operationId) ? { headers: { 'Idempotency-Key': `security-${randomUUID()}` } } : {};
let mine: Ids;
let foreign: Ids;

beforeAll(async () => {
  mine = await makeResources(MID, await tokenFor());
  foreign = await makeResources(OTHER_MID, await tokenFor(OTHER));
});

test('the matrix covers every operation of openapi.json, and only the health check is open', () => {
  expect(ops.length).toBeGreaterThanOrEqual(34);
  for (const op of ops) expect(() => bodyOf(op, mine)).not.toThrow();
  expect(open.map((op) => `${op.method} ${op.template}`)).toEqual(['GET /health']);
});

test.each(open.map((op) => [op.operationId, op] as const))(
  'defect: no health route for uptime checks: %s answers every credential, none included, the same 200 and its fixed body',
  async (_id, op) => {
    const cases = [...(await tokenCases()), { name: 'a valid token', token: await tokenFor() }];
    const answers: string[] = [];
    for (const { name, token } of cases) {
      const res = await call(op.method, op.template, undefined, { token });
      answers.push(`${name}: ${res.status} ${res.text} ${res.headers.get('cache-control')}`);
    }
    expect(answers).toEqual(cases.map(({ name }) => `${name}: 200 {"status":"ok"} no-store`));
    // Another method: 405 naming GET, also without a token (no token is ever asked for here).
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const res = await call(method, op.template, undefined, { token: null });
      expect([method, res.status, res.headers.get('allow'), res.body]).toEqual([
        method,
        405,
        'GET',
        { message: 'Method not allowed: this path answers GET', responseCode: 405 },
      ]);
    }
  },
);

test.each(ops.map((op) => [op.operationId, op] as const))(
  '%s: every wrong credential gives its documented status and the error body',
  async (_id, op) => {
    const results: string[] = [];
    for (const { name, token, status } of await tokenCases()) {
      const res = await call(op.method, pathOf(op, mine), bodyOf(op, mine), { token, ...keyFor(op) });
      const ok =
        res.status === status && res.body?.responseCode === status && typeof res.body.message === 'string';
      if (!ok) results.push(`${name}: expected ${status}, got ${res.status} ${res.text}`);
    }
    expect(results).toEqual([]);
  },
);

test.each(ops.map((op) => [op.operationId, op] as const))(
  "%s: another merchant's MID, in 11 and 8 digits, gives 403",
  async (_id, op) => {
    for (const mid of [OTHER_MID, '23500002']) {
      // Own resources under the other MID, then the other merchant's own resources.
      for (const ids of [
        { ...mine, MID: mid },
        { ...foreign, MID: mid },
      ]) {
        const res = await call(op.method, pathOf(op, ids), bodyOf(op, ids), keyFor(op));
        expect({ mid, status: res.status, body: res.body }).toEqual({
          mid,
          status: 403,
          body: { message: expect.stringContaining(mid), responseCode: 403 },
        });
      }
    }
  },
);

const withIds = ops.filter((op) => idsIn(op).length > 0);

test.each(withIds.map((op) => [op.operationId, op] as const))(
  "%s: another merchant's ids under one's own MID (11 and 8 digits) answer exactly like random ids",
  async (_id, op) => {
    for (const mid of [MID, MID8]) {
      for (const param of idsIn(op)) {
        // Only `param` is foreign; the others are this merchant's own, so the foreign one decides.
        const foreignId = foreign[param];
        const randomId = lookalike(foreignId);
        const send = async (id: string) => {
          const ids = { ...mine, MID: mid, [param]: id };
          const res = await call(op.method, pathOf(op, ids), bodyOf(op, ids));
          return { status: res.status, body: res.text.split(id).join('<id>') };
        };
        const [viaForeign, viaRandom] = [await send(foreignId), await send(randomId)];
        expect({ param, mid, ...viaForeign }).toEqual({ param, mid, ...viaRandom });
        // The trigger routes accept only the 11-digit test MID (lambdas/core/triggers.ts): 403 first.
        const documented = op.operationId === 'ProcessGroup' && mid === MID8 ? 403 : 404;
        expect({ param, mid, status: viaForeign.status }).toEqual({ param, mid, status: documented });
      }
    }
  },
);

test('an Idempotency-Key another merchant used replays nothing of theirs: keys are per merchant', async () => {
  const key = `security-${randomUUID()}`;
  const headers = { 'Idempotency-Key': key };
  const create = ops.find((op) => op.operationId === 'CreatePayor')!;
  const body = bodyOf(create, mine);
  const theirs = await call('POST', `/v1/rest/merchants/${OTHER_MID}/payors`, body, {
    token: await tokenFor(OTHER),
    headers,
  });
  expect(theirs.status).toBe(201);
  const ours = await call('POST', `/v1/rest/merchants/${MID}/payors`, body, { headers });
  expect(ours.status).toBe(201);
  expect(ours.headers.get('idempotent-replayed')).toBeNull();
  expect(ours.body.payorId).not.toBe(theirs.body.payorId);
  expect(ours.text).not.toContain(theirs.body.payorId as string);
});
