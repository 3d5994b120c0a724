/**
 * Issue 22, item 3: keys at rest an assessor accepts. In prod the table, every queue (dead-letter
 * queues included) and every log group are encrypted with a customer-managed key that rotates, one
 * key per kind of data (lib/cdk/keys.ts); the logs key serves only the Region's CloudWatch Logs,
 * for this stage's log groups. Dev keeps AWS's own encryption (docs/decisions.md "Keys at rest").
 *
 * Least privilege on the keys: each function holds, on the table's and the queues' keys, exactly
 * what its use of that data needs, derived here from its role's table and queue access and its
 * event sources: kms:Decrypt to read (an item, a stream record, a received message), plus
 * kms:GenerateDataKey to write (an item, a sent message); a key action it does not need fails.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import type { Stage } from '#contract/stage';
import { tableName } from '#contract/table';
import { accessOf, TABLE_WRITE_ACTIONS } from '#lib/cdk/access';
import { keyAlias, type KeyPurpose } from '#lib/cdk/keys';
import { handlerModules } from '../../scripts/function-access';
import {
  actionsOf,
  flatten,
  functionName,
  props,
  resourcesOf,
  resourcesOfStatement,
  roleIdOf,
  roleStatements,
  stageTemplateOf,
  SYNTH_TIMEOUT_MS,
  type Resource,
} from '#support/cdk/synth';

const DECRYPT = ['kms:Decrypt'];
const DECRYPT_AND_GENERATE = ['kms:Decrypt', 'kms:GenerateDataKey'];

/** The logical id of the key behind an alias, or undefined. */
function keyIdOf(template: Template, alias: string): string | undefined {
  const found = Object.values(resourcesOf(template, 'AWS::KMS::Alias')).find(
    (a) => props(a).AliasName === alias,
  );
  return found === undefined
    ? undefined
    : (props(found).TargetKeyId as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0];
}

