/**
 * Issue 21 item 4: a group's CSV report against DynamoDB Local, through the handler as API Gateway
 * invokes it. A full page and a few rows more (5,050 payments): a page holds at most
 * REPORT_PAGE_ROWS rows whatever the group's size, so a full page is the largest any group's
 * report has, and a 100,000-payment group is 20 of them (measured at that size by
 * `npm run bench -- --only=group-report`). The CSV comes in pages that each fit Lambda's 6 MB response (the
 * whole proxy result, its JSON-escaped body included) and API Gateway's 10 MB, and that together
 * hold every payment exactly once, each row the payment written with its payor's
 * customerAccountId; the .xlsx pages too, base64 in the proxy result.
 * Payments are written straight to the table in batches, as a processed group holds them.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { MAX_RESPONSE_BYTES, REPORT_PAGE_ROWS } from '#contract/limits';
import { XLSX_MEDIA_TYPE } from '#contract/media-types';
import { apiScope } from '#contract/stage';
import type { Payment } from '#domain/groups';
import { REPORT_COLUMNS } from '#contract/schemas/reports';
import { reloadConfigForTests } from '#shared/config';
import { newId } from '#shared/ids';
import { groupItem } from '#store/groups';
import { batchWriteAll } from '#store/items';
import { MerchantAdmin } from '#store/merchant-admin';
import { payorItem } from '#store/payor-items';
import { paymentItem } from '#store/payments';
import { createTestTable, type TestTable } from '#support/ddb';
import {
  answer,
  group as groupRecord,
  payment as paymentRecord,
  payor as payorRecord,
} from '#support/fixtures/index';

const MID = '32350000021';
const CLIENT = 'report-client';
const GROUP_ID = newId();
const LAMBDA_LIMIT = 6 * 1024 * 1024;

let table: TestTable;
let handler: (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/**
 * Payment `i`: every tenth deleted, the others approved, partial, declined (1, 2) or failed, every
 * 50th (`i % 50 === 1`) an approved bank debit returned since (R01); hostile orderIds.
 */
function nthPayment(i: number): Payment {
  const amountCents = 1_000 + (i % 997);
  const amount = amountCents / 100;
  const orderIds = [`INV-${i}`, `=cmd|' /C calc'!A0 ${i}`, `a,"b"\n${i}`, `+${i}`, `naïve ☃ ${i}`];
  const kind = i % 10;
  const returned = i % 50 === 1;
  const authResponse = returned
    ? {
        ...answer('Approved', amount, amount, '00'),
        status: 'Returned' as const,
        return: {
          code: 'R01',
          reason: 'Insufficient funds',
          category: 'nsf' as const,
          returnedAt: '2030-06-06T18:00:00.000Z',
        },
      }
    : kind === 9
      ? null
      : kind < 5
        ? answer('Approved', amount, amount, '00')
        : kind === 5
          ? answer('Approved', amount, 5, '10')
          : kind === 6
            ? answer('Declined', amount, 0, '05', '1')
            : kind === 7
              ? answer('Declined', amount, 0, '51', '2')
              : answer('Failed', amount, 0, '96', '2');
  return paymentRecord({
    paymentId: newId(),
    paymentGroupId: GROUP_ID,
    merchantId: MID,
    profileId: `payor-${i % 50}/method-${i % 7}`,
    orderId: orderIds[i % orderIds.length]!,
    amountCents,
    deleted: kind === 9,
    authResponse,
  });
}

/**
 * The customerAccountId a row shows for payor `k` (`payor-<k>`): leading zeros, as offices number
 * families; payor 48 has none, payor 49 is another merchant's (its id is not this merchant's to show).
 */
const accountOf = (k: number): string => (k >= 48 ? '' : `FAM-${String(k).padStart(4, '0')}`);
const payors = Array.from({ length: 50 }, (_, k) =>
  payorRecord({
    payorId: `payor-${k}`,
    merchantId: k === 49 ? '32350000099' : MID,
    ...(k === 48 ? {} : { customerAccountId: k === 49 ? 'OTHER-MERCHANT' : accountOf(k) }),
  }),
);

/** Payments of the test's group: a full page, then a second page of 50 (every kind of row on both). */
const COUNT = REPORT_PAGE_ROWS + 50;
const PAGES = Math.ceil(COUNT / REPORT_PAGE_ROWS);
const payments = Array.from({ length: COUNT }, (_, i) => nthPayment(i));
const live = payments.filter((p) => !p.deleted);

