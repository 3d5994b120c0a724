/**
 * The tester CLI's pieces that the tmux test does not reach: payments from CSV and JSON files, a
 * stage's target from a CDK outputs file, the session file's permissions, and the watch of a
 * background void-or-refund (a 202: more than 1,000 payments) until its summary is done.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError, type ScheduledPaymentsClient, type Schemas } from '../../client/index';
import { readPayments, readPaymentsFile, sendingFile } from '../../bin/cli/payments-file';
import { loadSession, saveSession, stageTarget } from '../../bin/cli/session';
import { barSize, wrapCell, wrapLines } from '../../bin/cli/layout';
import { nextOccurrencesTable, pastOccurrencesTable, seriesCard, seriesTable } from '../../bin/cli/series';
import {
  groupCard,
  outcomeTable,
  outcomesOf,
  reversalText,
  summaryLine,
  watchReversal,
} from '../../bin/cli/views';
import { saleCard } from '../../bin/cli/sales';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'spay-unit-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('payments file', () => {
  test('CSV: a header names the fields; numbers, booleans and quoted fields as a spreadsheet writes them', () => {
    const csv = file(
      'p.csv',
      'profileId,amount,orderId,sendEmailReceipt,description\r\n' +
        'a/b,45.50,INV-1,true,"Lunch, March"\r\n' +
        'c/d,12,,no,"The ""big"" trip"\r\n\r\n',
    );
    expect(readPayments(csv)).toEqual([
      {
        profileId: 'a/b',
        amount: 45.5,
        orderId: 'INV-1',
        sendEmailReceipt: true,
        description: 'Lunch, March',
      },
      { profileId: 'c/d', amount: 12, sendEmailReceipt: false, description: 'The "big" trip' },
    ]);
  });

  test('CSV: a header without profileId and amount, or an amount that is not a number, is refused', () => {
    expect(() => readPayments(file('a.csv', 'orderId\nINV-1\n'))).toThrow(/profileId and amount/);
    expect(() => readPayments(file('b.csv', 'profileId,amount\na/b,ten\n'))).toThrow(
      'line 2: amount "ten" is not a number',
    );
  });

  test("CSV: a bad row's error names the file's line, blank lines counted", () => {
    const csv = file('bad.csv', 'profileId,amount\na/b,1.00\n\nc/d,ten\n');
    expect(() => readPayments(csv)).toThrow(`${csv} line 4: amount "ten" is not a number`);
  });

  test("CSV: the API's refusal of payments[i] names the file's line of that payment", async () => {
    const source = readPaymentsFile(file('p.csv', 'profileId,amount\n\na/b,1.00\nc/d,2\ne/f,1.001\n'));
    expect(source.lines).toEqual([3, 4, 5]);
    const refusal = new ApiError(
      'payments[2].amount must have at most 2 decimal places; payments[0].profileId: no such payor',
      400,
      [{ field: 'payments[2].amount', message: 'must have at most 2 decimal places' }],
      1,
      undefined,
      'key-1',
    );
    const thrown = (await sendingFile(source, () => Promise.reject(refusal)).catch(
      (e: unknown) => e,
    )) as ApiError;
    expect(thrown).toBeInstanceOf(ApiError);
    expect(thrown.message).toBe(
      'payments[2].amount must have at most 2 decimal places; payments[0].profileId: no such payor (p.csv lines 5, 3)',
    );
    expect(thrown.errors).toEqual([
      { field: 'payments[2].amount', message: 'must have at most 2 decimal places (p.csv line 5)' },
    ]);
    expect([thrown.status, thrown.idempotencyKey]).toEqual([400, 'key-1']);
    // Another error, or a JSON file's, is passed on as it came.
    const other = new ApiError('group not found', 404, [], 1);
    await expect(sendingFile(source, () => Promise.reject(other))).rejects.toBe(other);
    const json = readPaymentsFile(file('p.json', '[{"profileId": "a/b", "amount": 1.001}]'));
    await expect(sendingFile(json, () => Promise.reject(refusal))).rejects.toBe(refusal);
  });

  test('JSON: an array of payments or {"payments": [...]}', () => {
    const payments = [{ profileId: 'a/b', amount: 1.25 }];
    expect(readPayments(file('a.json', JSON.stringify(payments)))).toEqual(payments);
    expect(readPayments(file('b.json', JSON.stringify({ payments })))).toEqual(payments);
    expect(() => readPayments(file('c.json', '{"items": []}'))).toThrow(/expected an array of payments/);
  });
});

describe('session', () => {
  test('a stage from a CDK outputs file: its ApiUrl and TokenUrl; several stacks need --stack', () => {
    const outputs = {
      'ScheduledPayments-dev': {
        ApiUrl: 'https://dev.example/v1/',
        TokenUrl: 'https://auth.dev/oauth2/token',
      },
      Other: { BucketName: 'x' },
    };
    const one = file('outputs.json', JSON.stringify(outputs));
    expect(stageTarget(one)).toEqual({
      target: 'ScheduledPayments-dev',
      baseUrl: 'https://dev.example/v1/',
      tokenUrl: 'https://auth.dev/oauth2/token',
    });
    const two = file(
      'two.json',
      JSON.stringify({ ...outputs, 'ScheduledPayments-prod': { ApiUrl: 'p', TokenUrl: 't' } }),
    );
    expect(() => stageTarget(two)).toThrow(/name the stack with --stack/);
    expect(stageTarget(two, 'ScheduledPayments-prod')).toMatchObject({ baseUrl: 'p', tokenUrl: 't' });
  });

  test('is kept readable by its owner only (it holds the client secret)', () => {
    process.env.SPAY_HOME = join(dir, 'home');
    try {
      const session = {
        target: 'local',
        baseUrl: 'http://127.0.0.1:3000',
        tokenUrl: 'http://127.0.0.1:3000/oauth2/token',
        clientId: 'local-tester',
        clientSecret: 'local-tester-secret',
        mid: '32350000001',
      };
      saveSession(session);
      expect(loadSession()).toEqual(session);
      expect(statSync(join(dir, 'home', 'session.json')).mode & 0o777).toBe(0o600);
    } finally {
      delete process.env.SPAY_HOME;
    }
  });
});

test('a background void-or-refund is watched until its summary is done', async () => {
  type Summary = NonNullable<Schemas['Group']['voidOrRefundSummary']>;
  const summaries: (Summary | undefined)[] = [
    undefined,
    {
      status: 'running',
      voidedCount: 400,
      refundedCount: 0,
      refundScheduledCount: 0,
      skippedCount: 1,
      failedCount: 0,
    },
    {
      status: 'done',
      voidedCount: 1199,
      refundedCount: 0,
      refundScheduledCount: 1,
      skippedCount: 1,
      failedCount: 0,
    },
  ];
  let reads = 0;
  const api = {
    getGroup: async () => ({ voidOrRefundSummary: summaries[Math.min(reads++, summaries.length - 1)] }),
  } as unknown as ScheduledPaymentsClient;
  const done = await watchReversal(api, '32350000001', 'g', 1201, 1);
  expect(done).toMatchObject({ status: 'done', voidedCount: 1199, refundScheduledCount: 1, skippedCount: 1 });
  expect(reads).toBe(3);
});

test('defect: group reverse watched a background reversal without a timeout: a run that never ends is watched until the timeout, then left running', async () => {
  let reads = 0;
  const running = {
    status: 'running',
    voidedCount: 10,
    refundedCount: 0,
    refundScheduledCount: 0,
    skippedCount: 0,
    failedCount: 0,
  };
  const api = {
    getGroup: async () => {
      reads++;
      return { voidOrRefundSummary: running };
    },
  } as unknown as ScheduledPaymentsClient;
  const watched = await watchReversal(api, '32350000001', 'g', 1201, 5, 60);
  expect(watched).toMatchObject({ status: 'running', voidedCount: 10 });
  expect(reads).toBeGreaterThan(1);
});

describe('series tables', () => {
  const series = {
    seriesId: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa',
    servicePayId: '32350000001',
    status: 'active',
    timeZone: 'America/New_York',
    localHour: 17,
    startDate: '2030-09-15',
    frequency: 'monthly',
    interval: 1,
    count: 10,
    occurrenceCount: 10,
    locationId: 1,
    transactionInitiator: 'Merchant',
    surchargeCompliance: false,
    allowPartial: false,
    noticeDays: 3,
    paymentCount: 1,
    totalAmount: 450,
    createdCount: 1,
    nextOccurrences: [
      {
        occurrence: 3,
        localDate: '2030-11-15',
        localTime: '2030-11-15T17:00-05:00',
        scheduleDate: '2030-11-15',
        scheduleHour: 22,
        createAt: '2030-11-12T22:00:00.000Z',
      },
    ],
    occurrences: [
      {
        occurrence: 1,
        status: 'created',
        localDate: '2030-09-15',
        localTime: '2030-09-15T17:00-04:00',
        scheduleDate: '2030-09-15',
        scheduleHour: 21,
        paymentGroupId: 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb',
        createdAt: '2030-09-12T00:20:00.000Z',
      },
    ],
    dateCreated: '2030-09-01T00:00:00.000Z',
    lastUpdated: '2030-09-01T00:00:00.000Z',
  } as Schemas['Series'];

  const widest = (text: string) => Math.max(...text.split('\n').map((l) => [...l].length));
  /** The cells of a column's rows as one text (a wrapped cell's lines joined by spaces). */
  const column = (text: string, index: number): string =>
    text
      .split('\n')
      .filter((l) => l.startsWith('│'))
      .map((l) => l.split('│')[index + 1]!.trim())
      .filter((c) => c !== '')
      .join(' ');

  test('the next occurrences in local time (with the offset, the zone in the heading) and as the UTC slot', () => {
    const shown = nextOccurrencesTable(series, 80);
    expect(shown).toContain('Local time (America/New_York)');
    expect(shown).toMatch(/│ 3 +│ 2030-11-15 17:00-05:00 +│ 2030-11-15 22h +│ 2030-11-12 22:00 +│/);
  });

  test('the series and its past occurrences', () => {
    expect(column(seriesTable([series], 80), 2)).toContain(
      'Rule monthly ×1 at 17:00 America/New_York from 2030-09-15, 10 times',
    );
    const card = seriesCard(series, 80);
    expect(card).toMatch(/│ Groups created │ 1 of 10, each 3 days ahead +│/);
    expect(card).toMatch(/│ Payments +│ 1 a group, 450\.00 in all +│/);
    const past = pastOccurrencesTable(series, 80);
    expect(past).toMatch(/│ 1 +│ 2030-09-15 17:00-04:00 │ created │ bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb │/);
  });

  test('defect: the series tables were 147 to 151 columns wide: each fits 80, the id whole, the rest wrapped', () => {
    const far = {
      ...series,
      timeZone: 'America/Argentina/Buenos_Aires',
      endDate: '2031-06-15',
      totalAmount: 999999.99,
      nextOccurrences: Array.from({ length: 3 }, (_, i) => ({
        ...series.nextOccurrences[0]!,
        occurrence: 100 + i,
      })),
      occurrences: Array.from({ length: 3 }, (_, i) => ({ ...series.occurrences![0]!, occurrence: 100 + i })),
    } as Schemas['Series'];
    for (const shown of [
      seriesTable([far, series], 80),
      seriesCard(far, 80),
      nextOccurrencesTable(far, 80),
      pastOccurrencesTable(far, 80),
    ])
      expect(widest(shown)).toBeLessThanOrEqual(80);
    const list = seriesTable([far], 80);
    expect(list).toContain(`│ ${far.seriesId} │`);
    expect(column(list, 2)).toBe(
      'Rule monthly ×1 at 17:00 America/Argentina/ Buenos_Aires from 2030-09-15 until 2031-06-15',
    );
    expect(column(nextOccurrencesTable(far, 80), 1)).toContain('(America/Argentina/ Buenos_Aires)');
    expect(pastOccurrencesTable(far, 80)).toContain('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb');
  });
});

