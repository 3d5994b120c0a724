/**
 * Least privilege per function, read from the code (issue 22): `function-access.json`, which
 * `npm run access` writes (scripts/function-access.ts), holds for every handler module the IAM
 * actions its code can reach (the DynamoDB actions of the commands it can send, a transaction's by
 * its items; Step Functions, SQS, SES and KMS likewise) and the optional settings it reads (the
 * state machine, queue or key it addresses). The bindings here grant exactly those: a function
 * that never deletes holds no DeleteItem, a read-only POST only reads, and only a function whose
 * code starts the processing state machine may.
 *
 * No function writes the merchant registry, a client's grants or their audit trail: only
 * `npm run admin` does, with the operator's credentials. Every function that holds a write action
 * on the table also holds an explicit Deny of the writes whose partition key (`dynamodb:LeadingKeys`)
 * starts with one of ADMIN_ONLY_KEY_PREFIXES (contract/table.ts), which no Allow can undo.
 */
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { ADMIN_ONLY_KEY_PREFIXES } from '../../contract/table';
import generated from './function-access.json';

/** What one function's code can do: IAM actions and the optional settings it reads. */
interface FunctionAccess {
  readonly actions: readonly string[];
  readonly settings: readonly string[];
}

const ACCESS: Readonly<Record<string, FunctionAccess>> = generated;

/** The access of a handler module's code; a handler the file does not know fails the synth. */
export function accessOf(handler: string): FunctionAccess {
  const access = ACCESS[handler];
  if (access === undefined)
    throw new Error(
      `lib/cdk/function-access.json has no entry for lambdas/${handler}.ts: run \`npm run access\` and commit the file`,
    );
  return access;
}

/** The actions of one service (`dynamodb`) a handler's code uses, with their prefix. */
export const actionsOf = (handler: string, service: string): string[] =>
  accessOf(handler).actions.filter((a) => a.startsWith(`${service}:`));

/** Whether a handler's code reads an optional setting (`stateMachineArn`, `webhookQueueUrl`, ...). */
export const readsSetting = (handler: string, setting: string): boolean =>
  accessOf(handler).settings.includes(setting);

/** DynamoDB actions that change items. */
export const TABLE_WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
] as const;

/** Actions that also read the table's indexes. */
const INDEX_ACTIONS = new Set(['dynamodb:Query', 'dynamodb:Scan']);

/**
 * Give a function the table: its name in `envName`, and the DynamoDB actions its code uses, no
 * more (queries on the indexes too); the writes of the admin-only partitions denied; and, where
 * the table has a customer-managed key, the key's use for reading (and writing).
 */
export function bindTable(fn: lambda.Function, table: ITable, handler: string, envName = 'TABLE_NAME'): void {
  fn.addEnvironment(envName, table.tableName);
  const actions = actionsOf(handler, 'dynamodb');
  if (actions.length === 0) return;
  const onItems = actions.filter((a) => !INDEX_ACTIONS.has(a));
  const onIndexes = actions.filter((a) => INDEX_ACTIONS.has(a));
  if (onItems.length > 0)
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: onItems, resources: [table.tableArn] }));
  if (onIndexes.length > 0)
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: onIndexes,
        resources: [table.tableArn, `${table.tableArn}/index/*`],
      }),
    );
  const writes = actions.some((a) => (TABLE_WRITE_ACTIONS as readonly string[]).includes(a));
  if (writes) fn.addToRolePolicy(adminOnlyKeysDenied(table));
  if (table.encryptionKey !== undefined) grantKeyUse(fn, table.encryptionKey, writes);
}

/**
 * A data key's use (the table's or the queues', lib/cdk/keys.ts), by what the function does with
 * the data: reading (a read, a stream record, a received message) needs kms:Decrypt; writing (an
 * item, a sent message) also kms:GenerateDataKey. Nothing else: no Encrypt, no ReEncrypt, no
 * wildcard. test/infra/kms.test.ts derives the same from each role's table and queue actions.
 */
function grantKeyUse(fn: lambda.IFunction, key: kms.IKey, writes: boolean): void {
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      actions: writes ? [...KEY_WRITE_ACTIONS] : [...KEY_READ_ACTIONS],
      resources: [key.keyArn],
    }),
  );
}

/** What reading data encrypted under a key needs, and what writing it needs. */
const KEY_READ_ACTIONS = ['kms:Decrypt'] as const;
const KEY_WRITE_ACTIONS = ['kms:Decrypt', 'kms:GenerateDataKey'] as const;

/**
 * Let a function send to a queue: SendMessage and the queue's look-ups (what CDK's
 * grantSendMessages grants), and, for a queue under a customer-managed key, that key's use for
 * writing (CDK's grant would add Encrypt and ReEncrypt*, which sending never calls).
 */
export function grantSendMessages(queue: sqs.IQueue, fn: lambda.IFunction): void {
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
      resources: [queue.queueArn],
    }),
  );
  if (queue.encryptionMasterKey !== undefined) grantKeyUse(fn, queue.encryptionMasterKey, true);
}

/**
 * Let a function read the table's stream (as its event source): ListStreams (no resource), the
 * stream's reads, and, under a customer-managed key, its use for reading.
 */
export function grantStreamRead(fn: lambda.IFunction, table: ITable): void {
  if (table.tableStreamArn === undefined) throw new Error('the table has no stream');
  fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['dynamodb:ListStreams'], resources: ['*'] }));
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
      resources: [table.tableStreamArn],
    }),
  );
  if (table.encryptionKey !== undefined) grantKeyUse(fn, table.encryptionKey, false);
}

/**
 * An event source's failure destination on a queue (a stream's records the function gave up on),
 * granted like any sender (grantSendMessages) rather than by CDK's SqsDlq.
 */
export const queueDestination = (queue: sqs.IQueue): lambda.IEventSourceDlq => ({
  bind: (_target, fn) => {
    grantSendMessages(queue, fn);
    return { destination: queue.queueArn };
  },
});

/** The Deny of every write of an item whose partition key is admin-only (registry, grants, audit). */
const adminOnlyKeysDenied = (table: ITable): iam.PolicyStatement =>
  new iam.PolicyStatement({
    sid: 'NoWritesOfRegistryGrantsOrAudit',
    effect: iam.Effect.DENY,
    actions: [...TABLE_WRITE_ACTIONS],
    resources: [table.tableArn],
    conditions: {
      'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': ADMIN_ONLY_KEY_PREFIXES.map((p) => `${p}*`) },
    },
  });

/**
 * Give a function a state machine when its code reads `setting` (the machine's ARN variable,
 * lambdas/shared/config.ts): the ARN in `envName`, and of StartExecution and DescribeExecution
 * (on the machine's executions) those its code calls. Answers whether it bound anything.
 */
export function bindStateMachineIfUsed(
  fn: lambda.Function,
  handler: string,
  setting: string,
  machine: sfn.IStateMachine,
  envName: string,
): boolean {
  if (!readsSetting(handler, setting)) return false;
  fn.addEnvironment(envName, machine.stateMachineArn);
  const actions = actionsOf(handler, 'states');
  if (actions.includes('states:StartExecution')) machine.grantStartExecution(fn);
  if (actions.includes('states:DescribeExecution')) machine.grantExecution(fn, 'states:DescribeExecution');
  return true;
}
