/**
 * The fuzz suite (issue 9): seeded, reproducible hostile requests over every operation of
 * openapi.json against the local runtime. Properties: no 5xx; every error body is
 * {message, responseCode[, errors]} (a 409 of a method in use adds `payments`) with responseCode
 * equal to the status; a refused write changes nothing of the fuzz merchant's groups, payments,
 * totals and outbox; requests that must be refused are; the health check (no token, no input)
 * answers nothing but its fixed body; the runtime stays up. Nothing is excused.
 *
 * Reproduce a failure: FUZZ_SEED=<seed printed> npx jest test/e2e/fuzz.test.ts --selectProjects e2e
 */
import fc from 'fast-check';
import { HEALTH } from '#contract/health';
import { baseUrl, call, PROD_LIKE_MID, tokenFor } from '#support/api';
import { declaredQuery, fuzzCase, issueExamples, keyedOperations, type FuzzCase } from '#support/fuzz-cases';
import { snapshotter } from '#support/fuzz-snapshot';
import { makeResources, operations } from '#support/security-operations';

const SEED = Number(process.env.FUZZ_SEED ?? 90210);
/**
 * Cases per run, the run's one bound (a count, not a time: a busy machine runs the same cases,
 * slower): 3,000 in `npm test` (every operation about 60 times; the 48 operations' 10,000 took
 * CI past 15 minutes on 2 cores), FUZZ_RUNS=10000 or more for a long run; a different FUZZ_SEED
 * draws other cases.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 3_000);
/** Granted to local-tester and used by no other test's writes: its state is the fuzz suite's alone. */
const FUZZ_MID = PROD_LIKE_MID;

type Property =
  | 'no 5xx'
  | 'error body'
  | 'refused request changes nothing'
  | 'must refuse'
  | 'open operation answers only its fixed body';

/** The health check's one answer (contract/health.ts), whatever it is sent. */
const HEALTH_ANSWER = JSON.stringify(HEALTH.body);

interface Answer {
  status: number;
  text: string;
}

async function send(c: FuzzCase, token: string): Promise<Answer> {
  const qs = new URLSearchParams(c.query).toString();
  const search = [qs, c.rawQuery].filter((s) => s !== '').join('&');
  const withBody = c.method !== 'GET' && c.method !== 'HEAD' && c.body !== undefined;
  const res = await fetch(`${baseUrl()}${c.path}${search ? `?${search}` : ''}`, {
    method: c.method,
    headers: { ...c.headers, authorization: `Bearer ${token}` },
    ...(withBody && { body: c.bodyIsBase64 ? Buffer.from(c.body!, 'base64') : c.body }),
  });
  return { status: res.status, text: await res.text() };
}

function errorBodyProblem(answer: Answer): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return `error body is not JSON: ${answer.text.slice(0, 200)}`;
  }
  const b = body as Record<string, unknown> | null;
  const keysOk =
    b !== null &&
    typeof b === 'object' &&
    // A 409 of a method (or payor) still in use lists the payments and the series (DESIGN sections 5, 6).
    Object.keys(b).every(
      (k) =>
        ['message', 'responseCode', 'errors'].includes(k) ||
        ((k === 'payments' || k === 'series') && answer.status === 409),
    );
  if (!keysOk || typeof b.message !== 'string' || b.responseCode !== answer.status)
    return `error body is not {message, responseCode: ${answer.status}}: ${answer.text.slice(0, 200)}`;
  return undefined;
}

const describeCase = (c: FuzzCase) =>
  JSON.stringify({
    ...c,
    body: c.body && c.body.length > 300 ? `${c.body.slice(0, 300)}… (${c.body.length} chars)` : c.body,
    value: undefined,
  });

test(`fuzz: ${RUNS} seeded hostile requests over every operation hold the properties`, async () => {
  const started = Date.now();
  const token = await tokenFor();
  const ids = await makeResources(FUZZ_MID, token);
  const declared = declaredQuery();
  const keyed = keyedOperations();
  const ops = operations();
  expect(ops.length).toBeGreaterThanOrEqual(34);
  const arbitrary = fc.oneof(
    ...ops.map((op) => fuzzCase(op, ids, declared.get(op.operationId) ?? new Set(), keyed)),
  );
  const snapshot = snapshotter(FUZZ_MID);
  let baseline = await snapshot.take();
  let cases = 0;
  let snapshotMs = 0;

  const property = fc.asyncProperty(arbitrary, async (c) => {
    cases++;
    const answer = await send(c, token);
    const problems: { property: Property; reason: string; detail: string }[] = [];
    if (answer.status >= 500)
      problems.push({
        property: 'no 5xx',
        reason: '',
        detail: `${answer.status} ${answer.text.slice(0, 200)}`,
      });
    const bodyProblem = answer.status >= 400 && c.method !== 'HEAD' ? errorBodyProblem(answer) : undefined;
    if (bodyProblem) problems.push({ property: 'error body', reason: '', detail: bodyProblem });
    if (
      c.open &&
      answer.status >= 200 &&
      answer.status < 300 &&
      c.method !== 'HEAD' &&
      answer.text !== HEALTH_ANSWER
    )
      problems.push({
        property: 'open operation answers only its fixed body',
        reason: '',
        detail: `${answer.status} ${answer.text.slice(0, 200)}`,
      });
    if (answer.status < 300)
      for (const reason of c.mustRefuse)
        problems.push({ property: 'must refuse', reason, detail: `${answer.status} for ${reason}` });
    // A write the local gateway refused itself (no route, body over the limit) ran no handler:
    // nothing to compare, and skipping the snapshot keeps the run short.
    const gatewayRefused = /^\{"message":"(no such route|body is too large)"/.test(answer.text);
    if (!['GET', 'HEAD', 'OPTIONS'].includes(c.method) && !gatewayRefused) {
      const t0 = Date.now();
      const after = await snapshot.take();
      snapshotMs += Date.now() - t0;
      if (answer.status >= 400 && after !== baseline)
        problems.push({
          property: 'refused request changes nothing',
          reason: '',
          detail: `state changed after ${answer.status}`,
        });
      baseline = after;
    }
    if (problems.length > 0)
      throw new Error(
        `${problems.map((p) => `${p.property}: ${p.detail}`).join('; ')}\n  request: ${describeCase(c)}`,
      );
  });

  try {
    const examples = issueExamples(ops, ids).map((c): [FuzzCase] => [c]);
    await fc.assert(property, { seed: SEED, numRuns: RUNS, endOnFailure: true, examples });
  } catch (error) {
    console.error(`fuzz failed with seed ${SEED} (FUZZ_SEED=${SEED} to reproduce)`);
    throw error;
  } finally {
    snapshot.close();
    console.log(
      `fuzz: seed ${SEED}, ${cases} cases in ${((Date.now() - started) / 1000).toFixed(1)} s ` +
        `(snapshots ${(snapshotMs / 1000).toFixed(1)} s)`,
    );
  }
  expect(cases).toBeGreaterThanOrEqual(RUNS);
  // The runtime is still up and still answers correctly.
  expect((await call('GET', `/rest/merchants/${FUZZ_MID}/groups/${ids.GroupID}`)).status).toBe(200);
}, 240_000);
