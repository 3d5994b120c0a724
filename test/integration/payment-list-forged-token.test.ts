/**
 * Audit (session 25): a page token of a group's payments is a digest, not a signature
 * (store/paging.ts): anyone can make one with a valid digest. A token forged with a page size
 * no list makes (above the 500 any request may ask) reaches DynamoDB as the Query's Limit.
 */
import { createHash } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { reloadConfigForTests } from '#shared/config';
import { BadRequestError } from '#shared/errors';
import { newId } from '#shared/ids';
import { groupItem } from '#store/groups';
import { paymentItem } from '#store/payments';
import { createTestTable, type TestTable } from '#support/ddb';
import { group as groupRecord, payment as paymentRecord } from '#support/fixtures/index';

const MID = '32350000032';
let table: TestTable;

beforeAll(async () => {
  table = await createTestTable();
  process.env.TABLE_NAME = table.tableName;
  process.env.SERVICE_STAGE = 'dev';
  reloadConfigForTests();
});
afterAll(() => table.drop());

/** A token of the group's payment list with a valid digest, as store/paging.ts makes one. */
function forged(groupId: string, cursor: unknown[]): string {
  const payload = Buffer.from(JSON.stringify(cursor)).toString('base64url');
  const digest = createHash('sha256').update(`${groupId}\n${payload}`).digest('base64url').slice(0, 22);
  return `${payload}.${digest}`;
}

test.each([2 ** 31, Number.MAX_SAFE_INTEGER])(
  'defect: a payment-list page token forged with a valid digest and pageSize %d (no list makes one above 500) reaches DynamoDB as the Limit: a 500, not a 400',
  async (pageSize) => {
    const { listPayments } = await import('#core/lists');
    const groupId = newId();
    await table.db.send(
      new PutCommand({
        TableName: table.tableName,
        Item: groupItem(
          groupRecord({ paymentGroupId: groupId, merchantId: MID, status: 'processed', paymentCount: 2 }),
        ),
      }),
    );
    const ids = [newId(), newId()].sort();
    for (const paymentId of ids)
      await table.db.send(
        new PutCommand({
          TableName: table.tableName,
          Item: paymentItem(paymentRecord({ paymentId, paymentGroupId: groupId, merchantId: MID })),
        }),
      );
    const pageToken = forged(groupId, [ids[0], 1, 2, pageSize]);
    await expect(listPayments(MID, groupId, { pageToken })).rejects.toThrow(BadRequestError);
  },
);
