/**
 * Prod's non-production-only endpoints in the cloud: each is an inline function that only refuses
 * (lib/cdk/service-function.ts prodRefusalFunction), with the words the handler's own refusal has
 * where the local runtime runs as prod (lambdas/core/triggers.ts assertTriggerAllowed): each names
 * its operation.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { routeList as routes } from '#contract/routes/index';
import { prodRefusalFunction } from '#lib/cdk/service-function';

/** The operation each handler's refusal names (lambdas/triggers/*.ts). */
const OPERATION: Record<string, string> = {
  'triggers/process-group': 'process-payments',
  'triggers/process-merchant': 'process-payments',
  'triggers/retry-merchant': 'retry-payments',
  'triggers/settle-now': 'settle-now',
};

test("defect: prod's cloud functions answered settle-now and retry-payments with a 403 naming process-payments, unlike their handlers (the local runtime as prod)", () => {
  const nonProd = routes.filter((r) => r.nonProdOnly);
  const handlers = [...new Set(nonProd.map((r) => r.handler))].sort();
  expect(handlers).toEqual(Object.keys(OPERATION).sort());
  const stack = new Stack(new App(), 'Refusals');
  for (const handler of handlers)
    prodRefusalFunction(stack, handler, 'prod', nonProd.find((r) => r.handler === handler)!.path);
  const functions = Object.values(Template.fromStack(stack).findResources('AWS::Lambda::Function'));
  const answered = functions.map((fn) => {
    const p = fn.Properties as { Description: string; Code: { ZipFile: string } };
    const handler = p.Description.split(' ')[0]!;
    // exports.handler = async () => ({statusCode, headers, body});
    const response = JSON.parse(/=> \((.*)\);\s*$/s.exec(p.Code.ZipFile)![1]!) as {
      statusCode: number;
      body: string;
    };
    return `${handler}: ${response.statusCode} ${(JSON.parse(response.body) as { message: string }).message}`;
  });
  expect(answered.sort()).toEqual(
    handlers.map((h) => `${h}: 403 ${OPERATION[h]} is not available in production`).sort(),
  );
});
