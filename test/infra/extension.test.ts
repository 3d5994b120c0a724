import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { ServiceApi } from '#lib/cdk/api';
import { ServiceAuth } from '#lib/cdk/auth';
import { ServiceTable } from '#lib/cdk/table';
import { handlerModules } from '#contract/routes/index';
import { props, resourcesOf, testApp } from '#support/cdk/synth';

describe('ServiceApi extension point', () => {
  it('exposes one function per handler and lets a callback configure a single handler', () => {
    const stack = new Stack(testApp(), 'Extension');
    const { table } = new ServiceTable(stack, 'Data', { stage: 'dev' });
    const { userPool } = new ServiceAuth(stack, 'Auth', { stage: 'dev' });
    const seen: [string, string[]][] = [];
    const api = new ServiceApi(stack, 'Api', {
      stage: 'dev',
      table,
      userPool,
      configureFunction: (fn, handler, handlerRoutes) => {
        seen.push([handler, handlerRoutes.map((r) => r.id)]);
        if (handler === 'groups/create-group') fn.addEnvironment('EXTRA', 'yes');
      },
    });

    expect([...api.functions.keys()].sort()).toEqual([...handlerModules()].sort());
    expect(seen.map(([handler]) => handler).sort()).toEqual([...handlerModules()].sort());
    // Aliases share a handler, so the callback sees every route of it.
    expect(Object.fromEntries(seen)['payments/add-payment']).toEqual(['AddPayment', 'AddPaymentAlias']);

    const functions = Object.values(resourcesOf(Template.fromStack(stack), 'AWS::Lambda::Function')).map(
      props,
    );
    const withExtra = functions.filter(
      (f) => (f.Environment as { Variables: Record<string, unknown> }).Variables.EXTRA,
    );
    expect(withExtra.map((f) => f.FunctionName)).toEqual(['scheduled-payments-dev-groups_create-group']);
  });
});