test('a reversal reads once: "Voided", "Refunded", and "Refund Completed" where the status needs its type', () => {
  expect(reversalText('Void', 'Voided')).toBe('Voided');
  expect(reversalText('Refund', 'Refunded')).toBe('Refunded');
  expect(reversalText('Refund', 'Completed')).toBe('Refund Completed');
  expect(reversalText('Void', 'Failed')).toBe('Void Failed');
});

describe('output fits 80 columns', () => {
  type Payment = Schemas['Payment'];
  const payments: Payment[] = Array.from({ length: 45 }, (_, i) => ({
    paymentId: `01a21609-dd4a-7215-bf0a-${String(i).padStart(12, '0')}`,
    paymentGroupId: 'g',
    profileId: 'p/m',
    orderId: `INVOICE-2026-${i}`,
    amount: 12345.67,
    authResponse: {
      status: 'Declined',
      responseCode: '51',
      responseMessage: 'Insufficient funds: the card was declined by its issuer, try again later',
    },
    voidOrRefundResponses: [],
  })) as unknown as Payment[];
  const widest = (text: string) => Math.max(...text.split('\n').map((l) => l.length));

  test('the outcome table: the first rows within 80 columns, ids by their distinct ends, the rest counted', () => {
    const text = outcomeTable(payments, false, 80);
    expect(widest(text)).toBeLessThanOrEqual(80);
    expect(text).toContain(
      '… and 25 more: --all shows every row;\n`spay group report <id> --csv -o <file>` writes them all',
    );
    // Each id by its last characters (its first ones are a time, the same across a group).
    expect(text).toContain('│ …00000019 │');
    expect(text).not.toContain('00000020');
    const all = outcomeTable(payments, true, 80);
    expect(widest(all)).toBeLessThanOrEqual(80);
    expect(all).toContain('…00000044');
    expect(all).not.toContain('more:');
  });

  /** Each row's cells of column `index`, a wrapped cell's lines joined by spaces (headings left out). */
  const cells = (text: string, index: number): string[] => {
    const rows: string[][] = [];
    for (const line of text.split('\n')) {
      if (line.startsWith('├') || line.startsWith('└')) rows.push([]);
      else if (line.startsWith('│')) rows.at(-1)?.push(line.split('│')[index + 1]!.trim());
    }
    return rows.map((r) => r.filter((c) => c !== '').join(' ')).filter((c) => c !== '');
  };

  test('defect: group show cut the decline reason to "Do no…": the message wraps whole, whatever else the row holds', () => {
    const reasons = [
      'Do not honor',
      'Payment method no longer exists',
      'Insufficient funds: the card was declined by its issuer',
    ];
    const rows = reasons.map((responseMessage, i) => ({
      ...payments[i]!,
      orderId: `INVOICE-2026-SPRING-TERM-${i}`,
      amount: 999999.99,
      authResponse: { status: 'Declined', responseCode: '05', responseMessage },
      voidOrRefundResponses: [{ type: 'Refund', status: 'Completed' }],
    })) as unknown as Payment[];
    for (const width of [80, 100]) {
      const text = outcomeTable(rows, false, width);
      expect(widest(text)).toBeLessThanOrEqual(width);
      // Column 5 is the message: every reason whole, in its words, nothing cut.
      expect(cells(text, 5)).toEqual(reasons);
      // The order ids too, broken after their dashes where they are longer than the column.
      expect(cells(text, 2).map((c) => c.replace(/ /g, ''))).toEqual(rows.map((r) => r.orderId));
      expect(cells(text, 4)).toEqual(['Declined 05', 'Declined 05', 'Declined 05']);
    }
    // At 80 columns no word of a reason is broken either: each line of the column holds whole words.
    const words = new Set(['Message', ...reasons.join(' ').split(' ')]);
    const lines = outcomeTable(rows, false, 80)
      .split('\n')
      .filter((l) => l.startsWith('│ '));
    const pieces = lines.flatMap((l) => l.split('│')[6]!.trim().split(' ')).filter((w) => w !== '');
    expect(pieces.filter((w) => !words.has(w))).toEqual([]);
  });

  test('a cell wraps between words, and a word longer than the column over lines: nothing is lost', () => {
    expect(wrapCell('Do not honor', 6)).toBe('Do not\nhonor');
    expect(wrapCell('INVOICE-2026-SPRING', 8)).toBe('INVOICE-\n2026-\nSPRING');
    expect(wrapCell('America/Argentina/Buenos_Aires', 20)).toBe('America/Argentina/\nBuenos_Aires');
    expect(wrapCell('0123456789', 4)).toBe('0123\n4567\n89');
    expect(wrapCell('a bb ccc', 20)).toBe('a bb ccc');
  });

  test('a table that fits is left whole', () => {
    const one = outcomeTable(payments.slice(0, 1), false, 200);
    expect(one).toContain('01a21609-dd4a-7215-bf0a-000000000000');
    expect(one).toContain('Insufficient funds: the card was declined by its issuer, try again later');
  });

  test('progress lines fit with counts as wide as the total', () => {
    const format =
      'Processing {bar} {value}/{total} | {approved} approved, {declined} declined, {failed} failed';
    for (const total of [3, 100_000]) {
      const size = barSize(format, total, 80);
      const line = format.replace('{bar}', '█'.repeat(size)).replace(/\{[a-z]+\}/g, String(total));
      expect(line.length).toBeLessThanOrEqual(80);
      expect(size).toBeGreaterThanOrEqual(5);
    }
  });

  test('long messages break between words, continuations indented', () => {
    const message =
      'Error 403: settle-now needs an 11-digit test MID within 32350000000-32350099999 (got 41000000001)';
    const wrapped = wrapLines(`${message}\n  field: short`, 80);
    expect(wrapped.split('\n').every((l) => l.length <= 80)).toBe(true);
    expect(wrapped.split('\n')).toEqual([
      'Error 403: settle-now needs an 11-digit test MID within 32350000000-32350099999',
      '  (got 41000000001)',
      '  field: short',
    ]);
  });
});

