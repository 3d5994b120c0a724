/**
 * The group report's .xlsx pages reach a client as bytes: a function answers them base64-encoded
 * with `isBase64Encoded`, and API Gateway REST decodes such an answer only for a media type of the
 * API's binaryMediaTypes (the request's first Accept type). Both stages list the types of
 * contract/media-types.ts, which the local gateway reads too (test/unit/local-gateway-encodings),
 * and only those: JSON stays text (a wildcard would pass every JSON request body to the functions
 * base64-encoded). The report's method is a Lambda proxy without content handling, which is what
 * passes `isBase64Encoded` through.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { BINARY_MEDIA_TYPES, XLSX_MEDIA_TYPE } from '#contract/media-types';
import { routeList as routes } from '#contract/routes/index';
import type { Stage } from '#contract/stage';
import { props, resourcesOf, stageTemplateOf, SYNTH_TIMEOUT_MS } from '#support/cdk/synth';

describe.each(['dev', 'prod'] as Stage[])('ScheduledPayments-%s', (stage) => {
  let template: Template;
  beforeAll(() => {
    template = stageTemplateOf(stage);
  }, SYNTH_TIMEOUT_MS);

  it('lists the spreadsheet media type as binary, and nothing that would turn JSON into base64', () => {
    const apis = Object.values(resourcesOf(template, 'AWS::ApiGateway::RestApi'));
    expect(apis).toHaveLength(1);
    const binary = props(apis[0]!).BinaryMediaTypes as string[];
    expect(binary).toEqual([...BINARY_MEDIA_TYPES]);
    expect(binary).toContain(XLSX_MEDIA_TYPE);
    for (const type of ['*/*', 'application/*', 'application/json', 'text/csv'])
      expect(binary).not.toContain(type);
    // Every route that offers a spreadsheet answers a type of the list.
    expect(routes.filter((r) => r.spreadsheet).map((r) => r.id)).toEqual(['GroupReport']);
  });

  it("serves the report through a Lambda proxy integration that passes the function's base64 answer on", () => {
    const report = routes.find((r) => r.id === 'GroupReport')!;
    const methods = Object.values(resourcesOf(template, 'AWS::ApiGateway::Method')).filter(
      (m) => props(m).OperationName === report.id,
    );
    expect(methods).toHaveLength(1);
    const integration = props(methods[0]!).Integration as Record<string, unknown>;
    expect(integration.Type).toBe('AWS_PROXY');
    expect(integration).not.toHaveProperty('ContentHandling');
  });
});
