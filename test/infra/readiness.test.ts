/**
 * Ready for a real account (issue 11), on both stages synthesized once (prod on Stripe, as it
 * moves real money; dev on the sandbox): the AwsSolutions cdk-nag
 * pack finds nothing unacknowledged in the stage stack and its nested stacks, cfn-lint finds no
 * error in any of their templates (without cfn-lint the test fails and says so: docs/testing.md),
 * every alarm watches a metric the service emits and notifies the TLS-only topic, and one
 * dashboard shows them all. CDK's own CloudFormation validation (its default rules, findings as
 * errors: cdk.json) passes on each stage as the other infra files synthesize it, which they do
 * without it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Template } from 'aws-cdk-lib/assertions';
import { CfnResource, Stack } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { addServiceStacks } from '#lib/cdk/app';
import { acknowledgementsOf } from '#lib/cdk/nag';
import type { ServiceStack } from '#lib/cdk/service-stack';
import type { Stage } from '#contract/stage';
import { emittedMetricProblem, metricsOfAlarm } from '#support/cdk/metrics';
import {
  PROD_CONTEXT,
  props,
  resourcesOf,
  stageStacks,
  stageTemplate,
  stageContext,
  SYNTH_TIMEOUT_MS,
  testApp,
} from '#support/cdk/synth';

const stacks: { stack: ServiceStack; template: Template }[] = [];
beforeAll(() => {
  // Both stages in one app, as `cdk synth` builds them with prod's context: one synthesis. Prod
  // as it moves real money, on Stripe (its secret key, its inbound route); dev on the sandbox.
  const app = testApp(
    { ...PROD_CONTEXT, prodProcessor: 'stripe', devAccount: '111111111111' },
    { validation: true },
  );
  for (const stack of addServiceStacks(app)) stacks.push({ stack, template: stageTemplate(stack) });
}, SYNTH_TIMEOUT_MS);

/** One cfn-lint run over both stages' templates, with each stage's files. */
interface CfnLintRun {
  files: Map<Stage, string[]>;
  status: number | null;
  stdout: string;
}
let linted: CfnLintRun | undefined;

/**
 * cfn-lint over every stack of both stages, in one run on first use (one Python start for both: a
 * run's start is 2-3 s of CPU), one file per stack as CloudFormation takes them: the stage stack's
 * and each nested one's. A missing cfn-lint fails: a lint that did not run must not pass. Told from
 * this run (no such command, or a shell's or pyenv shim's 127), not from a `cfn-lint --version`
 * before it, a Python start of its own.
 */
