/**
 * Issue 22, items 1 and 5: least privilege per function, on both stages. What each function's code
 * can do is read from the code (scripts/function-access.ts, into lib/cdk/function-access.json);
 * every function's role must hold exactly that: no action its code does not use (a function that
 * never deletes holds no DeleteItem; the read-only POST only reads; settle-now may not start
 * executions) and every action it uses. No function may write the merchant registry, a grant or
 * the audit trail: an IAM simulation of each synthesized policy proves it.
 */
import { readFileSync } from 'node:fs';
import type { Template } from 'aws-cdk-lib/assertions';
import { ADMIN_ONLY_KEY_PREFIXES } from '#contract/table';
import type { Stage } from '#contract/stage';
import { routeList } from '#contract/routes/index';
import { accessOf, readsSetting } from '#lib/cdk/access';
import { ACCESS_FILE, handlerModules, type FunctionAccess } from '../../scripts/function-access';
import { evaluate } from '#support/cdk/iam-eval';
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
  type Statement,
} from '#support/cdk/synth';

/** What an SQS event source needs of its queue, and a DynamoDB event source of the stream. */
const SQS_CONSUME = [
  'sqs:ReceiveMessage',
  'sqs:ChangeMessageVisibility',
  'sqs:GetQueueUrl',
  'sqs:DeleteMessage',
  'sqs:GetQueueAttributes',
];
const STREAM_READ = [
  'dynamodb:DescribeStream',
  'dynamodb:GetRecords',
  'dynamodb:GetShardIterator',
  'dynamodb:ListStreams',
];
/** What CDK's grantSendMessages adds beside SendMessage (the SDK may look the queue up). */
const SEND_COMPANIONS = ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl'];

/**
 * The actions a role may hold because its code uses them, on a stage whose processor is the
 * sandbox (the tier's templates): the read of Stripe's secret key is the Stripe adapter's, which
 * such a stage does not run, so it holds it only when its code reads another secret (the
 * idempotency hash key). test/infra/stripe-stage.test.ts checks the read on a Stripe stage.
 */
const expectedActions = (handler: string): string[] =>
  accessOf(handler)
    .actions.filter(
      (a) =>
        a !== 'secretsmanager:GetSecretValue' ||
        !readsSetting(handler, 'stripeSecretKey') ||
        readsSetting(handler, 'idempotencyHashKey'),
    )
    .sort();

/**
 * What each function's code does: lib/cdk/function-access.json, which `npm run checks` (`npm run
 * access -- --check`, before the test tiers in `npm test`) proves is the analysis of today's code.
 * Not analysed again here: the analysis builds a TypeScript program of the repository, the
 * checks' own, and was half of this file's CPU.
 */
const analysis = JSON.parse(readFileSync(ACCESS_FILE, 'utf8')) as Record<string, FunctionAccess>;

test('lib/cdk/function-access.json names every handler module of lambdas/, and only those', () => {
  expect(Object.keys(analysis)).toEqual(handlerModules());
});

test('the analysis reads a read-only POST as read-only and tells settle-now from the triggers', () => {
  expect(routeList.find((r) => r.handler === 'payors/bulk-search-payors')?.method).toBe('POST');
  expect(analysis['payors/bulk-search-payors']?.actions).toEqual(['dynamodb:GetItem', 'dynamodb:Query']);
  expect(analysis['triggers/settle-now']?.actions.filter((a) => a.startsWith('states:'))).toEqual([]);
  expect(analysis['triggers/process-group']?.actions).toContain('states:StartExecution');
  // Its route takes an Idempotency-Key: it reads the key's hash key too.
  expect(analysis['triggers/process-group']?.settings).toEqual(['idempotencyHashKey', 'stateMachineArn']);
});

test('defect "GET handlers held write actions through the idempotency store": its writes are for routes that declare idempotency', () => {
  // Every merchant route's builder (core/merchants.ts) is handed the idempotency store's `idempotent`,
  // which it runs only for a route that declares `idempotency` (shared/http.ts): the analysis
  // credited every GET with the records' writes.
  const writes = [
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:BatchWriteItem',
    'dynamodb:TransactWriteItems',
  ];
  const writesOf = (handler: string) => [
    handler,
    (analysis[handler]?.actions ?? []).filter((a) => writes.includes(a)),
  ];
  const readOnly = [
    ...new Set(routeList.filter((r) => r.method === 'GET' || r.idempotency === 'none').map((r) => r.handler)),
  ];
  expect(readOnly.length).toBeGreaterThan(15);
  expect(readOnly.map(writesOf)).toEqual(readOnly.map((h) => [h, []]));
  // A route that declares it still holds the records' writes (claim, finish, free a refused key).
  const keyed = [
    ...new Set(
      routeList.filter((r) => r.idempotency !== undefined && r.idempotency !== 'none').map((r) => r.handler),
    ),
  ];
  expect(keyed.length).toBeGreaterThan(10);
  for (const handler of keyed)
    expect([handler, analysis[handler]?.actions]).toEqual([
      handler,
      expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem']),
    ]);
});

