/**
 * The crash test's oracle, read after the last restart once ticks and sweeps have run:
 * `npm run admin -- reconcile --local --json` (its exit code and unhealed differences), and the
 * table read directly (DynamoDB Local): the sandbox ledger's charges per payment and per sale
 * intent, the groups and their payments, what is still Pending, and what the clients saw.
 * Every finding is a line in `problems`; the test expects none.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { batchGet } from '#store/items';
import type { CrashGroup, Observations, ReturnedDebit } from '#support/crash-workload';
import { localToolCommand } from '#lib/local/runtime-bundle';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '..', '..');

type Item = Record<string, any>;

interface ReconcileRun {
  code: number;
  report: { unhealed: number; healed: number; differences: Item[]; counts: Item };
}

/** The admin command against this runtime (DATA_DIR); it exits 1 while unhealed differences remain. */
export async function reconcileLocal(dataDir: string, since: string): Promise<ReconcileRun> {
  const [command, args] = localToolCommand('admin', [
    'reconcile',
    '--since',
    since,
    '--stale-minutes',
    '0',
    '--json',
    '--local',
  ]);
  const env = { ...process.env, DATA_DIR: dataDir };
  let stdout: string;
  let code = 0;
  try {
    ({ stdout } = await run(command, args, { cwd: ROOT, env }));
  } catch (error) {
    const failed = error as { stdout?: string; code?: number };
    if (failed.code !== 1 || !failed.stdout) throw error;
    ({ stdout } = failed as { stdout: string });
    code = 1;
  }
  // The report is the last thing printed (the functions' code may log a line or two before it).
  const report = stdout.slice(stdout.lastIndexOf('\n{\n') + 1);
  return { code, report: JSON.parse(report) as ReconcileRun['report'] };
}

/** A client of the runtime's DynamoDB Local and its table's name (runtime.json), for one read. */
function tableOf(dataDir: string): { client: DynamoDBDocumentClient; tableName: string } {
  const runtime = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')) as Item;
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: runtime.dynamodbEndpoint as string,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  );
  return { client, tableName: runtime.tableName as string };
}

const byEntity = (items: Item[]): Map<string, Item[]> => {
  const found = new Map<string, Item[]>();
  for (const item of items) {
    const entity = String(item.entity);
    const ofEntity = found.get(entity);
    if (ofEntity) ofEntity.push(item);
    else found.set(entity, [item]);
  }
  return found;
};

/**
 * Every item of the runtime's table by entity (the table holds only this test's data); with
 * `entities`, only theirs (filtered by DynamoDB Local, which still reads every item).
 */
export async function readTable(dataDir: string, entities?: readonly string[]): Promise<Map<string, Item[]>> {
  const { client, tableName } = tableOf(dataDir);
  const items: Item[] = [];
  try {
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await client.send(
        new ScanCommand({
          TableName: tableName,
          ExclusiveStartKey,
          ConsistentRead: true,
          ...(entities && {
            FilterExpression: `entity IN (${entities.map((_, i) => `:e${i}`).join(', ')})`,
            ExpressionAttributeValues: Object.fromEntries(entities.map((e, i) => [`:e${i}`, e])),
          }),
        }),
      );
      items.push(...(page.Items ?? []));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
  } finally {
    client.destroy();
  }
  return byEntity(items);
}

/** The items at these keys (none twice), by entity: a poll that need not read the table. */
export async function readItems(dataDir: string, keys: readonly Item[]): Promise<Map<string, Item[]>> {
  const { client, tableName } = tableOf(dataDir);
  try {
    return byEntity(await batchGet(client, tableName, [...keys]));
  } finally {
    client.destroy();
  }
}

/** The sales and refunds still Pending, a line each. */
export const stillPending = (table: Map<string, Item[]>): string[] => [
  ...(table.get('transaction') ?? [])
    .filter((t) => t.status === 'Pending')
    .map((t) => `sale ${String(t.transactionId)} still Pending`),
  ...(table.get('refund') ?? [])
    .filter((r) => r.status === 'Pending')
    .map((r) => `refund ${String(r.refundId)} still Pending`),
];

/** The groups not processed yet, a line each. */
export const groupsNotProcessed = (table: Map<string, Item[]>): string[] =>
  (table.get('group') ?? []).filter((g) => g.status !== 'processed').map((g) => `group ${g.status}`);

const countBy = <T>(items: T[], key: (item: T) => string): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
};

/**
 * What is not yet so of the returned debit: its payment Returned R02 and its return moved into its
 * group's summary (returnCounted). Empty once it is (the test's settling waits for that too).
 */
export function returnNotApplied(table: Map<string, Item[]>, returned: ReturnedDebit): string[] {
  const payment = (table.get('payment') ?? []).find((p) => p.paymentId === returned.paymentId);
  const auth = payment?.authResponse as Item | undefined;
  if (auth?.status !== 'Returned') return [`returned debit ${String(auth?.status ?? 'not charged')}`];
  return payment!.returnCounted === auth.transactionId ? [] : ['return not counted in its group'];
}