function cfnLint(): CfnLintRun {
  if (linted !== undefined) return linted;
  const dir = mkdtempSync(join(tmpdir(), 'sps-cfn-lint-'));
  try {
    const files = new Map(
      stacks.map(({ stack }) => [
        stack.stage,
        stageStacks(stack).map(({ id, template }) => {
          const file = join(dir, `${stack.stage}-${id}.template.json`);
          writeFileSync(file, JSON.stringify(template.toJSON()));
          return file;
        }),
      ]),
    );
    const lint = spawnSync('cfn-lint', ['--format', 'parseable', ...[...files.values()].flat()], {
      encoding: 'utf8',
    });
    if (lint.error !== undefined || lint.status === 127)
      throw new Error(
        'cfn-lint is not installed (or does not run): the infra tier lints every template with it; ' +
          `install it with \`pip install cfn-lint\` (docs/testing.md)\n${lint.stderr ?? ''}`,
      );
    linted = { files, status: lint.status, stdout: lint.stdout };
    return linted;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.each(['dev', 'prod'] as const)('ScheduledPayments-%s', (stage) => {
  const current = (): { stack: ServiceStack; template: Template } => {
    const found = stacks.find((s) => s.stack.stage === stage);
    if (found === undefined) throw new Error(`no ${stage} stack`);
    return found;
  };

  it('has no cdk-nag AwsSolutions finding left unacknowledged, in the stage stack and every nested stack', () => {
    const { stack } = current();
    // The pack walks the construct tree from the stage stack: the nested stacks are in it.
    const checked = new Set(
      stack.node
        .findAll()
        .filter((c) => CfnResource.isCfnResource(c))
        .map((c) => Stack.of(c).node.path),
    );
    expect([...checked].sort()).toEqual(
      stageStacks(stack)
        .map((s) => s.stack.node.path)
        .sort(),
    );
    const report = new AwsSolutionsChecks(stack).validateScope(stack);
    const findings = report.violations.flatMap((v) =>
      v.violatingResources.map((r) => `${v.ruleName} ${r.constructPath ?? r.resourceLogicalId}`),
    );
    expect(findings).toEqual([]);
  });

  it('acknowledges each finding with its rule, its construct and a reason of a sentence', () => {
    const acknowledgements = acknowledgementsOf(current().stack);
    expect(acknowledgements.length).toBeGreaterThan(0);
    for (const { rule, path, reason } of acknowledgements) {
      expect(rule).toMatch(/^AwsSolutions-[A-Z]+\d+(\[.+\])?$/);
      expect(path).toMatch(new RegExp(`^ScheduledPayments-${stage}/.+`));
      expect(reason).toMatch(/^\S.{20,}[.)]$/);
    }
  });

  it('passes cfn-lint without errors in the stage stack and every nested stack', () => {
    const { files, status, stdout } = cfnLint();
    const mine = files.get(stage) ?? [];
    expect(mine.length).toBeGreaterThan(1);
    const lines = stdout.split('\n').filter((l) => mine.some((file) => l.startsWith(`${file}:`)));
    // W3005 (a DependsOn a GetAtt implies too) is how CDK writes function roles: counted only.
    const shown = lines.filter((l) => !l.includes(':W3005:'));
    console.log(
      `cfn-lint ${stage}: ${mine.length} templates, ${lines.length} findings (${lines.length - shown.length} W3005)\n${shown.join('\n')}`,
    );
    // Exit status bits: 1 cfn-lint itself failed, 2 errors, 4 warnings, 8 informational. Errors
    // (E rules) fail the stage they are in; warnings and information are shown only.
    expect(status === null ? 'killed' : status & 1).toBe(0);
    expect(lines.filter((l) => /:E\d+:/.test(l))).toEqual([]);
  });

  it('watches only metrics the service emits, each alarm notifying the alarm topic', () => {
    const { template } = current();
    const topicRef = template.findOutputs('AlarmTopicArn').AlarmTopicArn?.Value as { Ref: string };
    const alarms = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm')).map(props);
    expect(alarms.length).toBeGreaterThan(10);
    const problems: string[] = [];
    for (const alarm of alarms) {
      expect([alarm.AlarmName, alarm.AlarmActions]).toEqual([alarm.AlarmName, [topicRef]]);
      const metrics = metricsOfAlarm(alarm);
      expect(metrics.length).toBeGreaterThan(0);
      for (const metric of metrics) {
        const problem = emittedMetricProblem(template, metric);
        if (problem !== undefined) problems.push(`${String(alarm.AlarmName)}: ${problem}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it.each([
    ['api-5xx-rate', 'AWS/ApiGateway', '5XXError'],
    ['table-throttled-requests', 'AWS/DynamoDB', 'ThrottledRequests'],
    ['lambda-throttles-1', 'AWS/Lambda', 'Throttles'],
    ['executions-aborted', 'AWS/States', 'ExecutionsAborted'],
    ['executions-failed', 'AWS/States', 'ExecutionsFailed'],
    ['executions-timed-out', 'AWS/States', 'ExecutionsTimedOut'],
    ['notifier-iterator-age', 'AWS/Lambda', 'IteratorAge'],
    ['notifier-dead-letters', 'AWS/SQS', 'ApproximateNumberOfMessagesVisible'],
    ['ses-bounce-rate', 'AWS/SES', 'Bounce'],
  ])('has the alarm %s on %s %s', (name, namespace, metricName) => {
    const alarm = Object.values(resourcesOf(current().template, 'AWS::CloudWatch::Alarm'))
      .map(props)
      .find((a) => a.AlarmName === `scheduled-payments-${stage}-${name}`);
    expect(alarm).toBeDefined();
    expect(metricsOfAlarm(alarm ?? {}).map((m) => [m.namespace, m.metricName])).toContainEqual([
      namespace,
      metricName,
    ]);
  });

  it('alarms on aborted executions of every state machine', () => {
    const { template } = current();
    const watched = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm'))
      .flatMap((a) => metricsOfAlarm(props(a)))
      .filter((m) => m.namespace === 'AWS/States' && m.metricName === 'ExecutionsAborted')
      .map((m) => (m.dimensions.StateMachineArn as { Ref?: string }).Ref);
    expect(watched.sort()).toEqual(
      Object.keys(resourcesOf(template, 'AWS::StepFunctions::StateMachine')).sort(),
    );
  });

  it("watches every function's throttles", () => {
    const { template } = current();
    const functionIds = Object.keys(resourcesOf(template, 'AWS::Lambda::Function'));
    const watched = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm'))
      .flatMap((a) => metricsOfAlarm(props(a)))
      .filter((m) => m.namespace === 'AWS/Lambda' && m.metricName === 'Throttles')
      .map((m) => (m.dimensions.FunctionName as { Ref?: string }).Ref);
    expect([...new Set(watched)].sort()).toEqual(functionIds.sort());
  });

  it('has one dashboard for the stage showing every alarm', () => {
    const { template } = current();
    const dashboards = Object.values(resourcesOf(template, 'AWS::CloudWatch::Dashboard')).map(props);
    expect(dashboards.map((d) => d.DashboardName)).toEqual([`scheduled-payments-${stage}`]);
    const body = JSON.stringify(dashboards[0]?.DashboardBody);
    for (const id of Object.keys(resourcesOf(template, 'AWS::CloudWatch::Alarm')))
      expect([id, body.includes(`"${id}","Arn"`)]).toEqual([id, true]);
  });

  it('refuses every publish to the alarm topic without TLS and lets CloudWatch alarms publish', () => {
    const { template } = current();
    const [topicId] = Object.keys(resourcesOf(template, 'AWS::SNS::Topic'));
    const policies = Object.values(resourcesOf(template, 'AWS::SNS::TopicPolicy'))
      .map(props)
      .filter((p) => (p.Topics as { Ref: string }[]).some((t) => t.Ref === topicId));
    const statements = policies.flatMap(
      (p) => (p.PolicyDocument as { Statement: Record<string, unknown>[] }).Statement,
    );
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 'sns:Publish',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
    expect(statements).toContainEqual(
      expect.objectContaining({ Effect: 'Allow', Principal: { Service: 'cloudwatch.amazonaws.com' } }),
    );
  });
});

/** The environment-agnostic dev (offline `npm run synth`), synthesized with the validation once. */
let agnosticDev: { stack: ServiceStack; template: Template } | undefined;
const agnosticDevStage = () => {
  if (agnosticDev === undefined) {
    const [stack] = addServiceStacks(testApp(stageContext('dev'), { validation: true }));
    agnosticDev = { stack: stack!, template: stageTemplate(stack!) };
  }
  return agnosticDev;
};

it(
  'has no unacknowledged cdk-nag finding in an environment-agnostic dev (offline npm run synth) either',
  () => {
    const { stack } = agnosticDevStage();
    const report = new AwsSolutionsChecks(stack).validateScope(stack);
    expect(report.violations.map((v) => v.ruleName)).toEqual([]);
  },
  SYNTH_TIMEOUT_MS,
);

it(
  "passes CDK's CloudFormation validation on each stage as the other infra files synthesize it",
  () => {
    // Synthesis with the validation fails on any finding (cdk.json: validateAgainstDefaultRules).
    // The other files synthesize each stage with stageContext too, without it (synthStage).
    expect(() => agnosticDevStage()).not.toThrow();
    const [prod] = addServiceStacks(testApp(stageContext('prod'), { validation: true }));
    expect(() => stageTemplate(prod!)).not.toThrow();
  },
  SYNTH_TIMEOUT_MS,
);

it("fails a synthesis when CDK's CloudFormation validation refuses a template (the check above is on)", () => {
  const app = testApp({}, { validation: true });
  new CfnResource(new Stack(app, 'Refused'), 'Queue', {
    type: 'AWS::SQS::Queue',
    properties: { DelaySeconds: 'a while' },
  });
  expect(() => app.synth()).toThrow(
    /DelaySeconds: 'a while' is not of type 'integer' \(CloudFormation Validate\)/,
  );
});

describe('docs/operating.md', () => {
  it('lists every acknowledged cdk-nag rule in its cdk-nag summary', () => {
    const guide = readFileSync(join(__dirname, '..', '..', 'docs', 'operating.md'), 'utf8');
    const summary = guide.slice(guide.indexOf('### cdk-nag'));
    const rules = new Set(
      stacks.flatMap(({ stack }) => acknowledgementsOf(stack).map((a) => a.rule.replace(/\[.*$/, ''))),
    );
    for (const rule of rules) expect([rule, summary.includes(rule)]).toEqual([rule, true]);
  });

  it('gives each rule the number of findings acknowledged on each stage', () => {
    const guide = readFileSync(join(__dirname, '..', '..', 'docs', 'operating.md'), 'utf8');
    const summary = guide.slice(guide.indexOf('### cdk-nag'));
    const counted = (stage: string): Record<string, number> => {
      const found = stacks.find((s) => s.stack.stage === stage);
      const by: Record<string, number> = {};
      for (const { rule } of acknowledgementsOf(found!.stack)) {
        const base = rule.replace(/\[.*$/, '');
        by[base] = (by[base] ?? 0) + 1;
      }
      return by;
    };
    const [dev, prod] = [counted('dev'), counted('prod')];
    const rows = [...summary.matchAll(/^\| (AwsSolutions-\w+)\s*\| (\d+)\s*\| (\d+)\s*\|/gm)];
    expect(rows.length).toBeGreaterThan(0);
    // Every row at once, so that one run shows each count to copy.
    expect(rows.map(([, rule, d, p]) => [rule, Number(d), Number(p)])).toEqual(
      rows.map(([, rule]) => [rule, dev[rule!] ?? 0, prod[rule!] ?? 0]),
    );
  });
});
