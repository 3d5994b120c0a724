/**
 * A snapshot of one merchant's state, read straight from the runtime's DynamoDB Local (its endpoint
 * and table are in <dataDir>/runtime.json, written by lib/local/runtime.ts): every group with its
 * totals, every payment, the outbox items of those payments, and the webhook endpoints. Cheap enough (a few Queries) to
 * take around every refused write of the fuzz suite.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';

type Item = Record<string, unknown>;

interface Snapshotter {
  take(): Promise<string>;
  close(): void;
}

export function snapshotter(merchantId: string): Snapshotter {
  const runtime = JSON.parse(readFileSync(join(process.env.E2E_DATA_DIR!, 'runtime.json'), 'utf8')) as {
    dynamodbEndpoint: string;
    tableName: string;
  };
  const client = new DynamoDBClient({
    endpoint: runtime.dynamodbEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const db = DynamoDBDocumentClient.from(client);
  const all = async (input: Omit<QueryCommandInput, 'TableName'>): Promise<Item[]> => {
    const items: Item[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await db.send(
        new QueryCommand({ TableName: runtime.tableName, ...input, ExclusiveStartKey }),
      );
      items.push(...((page.Items ?? []) as Item[]));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return items;
  };
  const byPk = (pk: string) =>
    all({
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': pk },
      ConsistentRead: true,
    });

  const groupsOf = () =>
    all({
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': `MERCHANT#${merchantId}` },
    });
  const outboxOf = async (paymentSk: string) =>
    (await byPk(`OUTBOX#notice:${paymentSk.slice('PAYMENT#'.length)}`)).map((o) => ({ pk: o.pk, sk: o.sk }));
  // Keys seen last time: their Queries go out in the same round as the merchant's group list and
  // webhook endpoints, so that a snapshot is usually one round trip (it runs around every write
  // of the fuzz suite, some 1,800 times a run).
  let knownGroups: string[] = [];
  let knownPayments: string[] = [];

  return {
    async take() {
      const [groups, perKnownGroup, knownOutbox, webhookItems] = await Promise.all([
        groupsOf(),
        Promise.all(knownGroups.map(byPk)),
        Promise.all(knownPayments.map(outboxOf)),
        byPk(`WEBHOOKS#${merchantId}`),
      ]);
      const groupPks = groups.map((g) => String(g.pk));
      const newGroups = groupPks.filter((pk) => !knownGroups.includes(pk));
      const perGroup = [...perKnownGroup, ...(await Promise.all(newGroups.map(byPk)))];
      const paymentSks = perGroup
        .flat()
        .map((i) => String(i.sk))
        .filter((sk) => sk.startsWith('PAYMENT#'));
      const newPayments = paymentSks.filter((sk) => !knownPayments.includes(sk));
      const outbox = [...knownOutbox, ...(await Promise.all(newPayments.map(outboxOf)))];
      knownGroups = [...new Set([...knownGroups, ...groupPks])];
      knownPayments = [...new Set([...knownPayments, ...paymentSks])];
      // Webhook endpoints (and their count) without the breaker's fields, which the delivery
      // function moves on its own time.
      const webhooks = webhookItems.map(({ failures: _f, retryAfter: _r, ...rest }) => rest);
      // Outbox items only by key: the stream reader delivers (and updates) them on its own time.
      const state: Item[] = [...groups, ...perGroup.flat(), ...outbox.flat(), ...webhooks];
      const key = (i: Item) => `${String(i.gsi1pk ?? '')}|${String(i.pk)}|${String(i.sk)}`;
      return JSON.stringify(state.sort((a, b) => key(a).localeCompare(key(b))));
    },
    close: () => client.destroy(),
  };
}
