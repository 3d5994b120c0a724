/**
 * The web application firewall in front of the REST API (issue 22, item 2; PCI DSS 6.4.2): an AWS
 * WAFv2 web ACL on the API's stage with AWS managed rule groups (the common rule set, known bad
 * inputs, the Amazon IP reputation list) and a rate-based rule per client IP, which has an alarm
 * of its own. A request WAF blocks is answered 403 with the service's error body (api.ts,
 * WAF_FILTERED).
 *
 * One override: the common rule set's SizeRestrictions_BODY blocks bodies over 8 KB, and a bulk
 * group create is larger by design (up to MAX_GROUP_PAYMENTS payments): it only counts. The API's
 * own limits (API Gateway's 10 MB, the schemas' maxItems) bound bodies instead.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import type { Stage } from '../../contract/stage';
import { serviceAlarm } from './alarms';
import { SERVICE_NAME } from './service-function';

/** Requests per client IP per 5 minutes before WAF blocks that IP (context `wafRateLimit`). */
export const WAF_RATE_LIMIT_DEFAULT = 6000;

/** The AWS managed rule groups, by priority, with the rules of each that only count. */
export const WAF_MANAGED_RULE_GROUPS: readonly { name: string; countOnly: readonly string[] }[] = [
  { name: 'AWSManagedRulesAmazonIpReputationList', countOnly: [] },
  { name: 'AWSManagedRulesKnownBadInputsRuleSet', countOnly: [] },
  { name: 'AWSManagedRulesCommonRuleSet', countOnly: ['SizeRestrictions_BODY'] },
];

/** The metric name of the rate-based rule (its alarm reads it). */
export const RATE_RULE = 'RatePerClientIp';

interface ServiceWafProps {
  readonly stage: Stage;
  readonly api: apigw.RestApi;
  readonly alarmTopic: sns.ITopic;
  /** @default context `wafRateLimit`, else WAF_RATE_LIMIT_DEFAULT */
  readonly rateLimit?: number;
}

function rateLimitOf(scope: Construct, given: number | undefined): number {
  const raw: unknown = given ?? scope.node.tryGetContext('wafRateLimit') ?? WAF_RATE_LIMIT_DEFAULT;
  const value = typeof raw === 'string' ? Number(raw) : raw;
  // WAF's bounds for a rate-based rule's limit.
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 10 || value > 2_000_000_000)
    throw new Error(`wafRateLimit must be a whole number from 10 to 2,000,000,000; got ${String(raw)}`);
  return value;
}

export class ServiceWaf extends Construct {
  readonly webAcl: wafv2.CfnWebACL;
  readonly rateAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: ServiceWafProps) {
    super(scope, id);
    const { stage } = props;
    const name = `${SERVICE_NAME}-${stage}-api`;
    const visibility = (metricName: string): wafv2.CfnWebACL.VisibilityConfigProperty => ({
      cloudWatchMetricsEnabled: true,
      metricName,
      // No sampled requests: a sample holds the request, and payor bodies carry card numbers.
      sampledRequestsEnabled: false,
    });
    const managed: wafv2.CfnWebACL.RuleProperty[] = WAF_MANAGED_RULE_GROUPS.map((group, i) => ({
      name: group.name,
      priority: i + 1,
      overrideAction: { none: {} },
      statement: {
        managedRuleGroupStatement: {
          vendorName: 'AWS',
          name: group.name,
          ...(group.countOnly.length > 0
            ? {
                ruleActionOverrides: group.countOnly.map((rule) => ({
                  name: rule,
                  actionToUse: { count: {} },
                })),
              }
            : {}),
        },
      },
      visibilityConfig: visibility(group.name),
    }));
    this.webAcl = new wafv2.CfnWebACL(this, 'WebAcl', {
      name,
      description: `Scheduled Payments Service ${stage}: AWS managed rule groups and a rate limit per client IP`,
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility(name),
      rules: [
        // First: a flood is blocked before the managed groups spend their capacity on it.
        {
          name: RATE_RULE,
          priority: 0,
          action: { block: {} },
          statement: {
            rateBasedStatement: { limit: rateLimitOf(this, props.rateLimit), aggregateKeyType: 'IP' },
          },
          visibilityConfig: visibility(RATE_RULE),
        },
        ...managed,
      ],
    });
    const association = new wafv2.CfnWebACLAssociation(this, 'StageAssociation', {
      resourceArn: props.api.deploymentStage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
    association.node.addDependency(props.api.deploymentStage);

    this.rateAlarm = serviceAlarm(
      this,
      stage,
      props.alarmTopic,
      'WafRateLimited',
      new cloudwatch.Metric({
        namespace: 'AWS/WAFV2',
        metricName: 'BlockedRequests',
        dimensionsMap: { WebACL: name, Rule: RATE_RULE, Region: Stack.of(this).region },
        statistic: 'Sum',
        period: Duration.minutes(5),
      }),
      'WAF blocked a client IP for exceeding the rate limit: a flood or a runaway integration (docs/operating.md "WAF")',
    );
  }
}
