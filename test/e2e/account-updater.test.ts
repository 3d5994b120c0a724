/**
 * The account updater over HTTP (issue 21 item 2; DESIGN section 5 "The card lifecycle"): the four
 * sandbox cards' updates applied by the job (`POST /__local/events/account-updater`, as its daily
 * rule runs it) once each across two runs, each announced by one `payment_method.account_updated`;
 * the second run by hand (`npm run admin -- account-updater`); the closed card's payor is e-mailed
 * for a new method, and its payment is declined R2 without a processor call. Concurrent runs are proven on DynamoDB Local (test/integration/account-updater.test.ts).
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { baseUrl, call, MID } from '#support/api';
import { cardInput } from '#support/fixtures/index';
import { createPayor } from '#support/fixtures/e2e-resources';
import { uniqueAddress, waitForEmails } from '#support/notifications';
import { createGroup, farFutureDate, ledger, payments, trigger, waitForStatus } from '#support/processing';
import { localToolCommand } from '#lib/local/runtime-bundle';

const base = `/v1/rest/merchants/${MID}/payors`;
const ROOT = resolve(__dirname, '..', '..');

const admin = (...args: string[]) => {
  const [command, commandArgs] = localToolCommand('admin', [...args, '--local']);
  return promisify(execFile)(command, commandArgs, {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: process.env.E2E_DATA_DIR! },
  });
};

async function runJob(): Promise<{ applied: number; appliedBefore: number }> {
  const res = await fetch(`${baseUrl()}/__local/events/account-updater`, { method: 'POST' });
  if (res.status !== 200) throw new Error(`account updater: ${res.status} ${await res.text()}`);
  return (await res.json()) as { applied: number; appliedBefore: number };
}

const methodOf = async (p: { payorId: string; defaultPaymentMethodId: string }) =>
  (await call('GET', `${base}/${p.payorId}/savedPaymentMethods/${p.defaultPaymentMethodId}`)).body;

const updatesOf = async (methodId: string) =>
  (
    await call<{ items: unknown[] }>(
      'GET',
      `/v1/rest/merchants/${MID}/events?objectId=${methodId}&type=payment_method.account_updated`,
    )
  ).body.items;

test('the four sandbox cards are updated once each across two runs; a closed card is not charged', async () => {
  const email = uniqueAddress('account-updater');
  const [expiry, replaced, closed, contact] = await Promise.all(
    ['4000000000000440', '4000000000000457', '4000000000000473', '4000000000000481'].map((cardNumber) =>
      createPayor({ email, paymentMethod: cardInput({ cardNumber, expiryMonth: 5, expiryYear: 2031 }) }),
    ),
  );
  const profileId = `${closed!.payorId}/${closed!.defaultPaymentMethodId}`;
  const group = await createGroup({
    scheduleDate: farFutureDate(140),
    payments: [{ profileId, amount: 12 }],
  });

  expect((await runJob()).applied).toBeGreaterThanOrEqual(4);
  expect(await methodOf(expiry!)).toMatchObject({
    expiryMonth: 5,
    expiryYear: 2034,
    status: 'active',
    updatedBy: 'account_updater',
  });
  expect(await methodOf(replaced!)).toMatchObject({
    maskedAccountNumber: '************0465',
    expiryYear: 2034,
    updatedBy: 'account_updater',
  });
  expect(await methodOf(closed!)).toMatchObject({ status: 'closed', updatedBy: 'account_updater' });
  expect(await methodOf(contact!)).toMatchObject({ status: 'contact_cardholder' });

  // The second run by hand, as an operator would: the same updates, none applied again.
  const { stdout } = await admin('account-updater', '--json');
  expect((JSON.parse(stdout) as { appliedBefore: number }).appliedBefore).toBeGreaterThanOrEqual(4);
  for (const p of [expiry!, replaced!, closed!, contact!])
    expect(await updatesOf(p.defaultPaymentMethodId)).toEqual([
      expect.objectContaining({ type: 'payment_method.account_updated', sequence: 1 }),
    ]);

  // The closed and contact-cardholder payors (one address here) are asked for a new method.
  const mails = (await waitForEmails([email], 2, 10_000)).get(email)!;
  expect(mails.map((m) => m.subject)).toEqual([
    expect.stringMatching(/new payment method/),
    expect.stringMatching(/new payment method/),
  ]);

  const id = group.paymentGroupId as string;
  expect((await trigger(id)).body.totalTriggered).toBe(1);
  await waitForStatus(id, 'processed', 10_000);
  const [payment] = await payments(id);
  expect(payment!.authResponse).toMatchObject({
    status: 'Declined',
    responseCode: 'R2',
    declineCategory: '1',
  });
  expect(await ledger('SALE', `payment:${payment!.paymentId as string}`)).toBeUndefined();
}, 15_000);
