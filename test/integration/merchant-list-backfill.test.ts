/**
 * Issue 25, defect 6 ("merchants registered before the reconciliation existed are not
 * reconciled"): the reconciliation lists every merchant from GSI1 `MERCHANTS`, which the registry
 * writes only since the reconciliation exists. A table holding old-style registry items (no GSI1
 * entry) is backfilled by `npm run admin -- backfill-merchant-list`, run here for real against
 * DynamoDB Local (as `--local`, through a runtime.json naming the test's table), twice: the second
 * run changes nothing.
 */
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { reconcile, type ReconcileDeps } from '#core/reconcile';
import { SandboxProcessor } from '#processor/sandbox';
import { reloadConfigForTests } from '#shared/config';
import { keys } from '#store/keys';
import { newId } from '#shared/ids';
import { MerchantAdmin } from '#store/merchant-admin';
import { DynamoGroupStore } from '#store/groups';
import { ReconciliationRecords } from '#store/reconciliation';
import { storedProfile } from '#support/sales';
import { localAdminCli, type LocalAdminCli } from '#support/admin-cli';
import { createTestTable, type TestTable } from '#support/ddb';
import { group, payment } from '#support/fixtures/index';

/** Registered before the reconciliation: an 11-digit merchant with its 8-digit form, one without. */
const OLD = [
  { merchantId: '32350000071', shortId: '23500071', name: 'Old Springfield Prep' },
  { merchantId: '32350000072', name: 'Old Shelbyville Tech' },
];
/** Registered since: listed already. */
const NEW = { merchantId: '32350000073', shortId: '23500073', name: 'New Ogdenville Middle' };

let table: TestTable;
let admin: LocalAdminCli;

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  reloadConfigForTests();
  admin = localAdminCli(table.tableName, 'sps-backfill-');
});
afterAll(async () => {
  admin.remove();
  await table.drop();
});

/** A registry item as the registry wrote it before GSI1 `MERCHANTS` existed. */
async function putOldStyle(merchant: (typeof OLD)[number]): Promise<void> {
  for (const mid of [merchant.merchantId, ...(merchant.shortId ? [merchant.shortId] : [])])
    await table.db.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { ...keys.merchant(mid), entity: 'merchant', ...merchant },
      }),
    );
}

const registryItem = async (mid: string) =>
  (await table.db.send(new GetCommand({ TableName: table.tableName, Key: keys.merchant(mid) }))).Item;

const listed = async () =>
  (
    await table.db.send(
      new QueryCommand({
        TableName: table.tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :m',
        ExpressionAttributeValues: { ':m': keys.merchantList },
      }),
    )
  ).Items!.map((i) => i.merchantId as string);

/** A processed group of this hour with one payment never answered: what reconciliation must report. */
async function unansweredPaymentOf(merchantId: string): Promise<string> {
  const now = new Date();
  const g = group({
    paymentGroupId: newId(),
    merchantId,
    scheduleDate: now.toISOString().slice(0, 10),
    scheduleHour: now.getUTCHours(),
    status: 'processed',
    paymentCount: 1,
  });
  const profileId = await storedProfile(table, merchantId);
  const p = payment({
    paymentId: newId(),
    paymentGroupId: g.paymentGroupId,
    merchantId,
    profileId,
    authResponse: null,
  });
  await new DynamoGroupStore(table.db, table.tableName).createGroup(g, [p]);
  return p.paymentId;
}

/** The reconciliation's report of the last hours: the payment ids it names as unanswered. */
async function unansweredReported(): Promise<string[]> {
  const deps: ReconcileDeps = {
    records: new ReconciliationRecords(table.db, table.tableName),
    processor: new SandboxProcessor(table.db, table.tableName, { periodSeconds: 3600, offsetSeconds: 1800 }),
    sweep: async () => undefined,
  };
  const report = await reconcile(
    { since: new Date(Date.now() - 3 * 3600_000).toISOString(), heal: false },
    deps,
  );
  return report.differences.filter((d) => d.kind === 'unanswered-payment').map((d) => d.paymentId!);
}

test('defect 6: merchants registered before the reconciliation existed are reconciled after the backfill migration (idempotent)', async () => {
  for (const merchant of OLD) await putOldStyle(merchant);
  await new MerchantAdmin(table.db, table.tableName).register(NEW);
  const missed = await Promise.all(OLD.map((m) => unansweredPaymentOf(m.merchantId)));
  const seen = await unansweredPaymentOf(NEW.merchantId);
  // Before: the old merchants' groups are never read.
  expect((await unansweredReported()).sort()).toEqual([seen]);

  const first = await admin('backfill-merchant-list');
  expect(first.stdout).toContain('2 merchant(s) added to the reconciliation list, 1 listed already');
  expect((await listed()).sort()).toEqual([...OLD.map((m) => m.merchantId), NEW.merchantId].sort());
  // The items keep what they held; the 8-digit forms stay unlisted (the 11-digit item is the merchant).
  expect(await registryItem(OLD[0]!.merchantId)).toEqual({
    ...keys.merchant(OLD[0]!.merchantId),
    entity: 'merchant',
    ...OLD[0],
    gsi1pk: keys.merchantList,
    gsi1sk: OLD[0]!.merchantId,
  });
  expect(await registryItem(OLD[0]!.shortId!)).toEqual({
    ...keys.merchant(OLD[0]!.shortId!),
    entity: 'merchant',
    ...OLD[0],
  });
  expect(await new MerchantAdmin(table.db, table.tableName).find(OLD[0]!.shortId!)).toEqual(OLD[0]);

  // After: every merchant's groups are reconciled.
  expect((await unansweredReported()).sort()).toEqual([...missed, seen].sort());

  // Idempotent: a second run finds nothing to do and changes nothing.
  const before = await Promise.all(OLD.map((m) => registryItem(m.merchantId)));
  const second = await admin('backfill-merchant-list');
  expect(second.stdout).toContain('0 merchant(s) added to the reconciliation list, 3 listed already');
  expect(await Promise.all(OLD.map((m) => registryItem(m.merchantId)))).toEqual(before);
  expect((await listed()).sort()).toEqual([...OLD.map((m) => m.merchantId), NEW.merchantId].sort());
}, 60_000);
