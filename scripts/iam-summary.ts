/**
 * The IAM of each function, as the synthesized templates grant it: a summary in
 * README.md and the full table, function by function, in docs/operating.md ("IAM by function"),
 * each between its markers. Both are generated from the templates of both stages, never written by
 * hand; test/infra/iam-summary.test.ts fails when either is stale.
 *
 *   npm run iam-summary             rewrites both
 *   npm run iam-summary -- --check  fails when either is not what the templates grant
 *
 * It reads a stage as `cdk synth` builds it: the stage stack's and its nested stacks' resources
 * together (a function, its role and its policy are always in one stack; the infra test feeds it
 * the tier's merged templates).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Stage } from '../contract/stage';

const ROOT = join(__dirname, '..');
export const SUMMARY_FILES = {
  readme: join(ROOT, 'README.md'),
  operating: join(ROOT, 'docs', 'operating.md'),
};
const START = '<!-- iam-by-function:start (npm run iam-summary writes this) -->';
const END = '<!-- iam-by-function:end -->';

type Json = { Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }> };
type Statement = { Effect: string; Action: string | string[]; Resource: unknown };

/** Whether a statement names only prod's table and queues keys (lib/cdk/keys.ts). */
const onDataKeys = (s: Statement): boolean =>
  // The key's ARN in its stack, or the parameter that hands it to a nested stack.
  [s.Resource].flat().every((r) => /Keys(Table|Queues)Key[0-9A-F]{8}/.test(JSON.stringify(r)));

/**
 * Each function's Allow actions (X-Ray left out: every function traces), by its physical name:
 * all of them, and those on anything but prod's data keys.
 */
export function functionActions(template: Json): Map<string, { all: string[]; beyondDataKeys: string[] }> {
  const resources = Object.entries(template.Resources);
  const policies = resources
    .filter(([, r]) => r.Type === 'AWS::IAM::Policy')
    .map(([, r]) => r.Properties ?? {});
  const found = new Map<string, { all: string[]; beyondDataKeys: string[] }>();
  const actionsOf = (statements: Statement[]) =>
    [...new Set(statements.flatMap((s) => [s.Action].flat()).filter((a) => !a.startsWith('xray:')))].sort();
  for (const [, fn] of resources.filter(([, r]) => r.Type === 'AWS::Lambda::Function')) {
    const p = fn.Properties ?? {};
    const roleId = (p.Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0];
    const statements = policies
      .filter((policy) => (policy.Roles as { Ref?: string }[]).some((r) => r.Ref === roleId))
      .flatMap((policy) => (policy.PolicyDocument as { Statement: Statement[] }).Statement)
      .filter((s) => s.Effect === 'Allow');
    found.set(String(p.FunctionName), {
      all: actionsOf(statements),
      beyondDataKeys: actionsOf(statements.filter((s) => !onDataKeys(s))),
    });
  }
  return new Map([...found].sort(([a], [b]) => a.localeCompare(b)));
}

/** `dynamodb:GetItem, dynamodb:Query, kms:Decrypt` → `dynamodb: GetItem, Query · kms: Decrypt`. */
const byService = (actions: readonly string[]): string => {
  if (actions.length === 0) return 'nothing (logs only)';
  const services = new Map<string, string[]>();
  for (const a of actions) {
    const [service, name] = a.split(':') as [string, string];
    services.set(service, [...(services.get(service) ?? []), name]);
  }
  return [...services].map(([s, names]) => `${s}: ${names.join(', ')}`).join(' · ');
};

const WRITES = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

