import { Token } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { addServiceStacks } from '../../lib/cdk/app';
import { flatten, props, resourcesOf, testApp } from './synth';

describe('CDK app', () => {
  const saved = { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION };
  beforeEach(() => {
    delete process.env.CDK_DEFAULT_ACCOUNT;
    delete process.env.CDK_DEFAULT_REGION;
  });
  afterAll(() => {
    if (saved.account !== undefined) process.env.CDK_DEFAULT_ACCOUNT = saved.account;
    if (saved.region !== undefined) process.env.CDK_DEFAULT_REGION = saved.region;
  });

  it('synthesizes a dev and a prod stack, environment-agnostic without accounts or region', () => {
    const app = testApp();
    const stacks = addServiceStacks(app);
    expect(stacks.map((s) => [s.stackName, s.stage])).toEqual([
      ['ScheduledPayments-dev', 'dev'],
      ['ScheduledPayments-prod', 'prod'],
    ]);
    for (const stack of stacks) {
      expect(Token.isUnresolved(stack.account)).toBe(true);
      expect(Token.isUnresolved(stack.region)).toBe(true);
    }
    // Full synthesis, including CDK's template validation, succeeds.
    const assembly = app.synth();
    expect(assembly.stacks.map((s) => s.stackName).sort()).toEqual([
      'ScheduledPayments-dev',
      'ScheduledPayments-prod',
    ]);
  });

  it('synthesizes only the stage given as context', () => {
    expect(addServiceStacks(testApp({ stage: 'prod' })).map((s) => s.stackName)).toEqual([
      'ScheduledPayments-prod',
    ]);
  });

  it('refuses an unknown stage', () => {
    expect(() => addServiceStacks(testApp({ stage: 'qa' }))).toThrow(/stage must be one of dev, prod/);
  });

  it('places each stage in the account from context and the region from context', () => {
    const stacks = addServiceStacks(
      testApp({ devAccount: '111111111111', prodAccount: '222222222222', region: 'eu-west-1' }),
    );
    expect(stacks.map((s) => [s.stage, s.account, s.region])).toEqual([
      ['dev', '111111111111', 'eu-west-1'],
      ['prod', '222222222222', 'eu-west-1'],
    ]);
  });

  it('falls back to CDK_DEFAULT_ACCOUNT and CDK_DEFAULT_REGION', () => {
    process.env.CDK_DEFAULT_ACCOUNT = '333333333333';
    process.env.CDK_DEFAULT_REGION = 'us-east-2';
    const [stack] = addServiceStacks(testApp({ stage: 'dev' }));
    expect([stack?.account, stack?.region]).toEqual(['333333333333', 'us-east-2']);
  });

  it('stays environment-agnostic with only CDK_DEFAULT_REGION (the CLI sets it even offline)', () => {
    process.env.CDK_DEFAULT_REGION = 'us-east-1';
    const [stack] = addServiceStacks(testApp({ stage: 'dev' }));
    expect(Token.isUnresolved(stack?.region)).toBe(true);
  });

  it('pins a region given as context even without an account', () => {
    const [stack] = addServiceStacks(testApp({ stage: 'dev', region: 'eu-central-1' }));
    expect([Token.isUnresolved(stack?.account), stack?.region]).toEqual([true, 'eu-central-1']);
  });

  it('uses the authDomainSuffix context in the Cognito domain prefix', () => {
    const [stack] = addServiceStacks(testApp({ stage: 'dev', authDomainSuffix: 'acme' }));
    const domains = Object.values(resourcesOf(Template.fromStack(stack!), 'AWS::Cognito::UserPoolDomain'));
    expect(domains.map((d) => flatten(props(d).Domain))).toEqual(['scheduled-payments-dev-acme']);
  });
});
