/**
 * A client's grant of a merchant covers the merchant's MID in either form, as the registry gives
 * them now (store/merchants.ts): a merchant's 8-digit form registered after the grant is covered,
 * a renamed merchant's old 8-digit form names it no more, and a revocation ends every form at
 * once, those of grants an earlier version wrote under an 8-digit form included.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#store/keys';
import { MerchantAdmin } from '#store/merchant-admin';
import { createTestTable, type TestTable } from '#support/ddb';

const CLIENT = 'grants-client-1';
const ACTOR = 'test';

let table: TestTable;
let registry: MerchantAdmin;
beforeAll(async () => {
  table = await createTestTable();
  registry = new MerchantAdmin(table.db, table.tableName);
});
afterAll(() => table.drop());

/** Which of the MIDs the client may act under, as `mid: merchantId shortId` or `mid: -`. */
const access = async (...mids: string[]) =>
  Promise.all(
    mids.map(async (mid) => {
      const m = await registry.authorized(CLIENT, mid);
      return `${mid}: ${m ? `${m.merchantId} ${m.shortId ?? ''}`.trim() : '-'}`;
    }),
  );

test("defect: after a merchant's 8-digit MID was changed, revoking a client left it the merchant under the old 8-digit MID (the old form's registry item and grant stayed)", async () => {
  const name = 'Ogdenville Middle';
  await registry.register({ merchantId: '32350087836', shortId: '23587836', name });
  await registry.grant(CLIENT, '32350087836', ACTOR);
  await registry.register({ merchantId: '32350087836', shortId: '23577836', name });
  // Renamed: the new form names the merchant, the old one nothing.
  expect(await access('32350087836', '23577836', '23587836')).toEqual([
    '32350087836: 32350087836 23577836',
    '23577836: 32350087836 23577836',
    '23587836: -',
  ]);
  expect(await registry.find('23587836')).toBeUndefined();
  await registry.revoke(CLIENT, '32350087836', ACTOR);
  expect(await access('32350087836', '23577836', '23587836')).toEqual([
    '32350087836: -',
    '23577836: -',
    '23587836: -',
  ]);
});

test('defect: a client granted a merchant before its 8-digit MID was registered was refused (403) under that 8-digit MID', async () => {
  const name = 'North Haverbrook Prep';
  await registry.register({ merchantId: '32350061328', name });
  await registry.grant(CLIENT, '32350061328', ACTOR);
  await registry.register({ merchantId: '32350061328', shortId: '23561328', name });
  expect(await access('32350061328', '23561328')).toEqual([
    '32350061328: 32350061328 23561328',
    '23561328: 32350061328 23561328',
  ]);
});

test("a grant is the merchant's, not a form's: one item under the 11-digit MID; revoking by the 8-digit form ends it, and a grant item an earlier version wrote under the 8-digit form goes too", async () => {
  const merchant = { merchantId: '32350061329', shortId: '23561329', name: 'Shelbyville Elementary' };
  await registry.register(merchant);
  await registry.grant(CLIENT, '23561329', ACTOR);
  await table.db.send(
    new PutCommand({
      TableName: table.tableName,
      Item: { ...keys.grant(CLIENT, '23561329'), entity: 'grant', clientId: CLIENT, ...merchant },
    }),
  );
  expect((await registry.grantsOf(CLIENT)).map((m) => m.merchantId)).toContain('32350061329');
  expect(await access('32350061329', '23561329')).toEqual([
    '32350061329: 32350061329 23561329',
    '23561329: 32350061329 23561329',
  ]);
  await registry.revoke(CLIENT, '23561329', ACTOR);
  expect(await access('32350061329', '23561329')).toEqual(['32350061329: -', '23561329: -']);
  expect((await registry.grantsOf(CLIENT)).map((m) => m.merchantId)).not.toContain('32350061329');
});

test('another merchant is never reached: a client granted one merchant is refused under another, in either form, and under an unregistered MID', async () => {
  await registry.register({ merchantId: '32350061330', shortId: '23561330', name: 'Granted' });
  await registry.register({ merchantId: '32350061331', shortId: '23561331', name: 'Not granted' });
  await registry.grant(CLIENT, '32350061330', ACTOR);
  expect(await access('32350061331', '23561331', '32350069999', '23569999')).toEqual([
    '32350061331: -',
    '23561331: -',
    '32350069999: -',
    '23569999: -',
  ]);
});
