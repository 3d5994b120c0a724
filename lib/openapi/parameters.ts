/** Path parameters (declared once in contract/params) and query parameters (the route's query). */
import { pathParamNames, pathParams, type PathParam } from '#contract/params';
import type { Route } from '#contract/routes/index';
import { examplesOf, pathExample } from './examples';
import { toOpenApiSchema } from './translate';
import type { JsonSchema, ParameterObject } from './types';

const declared: ReadonlyMap<string, PathParam> = new Map(Object.entries(pathParams));

function pathParameter(route: Route, name: string): ParameterObject {
  const param = declared.get(name);
  if (!param) throw new Error(`route ${route.id}: path parameter {${name}} is not in contract/params.ts`);
  return {
    name,
    in: 'path',
    required: true,
    description: param.description,
    schema: {
      type: 'string',
      ...(param.format !== undefined && { format: param.format }),
      pattern: param.pattern,
    },
    // The placeholder the operation's examples use, so that parameters and bodies agree.
    example: pathExample(name) ?? param.example,
  };
}

function queryParameters(route: Route): ParameterObject[] {
  if (!route.query) return [];
  const { properties = {}, required = [] } = route.query.schema as {
    properties?: Record<string, JsonSchema>;
    required?: readonly string[];
  };
  const examples = examplesOf(route).query ?? {};
  return Object.entries(properties).map(([name, schema]) => {
    const extra = route.query?.parameters?.[name];
    const example = examples[name];
    return {
      name,
      in: 'query',
      required: required.includes(name),
      ...(extra?.description !== undefined && { description: extra.description }),
      schema: extra?.schema ? { ...extra.schema } : toOpenApiSchema(schema),
      ...(example !== undefined && { example }),
    };
  });
}

/** The parameters of an operation: its path's placeholders in order, then its query's. */
export const parametersOf = (route: Route): ParameterObject[] => [
  ...pathParamNames(route.path).map((name) => pathParameter(route, name)),
  ...queryParameters(route),
];
