/**
 * The tester CLI's payments file (bin/cli/payments-file.ts): "numbers and true/false become JSON
 * numbers and booleans where the API wants them, so the file reads as a spreadsheet export". The
 * API's payment fields that are booleans (contract/schemas/payments.ts paymentProperties) are
 * recurring, allowPartial, sendEmailReceipt, sendPaymentScheduledNotification and
 * sendDeclineNotification; the group and series creates refuse any other type (400), and a series
 * wants every payment `recurring: true`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readPayments } from '../../bin/cli/payments-file';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'spay-csv-bool-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('defect: a CSV column `recurring` or `sendDeclineNotification` is sent as the string "true", not the boolean the API wants (the create is 400)', () => {
  const path = join(dir, 'payments.csv');
  writeFileSync(
    path,
    'profileId,amount,recurring,sendDeclineNotification,sendEmailReceipt\r\n' +
      'a/b,45.50,true,true,true\r\n',
  );
  expect(readPayments(path)).toEqual([
    {
      profileId: 'a/b',
      amount: 45.5,
      recurring: true,
      sendDeclineNotification: true,
      sendEmailReceipt: true,
    },
  ]);
});