function reportEvent(accept: string | undefined, cursor?: string): APIGatewayProxyEvent {
  const path = `/rest/merchants/${MID}/groups/${GROUP_ID}/report`;
  const query = cursor === undefined ? null : { cursor };
  return {
    resource: '/rest/merchants/{MID}/groups/{GroupID}/report',
    path,
    httpMethod: 'GET',
    headers: accept === undefined ? {} : { Accept: accept },
    multiValueHeaders: {},
    pathParameters: { MID, GroupID: GROUP_ID },
    queryStringParameters: query,
    multiValueQueryStringParameters: query && { cursor: [cursor!] },
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {
      path,
      httpMethod: 'GET',
      stage: 'dev',
      requestId: newId(),
      authorizer: { claims: { client_id: CLIENT, scope: apiScope('dev') } },
    } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

const context = {
  functionName: 'group-report',
  awsRequestId: 'r',
  getRemainingTimeInMillis: () => 29_000,
} as unknown as Context;

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  reloadConfigForTests();
  ({ handler } = (await import('#lambdas/groups/group-report')) as unknown as { handler: typeof handler });
  const registry = new MerchantAdmin(table.db, table.tableName);
  await registry.register({ merchantId: MID, name: 'Report test' });
  await registry.grant(CLIENT, MID, 'test');
  const totalCents = live.reduce((sum, p) => sum + p.amountCents, 0);
  await table.db.send(
    new (await import('@aws-sdk/lib-dynamodb')).PutCommand({
      TableName: table.tableName,
      Item: groupItem(
        groupRecord({
          paymentGroupId: GROUP_ID,
          merchantId: MID,
          status: 'processed',
          paymentCount: live.length,
          totalCents,
        }),
      ),
    }),
  );
  const items = [
    ...payors.map((p) => ({ PutRequest: { Item: payorItem(p) } })),
    ...payments.map((p) => ({ PutRequest: { Item: paymentItem(p) } })),
  ];
  // Four writers of eight batches in flight each: DynamoDB Local takes writes about as fast as that.
  const quarter = Math.ceil(items.length / 4);
  await Promise.all(
    [0, 1, 2, 3].map((q) =>
      batchWriteAll(table.db, table.tableName, items.slice(q * quarter, (q + 1) * quarter), 240_000),
    ),
  );
}, 240_000);
afterAll(() => table.drop());

const cents = (amount: string | number): number => Math.round(Number(amount) * 100);

it('pages the CSV of a group two pages long, every page within the limits, every payment once', async () => {
  const seen = new Map<string, Record<string, string>>();
  let cursor: string | undefined;
  let pages = 0;
  let largest = 0;
  do {
    const result = await handler(reportEvent('text/csv', cursor), context);
    expect(result.statusCode).toBe(200);
    expect(result.headers?.['content-type']).toBe('text/csv; charset=utf-8');
    // The proxy result as Lambda returns it: under its 6 MB, and under the service's own margin.
    const bytes = Buffer.byteLength(JSON.stringify(result));
    largest = Math.max(largest, bytes);
    expect(bytes).toBeLessThan(MAX_RESPONSE_BYTES);
    expect(bytes).toBeLessThan(LAMBDA_LIMIT);
    expect(result.body.startsWith(`\uFEFF${REPORT_COLUMNS.join(',')}\r\n`)).toBe(true);
    const rows = parse(result.body, { columns: true, bom: true }) as Record<string, string>[];
    expect(rows.length).toBeLessThanOrEqual(REPORT_PAGE_ROWS);
    for (const row of rows) {
      expect(seen.has(row.paymentId!)).toBe(false);
      seen.set(row.paymentId!, row);
    }
    const link = result.headers?.link as string | undefined;
    cursor = link === undefined ? undefined : /^<\?cursor=([A-Za-z0-9_.-]+)>; rel="next"$/.exec(link)?.[1];
    if (link !== undefined) expect(cursor).toBeDefined();
    pages++;
  } while (cursor !== undefined && pages <= 4 * PAGES);
  console.info(`${pages} CSV pages, largest proxy result ${largest} bytes`);

  // A full page and a short one; a page whose reads outlast its time budget (REPORT_PAGE_BUDGET_MS,
  // wall clock: a loaded machine) ends early with a cursor, so there may be more, never fewer.
  expect(pages).toBeGreaterThanOrEqual(PAGES);
  expect(seen.size).toBe(payments.length);
  for (const p of payments) {
    const row = seen.get(p.paymentId)!;
    expect(row).toBeDefined();
    expect(cents(row.amount!)).toBe(p.amountCents);
    const orderId = p.orderId!;
    expect(row.orderId).toBe(/^[=+\-@]/.test(orderId) ? `'${orderId}` : orderId);
    expect(row.customerAccountId).toBe(accountOf(Number(p.profileId.split('/')[0]!.slice('payor-'.length))));
    expect(row.processedAt).toBe(p.deleted ? '' : (p.authResponse?.processedAt ?? ''));
  }

  // The CSV's numbers are the payments written (the JSON report's agreement with the CSV is the
  // e2e's and the unit tests': reading every payment twice more would double this file's time).
  const rows = [...seen.values()];
  const count = (status: string) => rows.filter((r) => r.status === status).length;
  expect(count('deleted')).toBe(payments.length - live.length);
  expect(count('partial')).toBe(payments.filter((_, i) => i % 10 === 5).length);
  // A returned debit: its row says so with the bank's code, nothing approved.
  const returnedRows = rows.filter((r) => r.status === 'returned');
  expect(returnedRows).toHaveLength(payments.filter((_, i) => i % 50 === 1).length);
  for (const r of returnedRows)
    expect(r).toMatchObject({ returnCode: 'R01', approvedAmount: '0.00', declineCategory: '' });
  expect(rows.filter((r) => r.returnCode !== '')).toHaveLength(returnedRows.length);
  expect(rows.filter((r) => r.declineCategory === '1')).toHaveLength(
    payments.filter((_, i) => i % 10 === 6).length,
  );
  const sum = (list: Record<string, string>[], column: string) =>
    list.reduce((total, r) => total + cents(r[column]!), 0);
  expect(
    sum(
      rows.filter((r) => r.status !== 'deleted'),
      'amount',
    ),
  ).toBe(live.reduce((total, p) => total + p.amountCents, 0));
}, 300_000);

