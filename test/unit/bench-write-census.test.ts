/**
 * Where the bench's census counts a write (bench/support/count-call.ts) and what it weighs
 * (bench/support/item-size.ts): the busiest slot's model costs a payment's writes from both.
 */
import { PutCommand, TransactWriteCommand, UpdateCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { countCall, isPlacement } from '../../bench/support/count-call';
import { itemBytes, topLevelBytes } from '../../bench/support/item-size';

describe('the write census', () => {
  it("counts a transaction's writes by partition class, as transactional, and the index entries its Puts set", () => {
    const counts: Record<string, number> = {};
    countCall(
      counts,
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: 't',
              Key: { pk: 'GROUP#g1', sk: 'PAYMENT#p1' },
              UpdateExpression: 'SET authResponse = :a',
              ExpressionAttributeValues: { ':a': {} },
            },
          },
          {
            Put: { TableName: 't', Item: { pk: 'EVENT#e1', sk: 'EVENT', gsi1pk: 'EVENTS#m1', gsi1sk: 'x' } },
          },
        ],
      }),
    );
    expect(counts).toEqual({
      TransactWrite: 1,
      'TransactWrite.items': 2,
      'write.GROUP.tx': 1,
      'write.EVENT.tx': 1,
      'index.EVENTS@EVENT': 1,
    });
  });

  it('counts plain writes, an index key an Update sets, and a batch by item; other clients not at all', () => {
    const counts: Record<string, number> = {};
    countCall(
      counts,
      new PutCommand({
        TableName: 't',
        Item: { pk: 'TXN#t1', sk: 'TXN', gsi1pk: 'TXN#DAY#d#3', gsi2pk: 'SWEEP#1' },
      }),
    );
    countCall(
      counts,
      new UpdateCommand({
        TableName: 't',
        Key: { pk: 'TXN#t1', sk: 'TXN' },
        UpdateExpression: 'SET a = :a, gsi2pk = :shard',
        ExpressionAttributeValues: { ':a': 1, ':shard': 'SWEEP#2' },
      }),
    );
    countCall(
      counts,
      new BatchWriteCommand({
        RequestItems: {
          t: [
            { PutRequest: { Item: { pk: 'DUP#x', sk: 'DUP' } } },
            { DeleteRequest: { Key: { pk: 'DUP#y', sk: 'DUP' } } },
          ],
        },
      }),
    );
    countCall(counts, new PutCommand({ TableName: 't', Item: { pk: 'GROUP#g', sk: 'GROUP' } }), 'Streams.');
    expect(counts).toEqual({
      Put: 1,
      Update: 1,
      BatchWrite: 1,
      'BatchWrite.items': 2,
      'Streams.Put': 1,
      'write.TXN': 2,
      'index.TXN@TXN': 1,
      'index.SWEEP@TXN': 2,
      'write.DUP': 2,
    });
    expect(Object.keys(counts).filter(isPlacement)).toHaveLength(4);
  });
});

describe('item sizes', () => {
  it("sizes an item by DynamoDB's rules: names and values, numbers by their digits, containers with their overhead", () => {
    expect(itemBytes('héllo')).toBe(6);
    expect(itemBytes(12345)).toBe(4);
    expect(itemBytes(true)).toBe(1);
    expect(itemBytes(null)).toBe(1);
    expect(itemBytes(['a', 'b'])).toBe(3 + 2 + 2);
    expect(itemBytes({ a: 'xy' })).toBe(3 + 1 + 2 + 1);
    expect(topLevelBytes({ pk: 'GROUP#g1', sk: 'PAYMENT#p1', amountCents: 1999 })).toBe(
      2 + 8 + 2 + 10 + 11 + 3,
    );
  });
});