describe.each(['dev', 'prod'] as Stage[])('ScheduledPayments-%s', (stage) => {
  let template: Template;
  let functions: Record<string, Resource>;
  let byName: Map<string, string>;
  let tableArn: string;
  beforeAll(() => {
    template = stageTemplateOf(stage);
    functions = resourcesOf(template, 'AWS::Lambda::Function');
    byName = new Map(handlerModules().map((h) => [functionName(stage, h), h]));
    const [tableId] = Object.keys(resourcesOf(template, 'AWS::DynamoDB::Table'));
    tableArn = `\${${tableId}.Arn}`;
  }, SYNTH_TIMEOUT_MS);

  const statementsOf = (fn: Resource): Statement[] => roleStatements(template, roleIdOf(fn));
  const isInline = (fn: Resource): boolean =>
    (props(fn).Code as { ZipFile?: string } | undefined)?.ZipFile !== undefined;

  /** Each function (by name) with its handler module and role statements. */
  const everyFunction = () =>
    Object.entries(functions).map(([id, fn]) => ({
      id,
      name: String(props(fn).FunctionName),
      // Prod's refusal of a trigger route has the handler's name but none of its code.
      handler: isInline(fn) ? undefined : byName.get(String(props(fn).FunctionName)),
      inline: isInline(fn),
      statements: statementsOf(fn),
    }));

  /** The queues an event source of the function reads, and where it sends its failures. */
  const eventSources = (functionId: string) =>
    Object.values(resourcesOf(template, 'AWS::Lambda::EventSourceMapping'))
      .map(props)
      .filter((p) => flatten(p.FunctionName).includes(functionId));

  /**
   * The Allow actions of a role that its code sends, leaving out what runs around the code: X-Ray,
   * an event source's reads (and its failure destination), and KMS on the data keys (the table's,
   * the queues', checked in kms.test.ts). The webhook secrets' key stays in: its use is the code's.
   */
  const codeActions = (fn: { id: string; statements: Statement[] }): string[] => {
    const sources = eventSources(fn.id);
    const infra = new Set<string>();
    if (
      sources.some((s) => s.EventSourceArn !== undefined && flatten(s.EventSourceArn).includes('StreamArn'))
    )
      STREAM_READ.forEach((a) => infra.add(a));
    if (sources.some((s) => flatten(s.EventSourceArn).includes('Queue')))
      SQS_CONSUME.forEach((a) => infra.add(a));
    const failureQueues = sources.flatMap((s) => {
      const onFailure = (s.DestinationConfig as { OnFailure?: { Destination: unknown } } | undefined)
        ?.OnFailure;
      return onFailure === undefined ? [] : [flatten(onFailure.Destination)];
    });
    const held = new Set(
      fn.statements
        .filter((s) => s.Effect === 'Allow')
        .flatMap((s) => {
          const resources = resourcesOfStatement(s);
          const toFailureQueue = resources.every((r) => failureQueues.includes(r));
          return actionsOf(s).filter((a) => {
            if (a.startsWith('xray:') || infra.has(a)) return false;
            if (toFailureQueue && a.startsWith('sqs:')) return false;
            if (a.startsWith('kms:') && !resources.some((r) => r.includes('SecretsKey'))) return false;
            return true;
          });
        }),
    );
    // A send grant comes with the queue's look-ups (CDK's grantSendMessages).
    if (held.has('sqs:SendMessage')) SEND_COMPANIONS.forEach((a) => held.delete(a));
    return [...held].sort();
  };

  test('every function is a handler module of lambdas/ or prod’s inline refusal of a trigger route', () => {
    const unknown = everyFunction().filter((f) => f.handler === undefined && !f.inline);
    expect(unknown.map((f) => f.name)).toEqual([]);
    const inline = everyFunction().filter((f) => f.inline);
    expect(inline.length).toBe(
      stage === 'prod' ? new Set(routeList.filter((r) => r.nonProdOnly).map((r) => r.handler)).size : 0,
    );
  });

  test('each function holds exactly the actions its code uses: none it does not use, none missing', () => {
    const found = everyFunction()
      .filter((f) => f.handler !== undefined)
      .map((f) => ({ function: f.handler, actions: codeActions(f) }))
      .sort((a, b) => String(a.function).localeCompare(String(b.function)));
    expect(found).toEqual(
      found.map((f) => ({ function: f.function, actions: expectedActions(f.function!) })),
    );
    // The list, as the test sees it (docs/operating.md "IAM by function" shows the same).
    expect(found.length).toBeGreaterThan(40);
  });

  test('prod’s inline refusals hold nothing but tracing', () => {
    for (const f of everyFunction().filter((x) => x.inline)) expect(codeActions(f)).toEqual([]);
  });

  test('a function that never deletes holds no DeleteItem; GETs and the bulk payor search only read', () => {
    const reads = new Set(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchGetItem', 'dynamodb:Scan']);
    for (const f of everyFunction().filter((x) => x.handler !== undefined)) {
      const held = codeActions(f);
      if (!accessOf(f.handler!).actions.includes('dynamodb:DeleteItem'))
        expect([f.handler, held.includes('dynamodb:DeleteItem')]).toEqual([f.handler, false]);
    }
    const readOnly = [
      ...new Set(routeList.filter((r) => r.method === 'GET').map((r) => r.handler)),
      'payors/bulk-search-payors',
    ];
    for (const handler of readOnly) {
      const f = everyFunction().find((x) => x.handler === handler)!;
      expect([handler, codeActions(f).filter((a) => a.startsWith('dynamodb:') && !reads.has(a))]).toEqual([
        handler,
        [],
      ]);
    }
  });

  test('item 5: only functions whose code starts executions hold StartExecution (settle-now does not)', () => {
    const starters = everyFunction()
      .filter((f) =>
        f.statements.some((s) => s.Effect === 'Allow' && actionsOf(s).includes('states:StartExecution')),
      )
      .map((f) => f.handler)
      .sort();
    const expected = handlerModules()
      .filter((h) => accessOf(h).actions.includes('states:StartExecution'))
      .filter((h) => everyFunction().some((f) => f.handler === h))
      .sort();
    expect(starters).toEqual(expected);
    expect(starters).not.toContain('triggers/settle-now');
    if (stage === 'dev') expect(starters).toEqual(expect.arrayContaining(['triggers/process-group']));
    else expect(starters).not.toContain('triggers/process-group');
  });

  describe('no function can write the merchant registry, a grant or the audit trail', () => {
    const writes = [
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'dynamodb:BatchWriteItem',
    ];

    test('a payments function may write its payment but not a grant (IAM simulation of its policy)', () => {
      const f = everyFunction().find((x) => x.handler === 'payments/add-payment')!;
      const request = (action: string, key: string) => ({
        action,
        resource: tableArn,
        context: { 'dynamodb:LeadingKeys': [key] },
      });
      expect(evaluate(f.statements, request('dynamodb:UpdateItem', 'GROUP#g1'))).toBe('allowed');
      expect(evaluate(f.statements, request('dynamodb:PutItem', 'GROUP#g1'))).toBe('allowed');
      expect(evaluate(f.statements, request('dynamodb:PutItem', 'CLIENT#attacker'))).toBe(
        'explicitly denied',
      );
      expect(evaluate(f.statements, request('dynamodb:UpdateItem', 'CLIENT#attacker'))).toBe(
        'explicitly denied',
      );
      expect(evaluate(f.statements, request('dynamodb:PutItem', 'MID#32350000001'))).toBe(
        'explicitly denied',
      );
      // A function that never deletes (a group's update) has no grant to delete with, whatever the key.
      const updater = everyFunction().find((x) => x.handler === 'groups/update-group')!;
      expect(accessOf('groups/update-group').actions).not.toContain('dynamodb:DeleteItem');
      expect(evaluate(updater.statements, request('dynamodb:DeleteItem', 'GROUP#g1'))).toBe(
        'implicitly denied',
      );
      // Reading a grant (authorization) stays allowed.
      expect(evaluate(f.statements, request('dynamodb:GetItem', 'CLIENT#c1'))).toBe('allowed');
    });

    test('every function: each write of an admin-only partition is denied, whatever it holds', () => {
      const allowedSomewhere: string[] = [];
      for (const f of everyFunction()) {
        for (const action of writes)
          for (const prefix of ADMIN_ONLY_KEY_PREFIXES) {
            const decision = evaluate(f.statements, {
              action,
              resource: tableArn,
              context: { 'dynamodb:LeadingKeys': [`${prefix}x`] },
            });
            if (decision === 'allowed') allowedSomewhere.push(`${f.name} ${action} ${prefix}`);
          }
      }
      expect(allowedSomewhere).toEqual([]);
    });

    test('the Deny names the admin-only prefixes by dynamodb:LeadingKeys on every writer', () => {
      for (const f of everyFunction()) {
        const holdsWrite = f.statements.some(
          (s) => s.Effect === 'Allow' && actionsOf(s).some((a) => writes.includes(a)),
        );
        if (!holdsWrite) continue;
        const deny = f.statements.find((s) => s.Effect === 'Deny');
        expect([f.name, deny?.Condition]).toEqual([
          f.name,
          {
            'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': ADMIN_ONLY_KEY_PREFIXES.map((p) => `${p}*`) },
          },
        ]);
        expect(actionsOf(deny!).sort()).toEqual([...writes].sort());
      }
    });
  });
});