describe.each(['dev', 'prod'] as Stage[])('ScheduledPayments-%s', (stage) => {
  let template: Template;
  let keyIds: Record<KeyPurpose, string | undefined>;
  beforeAll(() => {
    template = stageTemplateOf(stage);
    keyIds = {
      table: keyIdOf(template, keyAlias(stage, 'table')),
      queues: keyIdOf(template, keyAlias(stage, 'queues')),
      logs: keyIdOf(template, keyAlias(stage, 'logs')),
    };
  }, SYNTH_TIMEOUT_MS);

  const keyArn = (purpose: KeyPurpose) => `\${${keyIds[purpose]}.Arn}`;

  if (stage === 'dev') {
    test('dev keeps AWS’s own encryption: no data keys, SQS-managed queues, the table’s AWS owned key', () => {
      expect(keyIds).toEqual({ table: undefined, queues: undefined, logs: undefined });
      // The one customer-managed key of dev seals the webhook secrets (lib/cdk/webhooks.ts).
      expect(Object.keys(resourcesOf(template, 'AWS::KMS::Key'))).toEqual([
        expect.stringMatching(/^WebhooksSecretsKey/),
      ]);
      for (const queue of Object.values(resourcesOf(template, 'AWS::SQS::Queue')))
        expect(props(queue)).toMatchObject({ SqsManagedSseEnabled: true });
      const [table] = Object.values(resourcesOf(template, 'AWS::DynamoDB::Table'));
      expect(props(table!).SSESpecification).toBeUndefined();
      for (const group of Object.values(resourcesOf(template, 'AWS::Logs::LogGroup')))
        expect(props(group).KmsKeyId).toBeUndefined();
    });
    return;
  }

  test('three customer-managed keys, each rotating and kept when the stack goes', () => {
    for (const purpose of ['table', 'queues', 'logs'] as const) {
      const id = keyIds[purpose];
      expect([purpose, id]).toEqual([purpose, expect.any(String)]);
      const key = resourcesOf(template, 'AWS::KMS::Key')[id!]!;
      expect(props(key)).toMatchObject({ EnableKeyRotation: true, PendingWindowInDays: 30 });
      expect(key.DeletionPolicy).toBe('Retain');
    }
  });

  test('the table is encrypted with the table key', () => {
    const tables = Object.values(resourcesOf(template, 'AWS::DynamoDB::Table'));
    expect(tables.map((t) => props(t).TableName)).toEqual([tableName(stage)]);
    const sse = props(tables[0]!).SSESpecification as Record<string, unknown>;
    expect({ ...sse, KMSMasterKeyId: flatten(sse.KMSMasterKeyId) }).toEqual({
      SSEEnabled: true,
      SSEType: 'KMS',
      KMSMasterKeyId: keyArn('table'),
    });
  });

  test('every queue, the dead-letter queues included, is encrypted with the queues key', () => {
    const queues = Object.values(resourcesOf(template, 'AWS::SQS::Queue'));
    expect(queues.map((q) => props(q).QueueName).sort()).toEqual(
      ['notifications', 'notifier-failures', 'webhook-failures', 'webhooks', 'webhooks-slow'].map(
        (q) => `scheduled-payments-${stage}-${q}`,
      ),
    );
    for (const queue of queues)
      expect([props(queue).QueueName, flatten(props(queue).KmsMasterKeyId)]).toEqual([
        props(queue).QueueName,
        keyArn('queues'),
      ]);
  });

  test('every log group is encrypted with the logs key, which only CloudWatch Logs of this stage may use', () => {
    const groups = Object.entries(resourcesOf(template, 'AWS::Logs::LogGroup'));
    expect(groups.length).toBeGreaterThan(60);
    const unencrypted = groups.filter(([, g]) => flatten(props(g).KmsKeyId) !== keyArn('logs'));
    expect(unencrypted.map(([id]) => id)).toEqual([]);

    const policy = props(resourcesOf(template, 'AWS::KMS::Key')[keyIds.logs!]!).KeyPolicy as {
      Statement: Record<string, unknown>[];
    };
    const forLogs = policy.Statement.filter((s) => s.Sid === 'CloudWatchLogsOfThisStage');
    expect(forLogs).toHaveLength(1);
    const statement = forLogs[0]!;
    expect(flatten((statement.Principal as { Service: unknown }).Service)).toBe(
      'logs.${AWS::Region}.amazonaws.com',
    );
    const condition = (statement.Condition as { ArnLike: Record<string, unknown[]> }).ArnLike[
      'kms:EncryptionContext:aws:logs:arn'
    ]!.map(flatten);
    const arn = 'arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:';
    expect(condition).toEqual([
      `${arn}/aws/lambda/scheduled-payments-${stage}-*`,
      `${arn}/aws/vendedlogs/states/scheduled-payments-${stage}-*`,
      `${arn}\${AWS::StackName}-*`,
    ]);
    // Each log group's name falls under one of the patterns (the access logs' is the stack's).
    for (const [id, group] of groups) {
      const name = props(group).LogGroupName;
      if (name === undefined) expect(id).toMatch(/^ApiAccessLogs/);
      else
        expect([id, String(name)]).toEqual([
          id,
          expect.stringMatching(new RegExp(`^/aws/(lambda|vendedlogs/states)/scheduled-payments-${stage}-`)),
        ]);
    }
  });

  describe('each function holds on the data keys exactly what its use of the data needs', () => {
    const functions = () => {
      const byName = new Map(handlerModules().map((h) => [functionName(stage, h), h]));
      const sources = Object.values(resourcesOf(template, 'AWS::Lambda::EventSourceMapping')).map(props);
      return Object.entries(resourcesOf(template, 'AWS::Lambda::Function')).map(
        ([id, fn]: [string, Resource]) => ({
          id,
          handler: byName.get(String(props(fn).FunctionName)) ?? String(props(fn).FunctionName),
          statements: roleStatements(template, roleIdOf(fn)).filter((s) => s.Effect === 'Allow'),
          sources: sources.filter((s) => flatten(s.FunctionName).includes(id)),
        }),
      );
    };

    /** What the function needs of a data key, from its role's data actions and event sources. */
    const needed = (f: ReturnType<typeof functions>[number]) => {
      const need: Record<'table' | 'queues', Set<string>> = { table: new Set(), queues: new Set() };
      const add = (purpose: 'table' | 'queues', actions: string[]) =>
        actions.forEach((a) => need[purpose].add(a));
      for (const s of f.statements) {
        const actions = actionsOf(s);
        const onTable = resourcesOfStatement(s).some((r) => r.includes('DataTable'));
        if (onTable && actions.some((a) => a.startsWith('dynamodb:')))
          add(
            'table',
            actions.some((a) => (TABLE_WRITE_ACTIONS as readonly string[]).includes(a))
              ? DECRYPT_AND_GENERATE
              : DECRYPT,
          );
        if (actions.includes('sqs:SendMessage')) add('queues', DECRYPT_AND_GENERATE);
        if (actions.includes('sqs:ReceiveMessage')) add('queues', DECRYPT);
      }
      for (const source of f.sources)
        if (flatten(source.EventSourceArn).includes('StreamArn')) add('table', DECRYPT);
      return { table: [...need.table].sort(), queues: [...need.queues].sort() };
    };

    /** What the function's role holds on each data key. */
    const held = (f: ReturnType<typeof functions>[number]) => {
      const on = (purpose: KeyPurpose) =>
        [
          ...new Set(
            f.statements
              .filter((s) => resourcesOfStatement(s).includes(keyArn(purpose)))
              .flatMap((s) => actionsOf(s)),
          ),
        ].sort();
      return { table: on('table'), queues: on('queues') };
    };

    test('table key: Decrypt to read, GenerateDataKey too to write; queues key: the same for receive and send', () => {
      const all = functions();
      expect(all.length).toBeGreaterThan(60);
      expect(all.map((f) => ({ function: f.handler, ...held(f) }))).toEqual(
        all.map((f) => ({ function: f.handler, ...needed(f) })),
      );
    });

    test('no function holds the logs key, a key wildcard, or a key action other than Decrypt and GenerateDataKey', () => {
      for (const f of functions()) {
        const kmsStatements = f.statements.filter((s) => actionsOf(s).some((a) => a.startsWith('kms:')));
        for (const s of kmsStatements) {
          expect([f.handler, resourcesOfStatement(s).includes(keyArn('logs'))]).toEqual([f.handler, false]);
          expect([f.handler, resourcesOfStatement(s).some((r) => r === '*')]).toEqual([f.handler, false]);
          const onDataKey = resourcesOfStatement(s).some(
            (r) => r === keyArn('table') || r === keyArn('queues'),
          );
          if (onDataKey)
            expect([f.handler, actionsOf(s).filter((a) => !DECRYPT_AND_GENERATE.includes(a))]).toEqual([
              f.handler,
              [],
            ]);
        }
      }
    });

    test('examples: a read-only GET decrypts only; a payment’s writer also generates; the notifier uses both keys', () => {
      const byHandler = new Map(functions().map((f) => [f.handler, f]));
      const get = byHandler.get('groups/get-group')!;
      expect(accessOf('groups/get-group').actions.every((a) => !a.includes('Put'))).toBe(true);
      expect(held(get)).toEqual({ table: DECRYPT, queues: [] });
      expect(held(byHandler.get('payments/add-payment')!)).toEqual({
        table: DECRYPT_AND_GENERATE,
        queues: [],
      });
      expect(held(byHandler.get('notifications/send-notifications')!)).toEqual({
        table: DECRYPT_AND_GENERATE,
        queues: DECRYPT_AND_GENERATE,
      });
      // The stream forwarder reads the stream and sends messages: it holds no table write.
      expect(held(byHandler.get('notifications/enqueue-outbox')!)).toEqual({
        table: DECRYPT,
        queues: DECRYPT_AND_GENERATE,
      });
    });
  });
});
