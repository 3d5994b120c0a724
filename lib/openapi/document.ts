/** The OpenAPI 3.0.3 document: one operation per route, the components they share, the overview. */
import packageJson from '../../package.json';
import { requestComponents } from '#contract/schemas/index';
import { routes, type Route } from '#contract/routes/index';
import { apiScope, TOKEN_VALIDITY_SECONDS, type Stage } from '#contract/stage';
import { responseSchemas, SchemaComponents } from './components';
import { CLIENT_PACKAGE } from './code-samples';
import { errorResponses } from './errors';
import { healthOperation } from './health';
import { HEALTH } from '#contract/health';
import { operationOf, TAG_GROUPS, tagOf, TAGS } from './operation';
import { overview } from './overview';
import {
  LOCAL_BASE_URL,
  SECURITY_SCHEME,
  type HttpVerb,
  type OpenApiDocument,
  type OpenApiOptions,
  type PathItemObject,
  type SchemaObject,
} from './types';

/**
 * package.json says `UNLICENSED`: proprietary, no license granted to anyone. OpenAPI 3.0 has no
 * SPDX `identifier` and there is no published terms page, so the URL is npm's definition of
 * `UNLICENSED` (docs/decisions.md "The API description's license").
 */
const LICENSE = {
  name: 'Proprietary (UNLICENSED): all rights reserved',
  url: 'https://docs.npmjs.com/cli/v10/configuring-npm/package-json#license',
};

function mergeSchemas(
  a: Record<string, SchemaObject>,
  b: Record<string, SchemaObject>,
): Record<string, SchemaObject> {
  const clash = Object.keys(b).find((name) => name in a);
  if (clash !== undefined)
    throw new Error(`schema component ${clash} is both a request and a response schema`);
  return { ...a, ...b };
}

/**
 * The menu's groups of the used tags. The page shows only what a group names: a tag in none is
 * an error, but the deprecated aliases' (left out on purpose).
 */
function tagGroups(usedTags: ReadonlySet<string>): { name: string; tags: string[] }[] {
  const grouped = new Set([...TAG_GROUPS.flatMap((g) => g.tags), TAGS.aliases!.name]);
  const lost = [...usedTags].filter((t) => !grouped.has(t));
  if (lost.length > 0)
    throw new Error(`tags in no TAG_GROUPS group (lib/openapi/operation.ts): ${lost.join(', ')}`);
  return TAG_GROUPS.map((g) => ({ name: g.name, tags: g.tags.filter((t) => usedTags.has(t)) })).filter(
    (g) => g.tags.length > 0,
  );
}

/** The OpenAPI 3.0.3 document of the API of `stage`. */
export function openApiDocument(stage: Stage, options: OpenApiOptions = {}): OpenApiDocument {
  const tokenUrl = options.tokenUrl ?? `${LOCAL_BASE_URL}/oauth2/token`;
  // The samples name one real base: the given server's, else the local runtime's (docs/decisions.md
  // "Code samples and the base URL of the docs page").
  const baseUrl = options.serverUrl ?? LOCAL_BASE_URL;
  const scope = apiScope(stage);
  const security = [{ [SECURITY_SCHEME]: [scope] }];
  const components = new SchemaComponents();
  for (const [name, schema] of requestComponents) components.refTo(schema, name);

  const paths: Record<string, PathItemObject> = {};
  const usedTags = new Set<string>();
  for (const route of Object.values(routes) as Route[]) {
    const operation = operationOf(route, components, security, { baseUrl, tokenUrl });
    usedTags.add(tagOf(route));
    const verb = route.method.toLowerCase() as HttpVerb;
    const item = (paths[route.path] ??= {});
    if (item[verb]) throw new Error(`two routes for ${route.method} ${route.path}`);
    item[verb] = operation;
  }

  // The health route: no token, answered by the gateway (contract/health.ts).
  paths[HEALTH.path] = { get: healthOperation(baseUrl, tokenUrl, CLIENT_PACKAGE) };
  usedTags.add(TAGS.health!.name);

  const knownTags = Object.values(TAGS).filter((t) => usedTags.has(t.name));
  const otherTags = [...usedTags]
    .filter((t) => !knownTags.some((k) => k.name === t))
    .map((name) => ({ name }));

  return {
    openapi: '3.0.3',
    info: {
      title: 'Scheduled Payments Service',
      version: packageJson.version,
      description: overview(stage, tokenUrl, options.serverUrl),
      license: LICENSE,
    },
    servers: options.serverUrl
      ? [{ url: options.serverUrl, description: `Stage ${stage}` }]
      : [
          {
            url: 'https://{restApiId}.execute-api.{region}.amazonaws.com/' + stage,
            description: `Deployed API, stage ${stage} (the stack output ApiUrl)`,
            variables: {
              restApiId: { default: 'restApiId', description: 'ID of the REST API (from ApiUrl)' },
              region: { default: 'us-east-1', description: 'AWS region of the deployment' },
            },
          },
          { url: LOCAL_BASE_URL, description: 'Local runtime (npm start)' },
        ],
    tags: [...knownTags, ...otherTags],
    'x-tagGroups': tagGroups(usedTags),
    paths,
    components: {
      schemas: mergeSchemas(components.schemas, responseSchemas()),
      responses: errorResponses(),
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: 'oauth2',
          description: `OAuth 2.0 client credentials. \`POST\` the form body \`grant_type=client_credentials\` to the token URL with the client ID and secret as HTTP Basic credentials; the answer is \`{access_token, token_type: "Bearer", expires_in: ${TOKEN_VALIDITY_SECONDS}}\`. Send the access token as \`Authorization: Bearer <token>\`; tokens are valid ${TOKEN_VALIDITY_SECONDS / 3600} hours and carry the scope \`${scope}\`, which every operation requires but the health check (\`GET ${HEALTH.path}\`, no token).`,
          flows: { clientCredentials: { tokenUrl, scopes: { [scope]: 'Call the Scheduled Payments API' } } },
        },
      },
    },
    security,
  };
}
