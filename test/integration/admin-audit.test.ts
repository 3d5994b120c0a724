/**
 * Issue 22, item 6: `npm run admin -- grant` and `revoke` write an audit record (who, when, what)
 * in the transaction that makes the change, and `npm run admin -- audit` lists them. Run for real
 * against DynamoDB Local (as `--local`, through a runtime.json naming the test's table): a grant
 * then a revocation leave two records; a grant that fails leaves none, whether it fails before its
 * transaction (an unregistered merchant) or in it (the merchant's registry item gone meanwhile).
 */
import { userInfo } from 'node:os';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#store/keys';
import { type Merchant } from '#store/merchants';
import { MerchantAdmin, monthsBetween, type AuditRecord } from '#store/merchant-admin';
import { localAdminCli, type LocalAdminCli } from '#support/admin-cli';
import { createTestTable, type TestTable } from '#support/ddb';

const MERCHANT = { merchantId: '32350000081', shortId: '23500081', name: 'Audited Elementary' };
const CLIENT = 'audit-client-1';

let table: TestTable;
let admin: LocalAdminCli;
beforeAll(async () => {
  table = await createTestTable();
  admin = localAdminCli(table.tableName, 'sps-audit-');
  await new MerchantAdmin(table.db, table.tableName).register(MERCHANT);
});
afterAll(async () => {
  admin.remove();
  await table.drop();
});

/** Every audit record of the table this month, read directly. */
async function auditItems(): Promise<Record<string, unknown>[]> {
  const month = new Date().toISOString().slice(0, 7);
  const { Items = [] } = await table.db.send(
    new QueryCommand({
      TableName: table.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.auditMonth(month) },
      ConsistentRead: true,
    }),
  );
  return Items;
}

test('grant then revoke leave two audit records, which `admin audit` lists; a failed grant leaves none', async () => {
  const before = new Date().toISOString();
  await admin('grant', '--client', CLIENT, '--mid', MERCHANT.shortId);
  await admin('revoke', '--client', CLIENT, '--mid', MERCHANT.merchantId);
  // A merchant that is not registered: refused before any write.
  await expect(admin('grant', '--client', CLIENT, '--mid', '32350000099')).rejects.toMatchObject({
    stderr: expect.stringContaining('merchant 32350000099 is not registered'),
  });

  const { stdout } = await admin('audit', '--json', '--since', before);
  const records = JSON.parse(stdout) as AuditRecord[];
  const who = `local:${userInfo().username}`;
  expect(records).toEqual([
    expect.objectContaining({
      action: 'grant',
      actor: who,
      clientId: CLIENT,
      merchantId: MERCHANT.merchantId,
    }),
    expect.objectContaining({
      action: 'revoke',
      actor: who,
      clientId: CLIENT,
      merchantId: MERCHANT.merchantId,
    }),
  ]);
  expect(records.map((r) => r.mid)).toEqual([MERCHANT.shortId, MERCHANT.merchantId]);
  for (const r of records) expect(Date.parse(r.at)).toBeGreaterThanOrEqual(Date.parse(before));
  expect(records[0]!.at <= records[1]!.at).toBe(true);
  expect(await auditItems()).toHaveLength(2);
  // The revocation removed both grant items.
  expect(await new MerchantAdmin(table.db, table.tableName).grantsOf(CLIENT)).toEqual([]);

  // The table text the runbook shows.
  const text = (await admin('audit', '--since', before)).stdout;
  expect(text).toContain('2 grant(s) and revocation(s)');
  expect(text).toMatch(
    new RegExp(
      `grant\\s+client ${CLIENT}\\s+merchant ${MERCHANT.merchantId} \\(as ${MERCHANT.shortId}\\)\\s+by ${who}`,
    ),
  );
}, 60_000);

test('a grant whose transaction fails (the merchant deregistered after it was read) writes neither grant nor audit record', async () => {
  const gone: Merchant = { merchantId: '32350000082', shortId: '23500082', name: 'Closed Academy' };
  // The registry read answers a merchant whose item is no longer in the table.
  class StaleRegistry extends MerchantAdmin {
    override find(): Promise<Merchant | undefined> {
      return Promise.resolve(gone);
    }
  }
  const registry = new StaleRegistry(table.db, table.tableName);
  const before = await auditItems();
  await expect(registry.grant('audit-client-2', gone.merchantId, 'tester')).rejects.toThrow(/cancel/i);
  expect(await auditItems()).toEqual(before);
  expect(await registry.grantsOf('audit-client-2')).toEqual([]);
});

test('the audit trail is read month by month, across a year’s end', () => {
  expect(monthsBetween('2026-11-30T23:00:00.000Z', '2027-02-01T00:00:00.000Z')).toEqual([
    '2026-11',
    '2026-12',
    '2027-01',
    '2027-02',
  ]);
  expect(monthsBetween('2026-05-01T00:00:00.000Z', '2026-05-31T00:00:00.000Z')).toEqual(['2026-05']);
});