describe('returns on `group show` and `sale show`', () => {
  const R01 = {
    code: 'R01',
    reason: 'Insufficient funds',
    category: 'nsf',
    returnedAt: '2030-06-06T18:00:00.000Z',
  };
  const approved = {
    status: 'Approved',
    responseCode: '00',
    responseMessage: 'Approved',
    approvedAmount: 40,
  };
  const payments = [
    {
      paymentId: 'p1',
      amount: 40,
      deleted: false,
      authResponse: { ...approved, status: 'Returned', return: R01 },
    },
    { paymentId: 'p2', amount: 40, deleted: false, authResponse: approved },
  ] as unknown as Schemas['Payment'][];

  test('the outcome table shows a returned debit with its return code and reason; the summary line counts it', () => {
    const text = outcomeTable(payments, false, 80);
    expect(text).toMatch(/Returned R01/);
    expect(text).toContain('Insufficient funds (nsf)');
    expect(summaryLine(outcomesOf(payments))).toBe(
      '2/2 answered: 1 approved, 0 declined, 0 failed, 1 returned',
    );
    // No return: the line as before.
    expect(summaryLine(outcomesOf(payments.slice(1)))).toBe('1/1 answered: 1 approved, 0 declined, 0 failed');
  });

  test("the group's card shows its summary's approved and returned counts and amounts", () => {
    const group = {
      paymentGroupId: 'g1',
      scheduleDate: '2030-06-03',
      scheduleHour: 14,
      status: 'processed',
      paymentCount: 2,
      totalAmount: 80,
      processingSummary: { approvedCount: 1, approvedAmount: 40, returnedCount: 1, returnedAmount: 40 },
    } as unknown as Schemas['Group'];
    const card = groupCard(group);
    expect(card).toMatch(/Approved\s+│ 1 \(40\.00\)/);
    expect(card).toMatch(/Returned\s+│ 1 \(40\.00\)/);
    expect(Math.max(...card.split('\n').map((l) => l.length))).toBeLessThanOrEqual(80);
  });

  /** A CHECKING sale returned R10 after it cleared. */
  const returnedSale = () => ({
    transactionId: '01a21609-dd4a-7215-bf0a-000000000001',
    type: 'sale',
    status: 'Returned',
    responseCode: '00',
    responseMessage: 'Approved',
    amount: 40,
    approvedAmount: 40,
    refundedAmount: 0,
    availableRefundAmount: 0,
    refundCount: 0,
    accountType: 'CHECKING',
    maskedAccountNumber: '********2227',
    processedAt: '2030-06-03T14:00:05.000Z',
    cleared: true,
    clearedAt: '2030-06-05T14:00:00.000Z',
    return: { ...R01, category: 'unauthorized', code: 'R10', reason: 'Customer advises not authorized' },
  });

  test("a sale's card shows its clearing and its return, within 80 columns", () => {
    const sale = returnedSale() as unknown as Schemas['Transaction'];
    const card = saleCard(sale);
    expect(card).toMatch(/Status\s+│ Returned R10/);
    expect(card).toMatch(/Cleared\s+│ yes, 2030-06-05 14:00:00 UTC/);
    expect(card).toContain('R10 Customer advises not authorized (unauthorized),');
    expect(card).toContain('2030-06-06 18:00:00 UTC');
    expect(card).toMatch(/Refundable\s+│ 0\.00/);
    expect(Math.max(...card.split('\n').map((l) => l.length))).toBeLessThanOrEqual(80);
  });
  const dispute = {
    disputeId: 'd1',
    transactionId: 't-card',
    status: 'needs_response',
    reason: 'product_not_received',
    amount: 30,
    openedAt: '2030-06-05T14:00:00.000Z',
    evidenceDueBy: '2030-06-12T14:00:00.000Z',
  };

  test('the outcome table and the group’s card show a disputed charge: its reason, status and amount; approved still', () => {
    const disputed = [
      {
        paymentId: 'p3',
        amount: 30,
        deleted: false,
        authResponse: { ...approved, approvedAmount: 30, transactionId: 't-card' },
        dispute,
      },
    ] as unknown as Schemas['Payment'][];
    const text = outcomeTable(disputed, false, 80);
    expect(text).toMatch(/Approved 00/);
    expect(text.replace(/[│\s]+/g, ' ')).toContain('Disputed product_not_received (needs_response), 30.00');
    expect(Math.max(...text.split('\n').map((l) => l.length))).toBeLessThanOrEqual(80);
    const group = {
      paymentGroupId: 'g1',
      scheduleDate: '2030-06-03',
      scheduleHour: 14,
      status: 'processed',
      paymentCount: 1,
      totalAmount: 30,
      processingSummary: {
        approvedCount: 1,
        approvedAmount: 30,
        returnedCount: 0,
        disputedCount: 1,
        disputedAmount: 30,
      },
    } as unknown as Schemas['Group'];
    expect(groupCard(group)).toMatch(/Disputed\s+│ 1 \(30\.00\)/);
    expect(groupCard(group)).not.toContain('Returned');
  });

  test("a sale's card shows its dispute: reason, status, amount, when opened and the evidence's date", () => {
    const sale = {
      ...returnedSale(),
      transactionId: 't-card',
      status: 'Approved',
      amount: 30,
      approvedAmount: 30,
      accountType: 'VISA',
      maskedAccountNumber: '************2685',
      cleared: undefined,
      clearedAt: undefined,
      return: undefined,
      dispute,
    } as unknown as Schemas['Transaction'];
    const card = saleCard(sale);
    expect(card.replace(/[│\s]+/g, ' ')).toContain(
      'Dispute Disputed product_not_received (needs_response), 30.00, opened 2030-06-05 14:00:00 UTC',
    );
    expect(card).toMatch(/Evidence by\s+│ 2030-06-12 14:00:00 UTC/);
    expect(Math.max(...card.split('\n').map((l) => l.length))).toBeLessThanOrEqual(80);
  });
});
