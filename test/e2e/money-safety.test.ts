/**
 * Issue 13 against the local runtime: API sales and voids with injected crashes, lost answers and
 * refusals (POST /__local/faults), settled by the sweeper (POST /__local/events/sweep) or a retry
 * (never by a GET, which only reads: issue 25, defect 5), with the sandbox processor's ledger as the proof that no money moved twice. Each test is
 * named after the defect it proves fixed.
 */
import { baseUrl, call, MID } from '#support/api';
import {
  closeLocalTable,
  createGroup,
  farFutureDate,
  groupPath,
  ledger,
  paymentsById,
  trigger,
  waitForStatus,
  type Json,
} from '#support/processing';
import { aProfile } from '#support/fixtures/e2e-resources';
import { sleep } from '#shared/clock';
import { pastCutoff, unsettledSale } from '#support/settlement-timing';

const base = `/v1/rest/merchants/${MID}/transactions`;
type Txn = Record<string, any>;

const sale = (body: Record<string, unknown>) => call<Txn>('POST', base, body);

async function faults(body: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${baseUrl()}/__local/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`faults failed: ${res.status} ${await res.text()}`);
}

async function sweepNow(): Promise<Record<string, { transactionId: string; result: string }[]>> {
  const res = await fetch(`${baseUrl()}/__local/events/sweep`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ olderThanSeconds: 0 }),
  });
  if (res.status !== 200) throw new Error(`sweep failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, { transactionId: string; result: string }[]>;
}

/** A keyless sale whose process dies after the processor approved it: the retry names it. */
async function crashedSale(profileId: string, amount: number): Promise<{ pendingId: string; retry: Txn }> {
  await faults({ crashAfterApproval: [{ profileId, amount }] });
  const crashed = await sale({ profileId, amount });
  expect(crashed.status).toBeGreaterThanOrEqual(500);
  const retry = await sale({ profileId, amount });
  expect(retry.status).toBe(201);
  expect(retry.body).toMatchObject({ status: 'Declined', responseCode: '19', isDuplicate: true });
  return { pendingId: retry.body.originalTransactionId as string, retry: retry.body };
}

afterAll(() => closeLocalTable());

/** How old a Pending sale must be to be stale: older than any API request may run (the sweeper's 15 s). */
const STALE_MS = 16_000;
/**
 * The crashed sale that the stale-GET test reads, made as the file starts: it grows stale while the
 * tests before that one run (none of them sweeps), so that the test waits only what is left.
 */
let stale: { pendingId: string; at: number };
beforeAll(async () => {
  const { pendingId } = await crashedSale(await aProfile(), 32.18);
  stale = { pendingId, at: Date.now() };
});

describe('defect 5: a lost response to a successful record write triggers a reversal', () => {
  test('the record is read back and answered, and the charge is not reversed', async () => {
    const profileId = await aProfile();
    await faults({ lostRecordResponse: [{ profileId, amount: 33.19 }] });
    const res = await sale({ profileId, amount: 33.19 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'Approved', responseCode: '00' });
    const charged = await ledger('SALE', `sale:${res.body.transactionId}`);
    expect(charged).toMatchObject({ calls: 1, result: expect.objectContaining({ approved: true }) });
    expect(charged).not.toHaveProperty('reversed');
  });
});

describe('defect 2: an interrupted void wedges the sale for good', () => {
  test('a void through the API interrupted after its reservation is finished by a repeat after the cut-off', async () => {
    const txn = await unsettledSale(await aProfile(), 41.5);
    await faults({ crashBeforeVoid: [txn.transactionId] });
    expect((await call('POST', `${base}/${txn.transactionId}/void`)).status).toBeGreaterThanOrEqual(500);
    await pastCutoff(txn);

    const repeat = await call<Txn>('POST', `${base}/${txn.transactionId}/void`);
    expect(repeat.status).toBe(200);
    expect(repeat.body).toMatchObject({ status: 'Voided', availableRefundAmount: 0 });
    expect(await ledger('VOID', `void:${txn.transactionId}`)).toMatchObject({ calls: 1 });
  });

  test("a group's void-or-refund interrupted after the void was reserved is finished by a repeat after the cut-off, not skipped", async () => {
    let txn: Txn;
    let group: Json;
    for (let amount = 43.5; ; amount += 0.01) {
      group = await createGroup({
        scheduleDate: farFutureDate(131),
        payments: [{ profileId: await aProfile(), amount }],
      });
      expect((await trigger(group.paymentGroupId)).body.totalTriggered).toBe(1);
      await waitForStatus(group.paymentGroupId, 'processed');
      const [payment] = [...(await paymentsById(group.paymentGroupId)).values()];
      txn = payment!.authResponse as Txn;
      expect(txn.status).toBe('Approved');
      if (Date.parse(txn.settlementTime) - Date.now() >= 2000) break;
    }
    const reverse = () => call<Json>('POST', `${groupPath(group.paymentGroupId)}/void-or-refund`);
    await faults({ crashBeforeVoid: [txn.transactionId] });
    expect((await reverse()).status).toBeGreaterThanOrEqual(500);
    await pastCutoff(txn);

    const repeat = await reverse();
    expect(repeat.status).toBe(200);
    expect(repeat.body).toMatchObject({ voidedCount: 1, refundedCount: 0, skippedCount: 0 });
    expect((await call<Txn>('GET', `${base}/${txn.transactionId}`)).body).toMatchObject({ status: 'Voided' });
    expect(await ledger('VOID', `void:${txn.transactionId}`)).toMatchObject({ calls: 1 });
  });

  test('a void the processor refuses releases its reservation, and the refund proceeds', async () => {
    // Of 42.5, or a cent more when the first sale landed too near its cut-off (saleBeforeCutoff).
    const txn = await unsettledSale(await aProfile(), 42.5);
    await faults({ refuseVoid: [txn.transactionId] });
    const refused = await call('POST', `${base}/${txn.transactionId}/void`);
    expect(refused).toMatchObject({ status: 400, body: { message: expect.stringContaining('refused') } });
    await pastCutoff(txn);

    const refund = await call<Txn>('POST', `${base}/${txn.transactionId}/refunds`, { amount: txn.amount });
    expect(refund.status).toBe(201);
    expect(refund.body).toMatchObject({ status: 'Completed', availableRefundAmount: 0 });
  });
});

describe('defect 1: a charge without a record, and a second charge after it', () => {
  test('issue 25, defect 5: a GET of a stale Pending sale only reads it (no write, no processor call); the sweeper settles it', async () => {
    const { pendingId, at } = stale;
    await sleep(Math.max(0, at + STALE_MS - Date.now()));
    const got = await call<Txn>('GET', `${base}/${pendingId}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ status: 'Pending', responseCode: 'PD' });
    // The GET asked the processor nothing: its ledger holds the crashed call alone.
    expect(await ledger('SALE', `sale:${pendingId}`)).toMatchObject({ calls: 1 });

    const report = await sweepNow();
    expect(report.settled).toContainEqual(
      expect.objectContaining({ transactionId: pendingId, result: 'Approved' }),
    );
    const after = await call<Txn>('GET', `${base}/${pendingId}`);
    expect(after.body).toMatchObject({ status: 'Approved', responseCode: '00', approvedAmount: 32.18 });
    expect(await ledger('SALE', `sale:${pendingId}`)).toMatchObject({ calls: 2 });
  });

  test('a keyless sale that crashed after approval leaves a Pending record that the retry names, the sweeper settles, and nothing is charged twice', async () => {
    const profileId = await aProfile();
    const { pendingId, retry } = await crashedSale(profileId, 31.17);

    const pending = await call<Txn>('GET', `${base}/${pendingId}`);
    expect(pending.status).toBe(200);
    expect(pending.body).toMatchObject({ transactionId: pendingId, status: 'Pending', responseCode: 'PD' });

    const report = await sweepNow();
    expect(report.settled).toContainEqual(
      expect.objectContaining({ transactionId: pendingId, result: 'Approved' }),
    );
    const after = await call<Txn>('GET', `${base}/${pendingId}`);
    expect(after.body).toMatchObject({ status: 'Approved', responseCode: '00', approvedAmount: 31.17 });

    // The replay reached the processor under the first sale's key and got its first answer.
    const charged = await ledger('SALE', `sale:${pendingId}`);
    expect(charged).toMatchObject({ calls: 2, result: expect.objectContaining({ approved: true }) });
    expect(charged).not.toHaveProperty('reversed');
    expect(await ledger('SALE', `sale:${retry.transactionId}`)).toBeUndefined();
  });
});

test.each([
  ['crashAfterApproval not an array', { crashAfterApproval: { profileId: 'a/b', amount: 1 } }],
  ['crashAfterApproval without an amount', { crashAfterApproval: [{ profileId: 'a/b' }] }],
  ['lostRecordResponse with a negative amount', { lostRecordResponse: [{ profileId: 'a/b', amount: -1 }] }],
  ['lostRecordResponse with amount 1e308', { lostRecordResponse: [{ profileId: 'a/b', amount: 1e308 }] }],
  ['crashAfterApproval with three decimals', { crashAfterApproval: [{ profileId: 'a/b', amount: 1.234 }] }],
  ['crashBeforeVoid with a number', { crashBeforeVoid: [7] }],
  ['refuseVoid not an array', { refuseVoid: 'txn' }],
])('POST /__local/faults with %s gives 400 with the error body', async (_what, body) => {
  const res = await fetch(`${baseUrl()}/__local/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(400);
  expect(await res.json()).toEqual({ message: expect.any(String), responseCode: 400 });
});