it('pages the spreadsheet the same way: base64 pages within the limits, every payment once, ids and codes as text', async () => {
  const seen = new Map<string, ExcelJS.Row>();
  let cursor: string | undefined;
  let pages = 0;
  let largest = 0;
  do {
    const result = await handler(reportEvent(XLSX_MEDIA_TYPE, cursor), context);
    expect(result.statusCode).toBe(200);
    expect(result.headers?.['content-type']).toBe(XLSX_MEDIA_TYPE);
    expect(result.isBase64Encoded).toBe(true);
    const bytes = Buffer.byteLength(JSON.stringify(result));
    largest = Math.max(largest, bytes);
    expect(bytes).toBeLessThan(MAX_RESPONSE_BYTES);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(Buffer.from(result.body, 'base64') as unknown as ArrayBuffer);
    const sheet = workbook.getWorksheet('Payments')!;
    expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual([...REPORT_COLUMNS]);
    expect(sheet.rowCount - 1).toBeLessThanOrEqual(REPORT_PAGE_ROWS);
    sheet.eachRow((row, n) => {
      if (n === 1) return;
      const id = String(row.getCell(1).value);
      expect(seen.has(id)).toBe(false);
      seen.set(id, row);
    });
    const link = result.headers?.link as string | undefined;
    cursor = link === undefined ? undefined : /^<\?cursor=([A-Za-z0-9_.-]+)>; rel="next"$/.exec(link)?.[1];
    pages++;
  } while (cursor !== undefined && pages <= 4 * PAGES);
  console.info(`${pages} spreadsheet pages, largest proxy result ${largest} bytes`);
  expect(pages).toBeGreaterThanOrEqual(PAGES);
  expect(seen.size).toBe(payments.length);
  const column = (name: string) => REPORT_COLUMNS.indexOf(name as never) + 1;
  for (const p of payments) {
    const row = seen.get(p.paymentId)!;
    // As typed: no `'` (a text cell is never a formula), codes and ids text.
    expect(row.getCell(column('orderId')).value).toBe(p.orderId);
    expect(row.getCell(column('amount')).value).toBe(p.amountCents / 100);
    const code = row.getCell(column('responseCode'));
    if (!p.deleted && p.authResponse)
      expect(code).toMatchObject({ type: ExcelJS.ValueType.String, value: p.authResponse.responseCode });
    const k = Number(p.profileId.split('/')[0]!.slice('payor-'.length));
    expect(row.getCell(column('customerAccountId')).value ?? '').toBe(accountOf(k));
    if (p.authResponse?.status === 'Returned')
      expect(row.getCell(column('returnCode'))).toMatchObject({
        type: ExcelJS.ValueType.String,
        value: 'R01',
      });
    else expect(row.getCell(column('returnCode')).value).toBeNull();
  }
}, 300_000);

it('refuses a cursor of another group, an altered one, and a cursor without Accept: text/csv', async () => {
  const first = await handler(reportEvent('text/csv'), context);
  const cursor = /cursor=([^>]+)>/.exec(String(first.headers?.link))![1]!;
  const altered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;
  for (const event of [reportEvent('text/csv', altered), reportEvent('application/json', cursor)]) {
    const answer = await handler(event, context);
    expect(answer.statusCode).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ responseCode: 400 });
  }
});

it('defect: a CSV or workbook the Accept header refuses (q=0) was answered anyway; JSON is answered', async () => {
  for (const accept of [
    'application/json, text/csv;q=0',
    'text/csv; q=0.0, application/json',
    `${XLSX_MEDIA_TYPE};Q=0, application/json`,
  ]) {
    const answer = await handler(reportEvent(accept), context);
    expect(answer.statusCode).toBe(200);
    expect(answer.headers?.['content-type']).toContain('application/json');
    expect(JSON.parse(answer.body)).toMatchObject({ paymentGroupId: GROUP_ID });
  }
  // A weight above 0 still asks for it.
  const csv = await handler(reportEvent('application/json;q=0.5, text/csv;q=0.1'), context);
  expect(csv.headers?.['content-type']).toBe('text/csv; charset=utf-8');
});