/** The summary (README) and the full table (docs/operating.md) of both stages' templates. */
export function renderSummaries(templates: Record<Stage, Json>): { readme: string; operating: string } {
  const prod = functionActions(templates.prod);
  const dev = functionActions(templates.dev);
  const short = (name: string) => name.replace(/^scheduled-payments-(dev|prod)-/, '');
  const count = (test: (actions: string[]) => boolean) =>
    [...prod.values()].filter((f) => test(f.all)).length;
  const has = (prefix: string) => (actions: string[]) => actions.some((a) => a.startsWith(prefix));
  const rows: [string, number][] = [
    ['functions', prod.size],
    ['read the table only', count((a) => has('dynamodb:')(a) && !a.some((x) => WRITES.includes(x)))],
    [
      'write the table (never the registry, grants or audit: an IAM Deny)',
      count((a) => a.some((x) => WRITES.includes(x))),
    ],
    ['of which may delete items', count((a) => a.includes('dynamodb:DeleteItem'))],
    ['start state machine executions', count((a) => a.includes('states:StartExecution'))],
    ['send to a queue', count((a) => a.includes('sqs:SendMessage'))],
    ['send e-mail (as the sender only)', count(has('ses:'))],
    ['use the webhook secrets key (Encrypt or Decrypt)', count((a) => a.includes('kms:Encrypt'))],
    [
      'use the table or queues key (kms:Decrypt, kms:GenerateDataKey)',
      [...prod.values()].filter((f) => f.all.length > f.beyondDataKeys.length).length,
    ],
    ['hold nothing but their logs', count((a) => a.length === 0)],
  ];
  const readme = [
    '| prod functions that ...                                         | count |',
    '| --------------------------------------------------------------- | ----- |',
    ...rows.map(([what, n]) => `| ${what} | ${n} |`),
  ].join('\n');
  const table = [...prod].map(([name, actions]) => {
    const inDev = dev.get(name.replace('-prod-', '-dev-'));
    // Dev has no data keys (lib/cdk/keys.ts): only a difference beyond them is shown.
    const same =
      actions.all.length === actions.beyondDataKeys.length ? 'the same' : 'the same without the data keys';
    const differs =
      inDev === undefined
        ? 'absent'
        : byService(inDev.all) === byService(actions.beyondDataKeys)
          ? same
          : byService(inDev.all);
    return `| \`${short(name)}\` | ${byService(actions.all)} | ${differs} |`;
  });
  const operating = ['| function | prod | dev |', '| -------- | ---- | --- |', ...table].join('\n');
  return { readme, operating };
}

/** The text between a file's markers. */
export function between(text: string, file: string): string {
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${file} has no ${START} … ${END} markers`);
  return text.slice(start + START.length, end).trim();
}

/** A Markdown table as cells, whatever its padding (Prettier's alignment aside). */
export const tableCells = (markdown: string): string[][] =>
  markdown
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim().replace(/^-+$/, '-')),
    );

/** A file's text with `body` between its markers, as Prettier writes it. */
export async function withSummary(file: string, text: string, body: string): Promise<string> {
  between(text, file);
  const next = `${text.slice(0, text.indexOf(START) + START.length)}\n\n${body}\n\n${text.slice(text.indexOf(END))}`;
  const { format } = await import('prettier');
  return format(next, { filepath: file });
}

/** The resources of a stage's stacks, synthesized as bin/app.ts does (prod with a sample account). */
async function stageResources(stage: Stage): Promise<Json> {
  const { App, NestedStack } = await import('aws-cdk-lib');
  const { Template } = await import('aws-cdk-lib/assertions');
  const { addServiceStacks } = await import('../lib/cdk/app');
  const { default: cdkJson } = await import('../cdk.json');
  const context = {
    ...cdkJson.context,
    // No asset bundling: the templates are what is read.
    'aws:cdk:bundling-stacks': [],
    stage,
    ...(stage === 'prod' && {
      prodAccount: '222222222222',
      region: 'eu-west-1',
      senderAddress: 'payments@payments.example.org',
      prodProcessor: 'sandbox',
    }),
  };
  const [stack] = addServiceStacks(new App({ context }));
  if (stack === undefined) throw new Error(`no stack for stage ${stage}`);
  const stacks = [stack, ...stack.node.findAll().filter((c) => c instanceof NestedStack)];
  const resources = stacks.map((s) => (Template.fromStack(s as typeof stack).toJSON() as Json).Resources);
  return { Resources: Object.assign({}, ...resources) as Json['Resources'] };
}

async function main(): Promise<void> {
  const templates = {
    dev: await stageResources('dev'),
    prod: await stageResources('prod'),
  };
  const rendered = renderSummaries(templates);
  const check = process.argv.includes('--check');
  let stale = false;
  for (const [which, file] of Object.entries(SUMMARY_FILES) as [keyof typeof SUMMARY_FILES, string][]) {
    const text = readFileSync(file, 'utf8');
    const next = await withSummary(file, text, rendered[which]);
    if (next === text) continue;
    if (check) {
      console.error(`${file}: the IAM summary is stale: run \`npm run iam-summary\``);
      stale = true;
    } else writeFileSync(file, next);
  }
  if (stale) process.exit(1);
  console.log(check ? 'IAM summaries are current' : 'IAM summaries written');
}

if (require.main === module)
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
