/** One route → one operation: parameters, request body, responses, tag and notes. */
import { XLSX_MEDIA_TYPE } from '#contract/media-types';
import { pathParamNames } from '#contract/params';
import { routes, type ErrorStatus, type Route } from '#contract/routes/index';
import { codeSamples } from './code-samples';
import type { SchemaComponents } from './components';
import { responseSchema } from './components';
import { COMMON_ERRORS, ERROR_RESPONSES } from './errors';
import { badRequest, examplesOf } from './examples';
import { parametersOf, takesKey } from './parameters';
import { json, type MediaTypeObject, type OperationObject } from './types';

/** `application/json` content: the schema, with named examples when there are any. */
const content = (schema: MediaTypeObject['schema'], examples?: MediaTypeObject['examples']) => ({
  'application/json': { schema, ...(examples && { examples }) },
});

/** The next-page header of a paged CSV or spreadsheet answer (Route.csv, Route.spreadsheet). */
const LINK_HEADER = {
  Link: {
    description:
      'CSV and spreadsheet pages only: `<?cursor=…>; rel="next"` while more pages follow (absent on the last page and on JSON answers).',
    schema: { type: 'string' },
  },
};

export const TAGS: Record<string, { name: string; description: string }> = {
  groups: {
    name: 'Groups',
    description: 'Payment groups: payments processed together at one UTC date and hour.',
  },
  payments: { name: 'Payments', description: 'Scheduled payments of a group.' },
  series: {
    name: 'Series',
    description:
      "Recurring groups in the merchant's own time zone: a group created for each occurrence, its UTC hour following daylight saving time.",
  },
  payors: { name: 'Payors', description: 'Customer payment profiles.' },
  methods: { name: 'Saved payment methods', description: 'Tokenized cards and bank accounts of a payor.' },
  transactions: { name: 'Transactions', description: 'Sales with saved methods, voids and refunds.' },
  triggers: {
    name: 'Processing',
    description:
      'Processing groups, and running their scheduled retries, now instead of at their scheduled hour (non-production, test MIDs).',
  },
  settings: {
    name: 'Settings',
    description: "The merchant's settings: the retry policy of its groups that have none of their own.",
  },
  disputes: {
    name: 'Disputes',
    description:
      "Card holders' disputes of charges, as the processor reports them: opened, updated, won or lost.",
  },
  'return-rates': {
    name: 'Return rates',
    description: "The merchant's bank-debit return rates against Nacha's limits.",
  },
  events: {
    name: 'Events',
    description:
      'What changed, newest first: every event the service announces, also sent to webhook endpoints.',
  },
  health: {
    name: 'Health',
    description: 'Whether the API takes requests, for uptime checks: no token, no data.',
  },
  webhooks: {
    name: 'Webhooks',
    description:
      'Endpoints that receive the events, signed as Standard Webhooks 1.0 describes; their deliveries and replays.',
  },
  aliases: {
    name: 'Deprecated aliases',
    description:
      'The older `.../groups/{GroupID}/transactions` paths of the payment operations: identical to `.../payments`, still answered, deprecated. The reference page leaves them out of its menu (no tag group names this tag; docs/decisions.md "Code samples and the base URL of the docs page").',
  },
};

/**
 * The menu of the reference page (`x-tagGroups`, which Redoc honours): every tag but the
 * deprecated aliases', which no group names, so that the page leaves them out.
 */
export const TAG_GROUPS: readonly { name: string; tags: readonly string[] }[] = [
  {
    name: 'Scheduled payments',
    tags: [
      TAGS.groups!.name,
      TAGS.payments!.name,
      TAGS.series!.name,
      TAGS.triggers!.name,
      TAGS.settings!.name,
    ],
  },
  { name: 'Payors and transactions', tags: [TAGS.payors!.name, TAGS.methods!.name, TAGS.transactions!.name] },
  { name: 'Money that comes back', tags: [TAGS.disputes!.name, TAGS['return-rates']!.name] },
  { name: 'Events and webhooks', tags: [TAGS.events!.name, TAGS.webhooks!.name] },
  { name: 'Service', tags: [TAGS.health!.name] },
];

export function tagOf(route: Route): string {
  if (route.aliasOf !== undefined) return TAGS.aliases!.name;
  const dir = route.handler.split('/')[0] ?? route.handler;
  return TAGS[dir]?.name ?? dir.charAt(0).toUpperCase() + dir.slice(1);
}

const byId: ReadonlyMap<string, Route> = new Map(Object.values(routes).map((r: Route) => [r.id, r]));

