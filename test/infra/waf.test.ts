/**
 * Issue 22, item 2: a WAFv2 web ACL on the REST API's stage, on both stages: the AWS managed rule
 * groups (common, known bad inputs, IP reputation), a rate-based rule per client IP with its own
 * alarm, no sampled requests (they would hold request bodies), and the stage associated.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import type { Stage } from '#contract/stage';
import { RATE_RULE, WAF_MANAGED_RULE_GROUPS, WAF_RATE_LIMIT_DEFAULT } from '#lib/cdk/waf';
import {
  flatten,
  props,
  resourcesOf,
  stageTemplateOf,
  SYNTH_TIMEOUT_MS,
  type Resource,
} from '#support/cdk/synth';

type Rule = {
  Name: string;
  Priority: number;
  Action?: Record<string, unknown>;
  OverrideAction?: Record<string, unknown>;
  Statement: {
    RateBasedStatement?: { Limit: number; AggregateKeyType: string };
    ManagedRuleGroupStatement?: {
      VendorName: string;
      Name: string;
      RuleActionOverrides?: { Name: string; ActionToUse: Record<string, unknown> }[];
    };
  };
  VisibilityConfig: {
    SampledRequestsEnabled: boolean;
    CloudWatchMetricsEnabled: boolean;
    MetricName: string;
  };
};

describe.each(['dev', 'prod'] as Stage[])('ScheduledPayments-%s WAF', (stage) => {
  let template: Template;
  let acl: Resource;
  let aclId: string;
  beforeAll(() => {
    template = stageTemplateOf(stage);
    const acls = Object.entries(resourcesOf(template, 'AWS::WAFv2::WebACL'));
    expect(acls).toHaveLength(1);
    [aclId, acl] = acls[0]!;
  }, SYNTH_TIMEOUT_MS);
  const rules = (): Rule[] => props(acl).Rules as Rule[];

  it('is a regional web ACL that allows by default and keeps no sampled request', () => {
    expect(props(acl)).toMatchObject({
      Name: `scheduled-payments-${stage}-api`,
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      VisibilityConfig: { SampledRequestsEnabled: false, CloudWatchMetricsEnabled: true },
    });
    for (const rule of rules())
      expect([rule.Name, rule.VisibilityConfig.SampledRequestsEnabled]).toEqual([rule.Name, false]);
  });

  it('runs the AWS managed rule groups: common, known bad inputs, IP reputation', () => {
    const managed = rules().filter((r) => r.Statement.ManagedRuleGroupStatement !== undefined);
    expect(managed.map((r) => r.Statement.ManagedRuleGroupStatement!.Name).sort()).toEqual([
      'AWSManagedRulesAmazonIpReputationList',
      'AWSManagedRulesCommonRuleSet',
      'AWSManagedRulesKnownBadInputsRuleSet',
    ]);
    for (const rule of managed) {
      expect(rule.Statement.ManagedRuleGroupStatement!.VendorName).toBe('AWS');
      // The group's own actions (block) apply.
      expect(rule.OverrideAction).toEqual({ None: {} });
    }
    // Only the body size rule counts instead of blocking: a bulk create is larger than 8 KB.
    const overrides = managed.flatMap(
      (r) => r.Statement.ManagedRuleGroupStatement!.RuleActionOverrides ?? [],
    );
    expect(overrides).toEqual([{ Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } }]);
    expect(WAF_MANAGED_RULE_GROUPS.flatMap((g) => g.countOnly)).toEqual(['SizeRestrictions_BODY']);
  });

  it('blocks a client IP past the rate limit, first of all rules', () => {
    const rate = rules().find((r) => r.Name === RATE_RULE)!;
    expect(rate).toMatchObject({
      Priority: 0,
      Action: { Block: {} },
      Statement: { RateBasedStatement: { Limit: WAF_RATE_LIMIT_DEFAULT, AggregateKeyType: 'IP' } },
    });
    const priorities = rules().map((r) => r.Priority);
    expect(new Set(priorities).size).toBe(priorities.length);
    expect(Math.min(...priorities)).toBe(0);
  });

  it('is associated with the API stage', () => {
    const associations = Object.values(resourcesOf(template, 'AWS::WAFv2::WebACLAssociation'));
    expect(associations).toHaveLength(1);
    const association = props(associations[0]!);
    expect(flatten(association.WebACLArn)).toBe(`\${${aclId}.Arn}`);
    const [stageId] = Object.keys(resourcesOf(template, 'AWS::ApiGateway::Stage'));
    expect(flatten(association.ResourceArn)).toContain(`/stages/\${${stageId}}`);
  });

  it('alarms when the rate rule blocks, on the alarm topic', () => {
    const alarms = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm')).filter(
      (a) => props(a).Namespace === 'AWS/WAFV2',
    );
    expect(alarms).toHaveLength(1);
    const alarm = props(alarms[0]!);
    expect(alarm).toMatchObject({
      AlarmName: `scheduled-payments-${stage}-WafRateLimited`,
      MetricName: 'BlockedRequests',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    const dimensions = alarm.Dimensions as { Name: string; Value: unknown }[];
    expect(dimensions.find((d) => d.Name === 'Rule')?.Value).toBe(RATE_RULE);
    expect(dimensions.find((d) => d.Name === 'WebACL')?.Value).toBe(`scheduled-payments-${stage}-api`);
    expect(flatten(alarm.AlarmActions)).toContain('Alarms');
  });
});