/**
 * The returned debit's return applied exactly once across the kills: one sale, Returned R02, one
 * `payment.returned` event, and its group's summary counting one return (its only one).
 */
function judgeReturn(table: Map<string, Item[]>, returned: ReturnedDebit): string[] {
  const problems = returnNotApplied(table, returned);
  const sales = (table.get('transaction') ?? []).filter((t) => t.paymentId === returned.paymentId);
  if (sales.length !== 1 || sales[0]!.status !== 'Returned' || (sales[0]!.return as Item)?.code !== 'R02')
    problems.push(
      `returned debit: sales ${JSON.stringify(sales.map((t) => t.status))}, not one Returned R02`,
    );
  const events = (table.get('event') ?? []).filter(
    (e) => e.objectId === returned.paymentId && e.type === 'payment.returned',
  );
  if (events.length !== 1) problems.push(`returned debit: ${events.length} payment.returned events`);
  const group = (table.get('group') ?? []).find((g) => g.paymentGroupId === returned.paymentGroupId);
  const summary = group?.processingSummary as Item | undefined;
  if (summary?.returned !== 1 || summary.returnedCents !== 4250)
    problems.push(
      `returned debit: its group's summary counts ${String(summary?.returned)} returns (${String(summary?.returnedCents)} cents)`,
    );
  return problems;
}

/** The oracle's findings (empty when the money is safe) and a summary for the log. */
export function judge(
  table: Map<string, Item[]>,
  groups: CrashGroup[],
  observed: Observations,
  returned: ReturnedDebit,
): { problems: string[]; summary: Record<string, number> } {
  const problems: string[] = judgeReturn(table, returned);
  const of = (entity: string) => table.get(entity) ?? [];
  const sales = of('transaction');
  const byKey = new Map(sales.map((t) => [t.processorKey as string, t]));
  const byId = new Map(sales.map((t) => [t.transactionId as string, t]));

  // Charges: each ledger sale the sandbox approved and never reversed belongs to one scheduled
  // payment or one client intent (orderId); none may have two, none may lack a record.
  const charges = of('sandbox-ledger').filter(
    (l) => l.kind === 'SALE' && (l.result as Item).approved === true && l.reversed !== true,
  );
  const owners = charges.map((l) => {
    const sale = byKey.get(l.idempotencyKey as string);
    if (!sale) problems.push(`charge without a record: ledger key ${String(l.idempotencyKey)}`);
    return sale
      ? String(sale.paymentId ?? sale.orderId ?? sale.transactionId)
      : `key ${String(l.idempotencyKey)}`;
  });
  for (const [owner, n] of countBy(owners, (o) => o))
    if (n > 1) problems.push(`charged ${n} times at the sandbox: ${owner}`);
  for (const [paymentId, n] of countBy(
    sales.filter((t) => t.paymentId !== undefined),
    (t) => String(t.paymentId),
  ))
    if (n > 1) problems.push(`payment ${paymentId} has ${n} sales`);

  problems.push(...stillPending(table));

  // Groups: every one processed, every payment answered.
  const groupItems = new Map(of('group').map((g) => [g.paymentGroupId as string, g]));
  const payments = of('payment');
  for (const g of groups) {
    const status = groupItems.get(g.paymentGroupId)?.status as string | undefined;
    if (status !== 'processed') problems.push(`group ${g.paymentGroupId} is ${String(status)}`);
    const own = payments.filter((p) => p.paymentGroupId === g.paymentGroupId && p.deleted !== true);
    if (own.length !== g.paymentCount)
      problems.push(`group ${g.paymentGroupId} has ${own.length} payments, created with ${g.paymentCount}`);
    const unanswered = own.filter((p) => p.authResponse === undefined || p.authResponse === null);
    if (unanswered.length > 0)
      problems.push(`group ${g.paymentGroupId}: ${unanswered.length} payments without authResponse`);
  }
  for (const g of of('group').filter((x) => x.status === 'processing'))
    problems.push(`group ${String(g.paymentGroupId)} left processing`);

  // What the clients saw is what is recorded.
  for (const [transactionId, approvedCents] of observed.approved) {
    const sale = byId.get(transactionId);
    if (
      !sale ||
      !['Approved', 'Voided'].includes(sale.status as string) ||
      sale.approvedCents !== approvedCents
    )
      problems.push(
        `sale ${transactionId} seen Approved (${approvedCents}) is recorded ${JSON.stringify(sale?.status)}`,
      );
  }
  for (const transactionId of observed.voided)
    if (byId.get(transactionId)?.status !== 'Voided')
      problems.push(`sale ${transactionId} seen Voided is not`);
  const refunds = new Map(of('refund').map((r) => [r.refundId as string, r]));
  for (const [refundId] of observed.completedRefunds)
    if (refunds.get(refundId)?.status !== 'Completed')
      problems.push(`refund ${refundId} seen Completed is recorded ${String(refunds.get(refundId)?.status)}`);

  const summary = {
    ledgerCharges: charges.length,
    sales: sales.length,
    refunds: refunds.size,
    payments: payments.length,
    answered: payments.filter((p) => p.authResponse != null).length,
  };
  return { problems, summary };
}