/** The route `route` is an identical alias of, if any. */
function aliasTarget(route: Route): Route | undefined {
  if (route.aliasOf === undefined) return undefined;
  const target = byId.get(route.aliasOf);
  if (!target) throw new Error(`route ${route.id} is an alias of unknown route ${route.aliasOf}`);
  return target;
}

function requestBodyOf(route: Route, components: SchemaComponents): OperationObject['requestBody'] {
  const body = route.body;
  if (!body) return undefined;
  // Properties validated in code are narrowed in the component itself (SchemaComponents).
  const schema = components.refTo(body.schema, `${route.id}Request`);
  return {
    ...(body.description !== undefined && { description: body.description }),
    required: body.optional !== true,
    content: content(schema, examplesOf(route).requests),
  };
}

function responsesOf(route: Route): OperationObject['responses'] {
  if (route.status !== 204 && !route.response) {
    throw new Error(`route ${route.id} answers ${route.status} but declares no response schema`);
  }
  const errors = new Set<ErrorStatus>([...COMMON_ERRORS, ...(route.errors ?? [])]);
  if (pathParamNames(route.path).some((p) => p !== 'MID')) errors.add(404);
  if (takesKey(route)) [409, 422].forEach((s) => errors.add(s as ErrorStatus));
  const { response: example, otherResponses } = examplesOf(route);
  const replayed = takesKey(route) && {
    headers: {
      'Idempotent-Replayed': {
        description:
          '`true` when this is the stored answer to an earlier request with the same Idempotency-Key.',
        schema: { type: 'string', enum: ['true'] },
      },
    },
  };
  const responses: OperationObject['responses'] = {
    [String(route.status)]:
      route.status === 204 || !route.response
        ? { description: 'Done; no body.' }
        : {
            description: route.response.description,
            ...replayed,
            ...(route.csv && { headers: LINK_HEADER }),
            ...(route.link && {
              headers: { Link: { description: route.link.description, schema: { type: 'string' } } },
            }),
            content: {
              ...content(
                responseSchema(route.response.schema),
                example && { success: example, ...otherResponses },
              ),
              ...(route.csv && {
                'text/csv': { schema: { type: 'string', description: route.csv.description } },
              }),
              ...(route.spreadsheet && {
                [XLSX_MEDIA_TYPE]: {
                  schema: { type: 'string', format: 'binary', description: route.spreadsheet.description },
                },
              }),
            },
          },
  };
  if (route.accepted) {
    responses['202'] = {
      description: route.accepted.description,
      content: json(responseSchema(route.accepted.schema)),
    };
  }
  for (const status of [...errors].sort((a, b) => a - b)) {
    // The 400 carries the operation's own example; a 409 may have its own body; the others are shared.
    responses[String(status)] =
      status === 400
        ? badRequest(route)
        : status === 409 && route.conflict
          ? { description: route.conflict.description, content: json(responseSchema(route.conflict.schema)) }
          : { $ref: `#/components/responses/${ERROR_RESPONSES[status].name}` };
  }
  return responses;
}

/** The URLs the code samples name: the document's base URL and token endpoint. */
interface SampleUrls {
  baseUrl: string;
  tokenUrl: string;
}

/** The deprecated aliases of `route` (the routes that repeat it under another path). */
const aliasesOf = (route: Route): Route[] => [...byId.values()].filter((r) => r.aliasOf === route.id);

export function operationOf(
  route: Route,
  components: SchemaComponents,
  security: Record<string, string[]>[],
  urls: SampleUrls,
): OperationObject {
  const alias = aliasTarget(route);
  const aliases = aliasesOf(route);
  const notes = [
    route.nonProdOnly ? '**Non-production only**: in production this operation answers 403.' : undefined,
    alias
      ? `**Deprecated**: identical alias of \`${alias.method} ${alias.path}\` (${alias.id}); it keeps working, use that path.`
      : undefined,
  ].filter((n): n is string => n !== undefined);
  const aliasNote =
    aliases.length > 0
      ? `Also answered, identically, at the deprecated ${aliases.map((a) => `\`${a.method} ${a.path}\``).join(', ')}.`
      : undefined;
  const responses = responsesOf(route); // first: a missing response schema is the error to report
  const parameters = parametersOf(route);
  const requestBody = requestBodyOf(route, components);
  return {
    operationId: route.id,
    summary: route.summary,
    description: [...notes, route.description, ...(aliasNote ? [aliasNote] : [])].join('\n\n'),
    tags: [tagOf(route)],
    parameters,
    ...(requestBody && { requestBody }),
    responses,
    security,
    ...(alias && { deprecated: true as const }),
    'x-codeSamples': codeSamples(route, urls.baseUrl, urls.tokenUrl),
    ...(route.nonProdOnly && { 'x-non-production-only': true as const }),
  };
}
