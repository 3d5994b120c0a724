import { Token } from 'aws-cdk-lib';
import { addServiceStacks } from '#lib/cdk/app';
import {
  flatten,
  PROD_CONTEXT,
  props,
  resourcesOf,
  stageTemplate,
  SYNTH_TIMEOUT_MS,
  testApp,
} from '#support/cdk/synth';

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

  it('synthesizes dev alone, environment-agnostic, when prod lacks its context (and says why)', () => {
    const warn = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const app = testApp();
    const stacks = addServiceStacks(app);
    expect(stacks.map((s) => [s.stackName, s.stage])).toEqual([['ScheduledPayments-dev', 'dev']]);
    expect(Token.isUnresolved(stacks[0]?.account)).toBe(true);
    expect(Token.isUnresolved(stacks[0]?.region)).toBe(true);
    expect(warn.mock.calls.flat().join(' ')).toMatch(
      /ScheduledPayments-prod not synthesized: prod needs explicit context: -c prodAccount.*-c region.*-c senderAddress/,
    );
    warn.mockRestore();
  });

  it(
    'synthesizes both stages, prod pinned to its account and region, when prod has its context',
    () => {
      const app = testApp(PROD_CONTEXT, { validation: true });
      const stacks = addServiceStacks(app);
      expect(stacks.map((s) => [s.stackName, s.account, s.region])).toEqual([
        ['ScheduledPayments-dev', expect.any(String), 'eu-west-1'],
        ['ScheduledPayments-prod', '222222222222', 'eu-west-1'],
      ]);
      // Full synthesis, including CDK's template validation, succeeds.
      const assembly = app.synth();
      expect(assembly.stacks.map((s) => s.stackName).sort()).toEqual([
        'ScheduledPayments-dev',
        'ScheduledPayments-prod',
      ]);
    },
    SYNTH_TIMEOUT_MS,
  );

  it('synthesizes only the stage given as context', () => {
    expect(addServiceStacks(testApp({ ...PROD_CONTEXT, stage: 'prod' })).map((s) => s.stackName)).toEqual([
      'ScheduledPayments-prod',
    ]);
  });

  it.each([
    ['prodAccount', { region: 'eu-west-1', senderAddress: 'payments@payments.example.org' }],
    ['region', { prodAccount: '222222222222', senderAddress: 'payments@payments.example.org' }],
    ['senderAddress', { prodAccount: '222222222222', region: 'eu-west-1' }],
    ['senderAddress', { ...PROD_CONTEXT, senderAddress: 'payments@scheduled-payments.example' }],
  ])('refuses to synthesize prod without a %s it can use', (missing, context) => {
    expect(() => addServiceStacks(testApp({ stage: 'prod', ...context }))).toThrow(
      new RegExp(`prod needs explicit context: .*-c ${missing}`),
    );
  });

  it('refuses two stages in one account and region, naming both', () => {
    expect(() =>
      addServiceStacks(testApp({ ...PROD_CONTEXT, devAccount: PROD_CONTEXT.prodAccount })),
    ).toThrow(/stages dev and prod would both deploy to account 222222222222 in eu-west-1/);
    // Deploying one stage at a time does not get around it.
    expect(() =>
      addServiceStacks(testApp({ ...PROD_CONTEXT, devAccount: PROD_CONTEXT.prodAccount, stage: 'dev' })),
    ).toThrow(/would both deploy to account 222222222222/);
    // The caller's default account counts for dev when dev is synthesized.
    process.env.CDK_DEFAULT_ACCOUNT = PROD_CONTEXT.prodAccount;
    expect(() => addServiceStacks(testApp(PROD_CONTEXT))).toThrow(/would both deploy/);
  });

  it('lets two stages share an account in different regions, or a region in different accounts', () => {
    expect(addServiceStacks(testApp({ ...PROD_CONTEXT, devAccount: '111111111111' }))).toHaveLength(2);
    // Deploying prod with prod's credentials: dev (not synthesized) does not take the default account.
    process.env.CDK_DEFAULT_ACCOUNT = PROD_CONTEXT.prodAccount;
    expect(addServiceStacks(testApp({ ...PROD_CONTEXT, stage: 'prod' }))).toHaveLength(1);
  });

  it('leaves out the account-level API Gateway logging role when told it is managed elsewhere', () => {
    const roleOf = (context: Record<string, unknown>): number => {
      const [stack] = addServiceStacks(testApp({ stage: 'dev', ...context }));
      return stack?.api.api.node.tryFindChild('CloudWatchRole') === undefined ? 0 : 1;
    };
    expect([roleOf({}), roleOf({ apiGatewayCloudWatchRole: 'false' })]).toEqual([1, 0]);
  });

  it('refuses an unknown stage', () => {
    expect(() => addServiceStacks(testApp({ stage: 'qa' }))).toThrow(/stage must be one of dev, prod/);
  });

  it('places each stage in the account from context and the region from context', () => {
    const stacks = addServiceStacks(testApp({ ...PROD_CONTEXT, devAccount: '111111111111' }));
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
    const domains = Object.values(resourcesOf(stageTemplate(stack!), 'AWS::Cognito::UserPoolDomain'));
    expect(domains.map((d) => flatten(props(d).Domain))).toEqual(['scheduled-payments-dev-acme']);
  });
});

describe('settlementPeriodSeconds context', () => {
  const settlementOf = (stage: 'dev' | 'prod', period?: number): Record<string, unknown>[] => {
    const context = {
      ...PROD_CONTEXT,
      stage,
      ...(period === undefined ? {} : { settlementPeriodSeconds: period }),
    };
    const [stack] = addServiceStacks(testApp(context));
    return Object.values(resourcesOf(stageTemplate(stack!), 'AWS::Lambda::Function'))
      .map(
        (f) => (props(f).Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {},
      )
      .filter((v) => v.PROCESSOR !== undefined);
  };

  it(
    'gives dev every processor-bound function the period and a cut-off half a period in',
    () => {
      const variables = settlementOf('dev', 300);
      expect(variables.length).toBeGreaterThan(5);
      for (const v of variables)
        expect(v).toMatchObject({ SETTLEMENT_PERIOD_SECONDS: '300', SETTLEMENT_OFFSET_SECONDS: '150' });
    },
    SYNTH_TIMEOUT_MS,
  );

  it(
    'leaves the default hourly cut-offs without it, and in prod',
    () => {
      for (const v of [...settlementOf('dev'), ...settlementOf('prod', 300)]) {
        expect(v).not.toHaveProperty('SETTLEMENT_PERIOD_SECONDS');
        expect(v).not.toHaveProperty('SETTLEMENT_OFFSET_SECONDS');
      }
    },
    SYNTH_TIMEOUT_MS,
  );

  it.each(['5', 'hourly', '100000'])('refuses %j', (value) => {
    expect(() => addServiceStacks(testApp({ stage: 'dev', settlementPeriodSeconds: value }))).toThrow(
      /settlementPeriodSeconds must be an integer from 60 to 86400/,
    );
  });
});
