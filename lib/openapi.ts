/**
 * The OpenAPI 3.0.3 document of the service, built from the route table (lib/routes.ts) and the
 * JSON Schemas the handlers validate with (lambdas/shared/schemas.ts). Response schemas are
 * written here by hand, next to the views they describe (groupView, paymentView, payorView,
 * methodView, transactionView, refundView); test/unit/openapi.test.ts checks them against the
 * views' output.
 *
 * The generator is generic: every route becomes one operation (operationId = route id). What a
 * route needs here besides its entry in lib/routes.ts:
 * - `operationDocs[id]`: its description and, unless it answers 204, its success body;
 * - `requestBodies[id]`, when it takes a body (no entry: no body);
 * - `queryParameters[id]`, when it reads query parameters (no entry: none).
 * An alias route (the handler and method of an earlier route) falls back to that route's entries.
 * Path parameters come from the `{Name}` placeholders and `pathParameters`.
 *
 * Validator schemas are translated, not copied: the custom ajv keyword `maxDecimals: 2` becomes
 * `multipleOf: 0.01`, and keywords OpenAPI 3.0 lacks (`propertyNames`, `$comment`, ...) are
 * dropped (a `propertyNames` limit is kept as words in the description).
 */
import packageJson from '../package.json';
import { TEST_MID_RANGE } from '#core/triggers';
import { DECLINE_CATEGORY_DESCRIPTIONS, DECLINE_CODES } from '#domain/declines';
import {
  addPaymentSchema,
  bulkSearchSchema,
  cardMethodSchema,
  checkingMethodSchema,
  createGroupSchema,
  createPayorSchema,
  DEFAULT_PAGE_SIZE,
  inlinePaymentSchema,
  listGroupsQuerySchema,
  MAX_METHODS_PER_PAYOR,
  MAX_PAGE_SIZE,
  MAX_PAYMENTS_PER_CREATE,
  midPattern,
  refundSchema,
  saleSchema,
  searchPayorsQuerySchema,
  triggerMerchantSchema,
  updateGroupSchema,
  updateMethodSchema,
  updatePaymentSchema,
  updatePayorSchema,
  voidOrRefundSchema,
} from '#shared/schemas';
import { routes, type Route } from './routes';
import { apiScope, scopeHost, TOKEN_VALIDITY_SECONDS, type Stage } from '../contract/stage';

// ---- Types (the parts of OpenAPI 3.0.3 this document uses) ----

/** A JSON Schema as the validators compile it (ajv, with the custom `maxDecimals`). */
export type JsonSchema = object;
/** An OpenAPI 3.0 Schema Object or Reference Object. */
export type SchemaObject = { [keyword: string]: unknown };

export interface ParameterObject {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  description?: string;
  schema: SchemaObject;
  example?: unknown;
}

export interface MediaTypeObject {
  schema: SchemaObject;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, { description: string; schema: SchemaObject }>;
  content?: Record<string, MediaTypeObject>;
}

export type ReferenceObject = { $ref: string };

export interface OperationObject {
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  parameters: ParameterObject[];
  requestBody?: { description?: string; required: boolean; content: Record<string, MediaTypeObject> };
  responses: Record<string, ResponseObject | ReferenceObject>;
  security: Record<string, string[]>[];
  'x-non-production-only'?: true;
}

export type HttpVerb = 'get' | 'put' | 'post' | 'delete';
export type PathItemObject = Partial<Record<HttpVerb, OperationObject>>;

export interface OpenApiDocument {
  openapi: '3.0.3';
  info: { title: string; version: string; description: string };
  servers: {
    url: string;
    description: string;
    variables?: Record<string, { default: string; description: string }>;
  }[];
  tags: { name: string; description?: string }[];
  paths: Record<string, PathItemObject>;
  components: {
    schemas: Record<string, SchemaObject>;
    responses: Record<string, ResponseObject>;
    securitySchemes: Record<string, SecuritySchemeObject>;
  };
  security: Record<string, string[]>[];
}

export interface SecuritySchemeObject {
  type: 'oauth2';
  description: string;
  flows: { clientCredentials: { tokenUrl: string; scopes: Record<string, string> } };
}

export interface OpenApiOptions {
  /**
   * Base URL of the API ({base_url}: the stack output `ApiUrl`, or the local runtime's address).
   * @default - two servers: the deployed API's URL template and the local runtime
   */
  serverUrl?: string;
  /**
   * The OAuth 2.0 token endpoint (the stack output `TokenUrl`).
   * @default - the local runtime's `http://127.0.0.1:3000/oauth2/token`
   */
  tokenUrl?: string;
}

/** Name of the security scheme every operation requires. */
export const SECURITY_SCHEME = 'oauth2ClientCredentials';
export const LOCAL_BASE_URL = 'http://127.0.0.1:3000';

const ref = (name: string): ReferenceObject => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: SchemaObject) => ({ 'application/json': { schema } });

// ---- Translating validator schemas ----

/** Schema Object keywords of OpenAPI 3.0.3 kept as they are (subschema keywords are walked). */
const KEPT_KEYWORDS = new Set([
  'title',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
  'required',
  'enum',
  'type',
  'description',
  'format',
  'default',
  'nullable',
  'readOnly',
  'writeOnly',
  'example',
  'deprecated',
]);

/** `maxDecimals: n` → `multipleOf: 10^-n` (0.01 for money). */
const decimalStep = (decimals: number): number => Number(`1e-${decimals}`);

/**
 * An OpenAPI 3.0 Schema Object equivalent to a validator's JSON Schema, as far as OpenAPI can say
 * it. `refFor` names subschemas that are emitted as components of their own (a `$ref` replaces
 * them); the root is always translated. The input is never modified.
 */
export function toOpenApiSchema(
  schema: JsonSchema,
  refFor: (subschema: object) => string | undefined = () => undefined,
): SchemaObject {
  const sub = (value: unknown): SchemaObject => {
    const name = typeof value === 'object' && value !== null ? refFor(value) : undefined;
    return name !== undefined ? ref(name) : toOpenApiSchema(value as JsonSchema, refFor);
  };
  const out: SchemaObject = {};
  const notes: string[] = [];
  for (const [keyword, value] of Object.entries(schema)) {
    switch (keyword) {
      case 'maxDecimals':
        out.multipleOf = decimalStep(value as number);
        break;
      case 'properties':
        out.properties = Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, sub(v)]));
        break;
      case 'items':
        // A tuple (array form) has no OpenAPI 3.0 equivalent: any of the listed item schemas.
        out.items = Array.isArray(value) ? { anyOf: value.map(sub) } : sub(value);
        break;
      case 'additionalProperties':
        out.additionalProperties = typeof value === 'boolean' ? value : sub(value);
        break;
      case 'allOf':
      case 'anyOf':
      case 'oneOf':
        out[keyword] = (value as unknown[]).map(sub);
        break;
      case 'not':
        out.not = sub(value);
        break;
      case 'const':
        out.enum = [value];
        break;
      case 'examples':
        if (Array.isArray(value) && value.length > 0) out.example = value[0];
        break;
      case 'type':
        if (Array.isArray(value)) {
          const types = value.filter((t) => t !== 'null');
          if (types.length !== value.length) out.nullable = true;
          if (types.length === 1) out.type = types[0];
        } else {
          out.type = value;
        }
        break;
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        // Draft 6+ numbers; OpenAPI 3.0 (draft 4) has booleans next to minimum/maximum.
        if (typeof value === 'number') {
          out[keyword === 'exclusiveMinimum' ? 'minimum' : 'maximum'] = value;
          out[keyword] = true;
        } else {
          out[keyword] = value;
        }
        break;
      case 'propertyNames': {
        const names = value as { maxLength?: number; pattern?: string };
        if (names.maxLength !== undefined) notes.push(`Keys are at most ${names.maxLength} characters.`);
        if (names.pattern !== undefined) notes.push(`Keys match \`${names.pattern}\`.`);
        break;
      }
      case '$ref':
        throw new Error('validator schemas with $ref cannot be translated; inline the subschema');
      default:
        if (KEPT_KEYWORDS.has(keyword) || keyword.startsWith('x-')) {
          out[keyword] = Array.isArray(value) ? [...(value as unknown[])] : value;
        }
      // Anything else ($schema, $id, $comment, definitions, ajv keywords...) has no place here.
    }
  }
  if (notes.length > 0) {
    out.description = [out.description, ...notes].filter((s) => typeof s === 'string' && s !== '').join(' ');
  }
  return out;
}

// ---- Request bodies, query parameters, path parameters ----

/** A new saved method: a card or a bank account, told apart by `accountType`. */
export const newMethodSchemas = [cardMethodSchema, checkingMethodSchema] as const;

/**
 * Validator schemas (and one-of lists of them) emitted as named components, so that bodies which
 * share them share the component. Bodies of unlisted schemas get `<route id>Request`.
 */
export const schemaComponentNames: ReadonlyMap<object, string> = new Map<object, string>([
  [createGroupSchema, 'CreateGroupRequest'],
  [inlinePaymentSchema, 'NewGroupPayment'],
  [updateGroupSchema, 'UpdateGroupRequest'],
  [addPaymentSchema, 'AddPaymentRequest'],
  [updatePaymentSchema, 'UpdatePaymentRequest'],
  [addPaymentSchema.properties.fees.items, 'Fee'],
  [addPaymentSchema.properties.customAttributes, 'CustomAttributes'],
  [createPayorSchema, 'CreatePayorRequest'],
  [updatePayorSchema, 'UpdatePayorRequest'],
  [bulkSearchSchema, 'BulkSearchPayorsRequest'],
  [newMethodSchemas, 'NewSavedPaymentMethod'],
  [cardMethodSchema, 'NewCardMethod'],
  [checkingMethodSchema, 'NewCheckingMethod'],
  [updateMethodSchema, 'UpdateMethodRequest'],
  [cardMethodSchema.properties.billingAddress, 'BillingAddress'],
  [createPayorSchema.properties.customerData, 'CustomerData'],
  [saleSchema, 'SaleRequest'],
  [refundSchema, 'RefundRequest'],
  [voidOrRefundSchema, 'VoidOrRefundRequest'],
  [triggerMerchantSchema, 'ProcessMerchantRequest'],
]);

export interface RequestBodyDoc {
  /** The schema object the handler validates with; a list: the body is one of them (oneOf). */
  readonly schema: JsonSchema | readonly JsonSchema[];
  /** The body may be left out (the handler accepts an empty body). @default false */
  readonly optional?: boolean;
  readonly description?: string;
  /**
   * Properties the schema lets through as any object and the handler validates in code against
   * these schemas (one of them): documented as that oneOf.
   */
  readonly validatedInCode?: Readonly<Record<string, readonly JsonSchema[]>>;
}

/**
 * Request body of each route, by route id. No entry: the route takes no body (an alias route,
 * one with the handler and method of an earlier route, falls back to that route's entry).
 */
export const requestBodies: Readonly<Partial<Record<string, RequestBodyDoc>>> = {
  CreateGroup: { schema: createGroupSchema },
  UpdateGroup: { schema: updateGroupSchema },
  AddPayment: { schema: addPaymentSchema },
  UpdatePayment: { schema: updatePaymentSchema },
  CreatePayor: { schema: createPayorSchema, validatedInCode: { paymentMethod: newMethodSchemas } },
  UpdatePayor: { schema: updatePayorSchema },
  BulkSearchPayors: { schema: bulkSearchSchema },
  AddMethod: { schema: newMethodSchemas },
  UpdateMethod: { schema: updateMethodSchema },
  CreateSale: { schema: saleSchema },
  RefundTransaction: { schema: refundSchema },
  VoidOrRefundGroup: { schema: voidOrRefundSchema, optional: true },
  ProcessMerchant: { schema: triggerMerchantSchema, optional: true },
};

export interface QueryDoc {
  /** The schema the handler validates the query parameters with (one property per parameter). */
  readonly schema: JsonSchema;
  /**
   * Per parameter: words, and the schema to show instead of the validator's (query values arrive
   * as strings matched by a pattern; the range is checked in code).
   */
  readonly parameters?: Readonly<
    Record<string, { readonly description?: string; readonly schema?: SchemaObject }>
  >;
}

const groupListQuery: QueryDoc = {
  schema: listGroupsQuerySchema,
  parameters: {
    date: { description: 'Only groups scheduled on this UTC date (yyyy-MM-dd).' },
    time: {
      description: 'Only groups scheduled at this UTC hour (0-23).',
      schema: { type: 'integer', minimum: 0, maximum: 23 },
    },
    locationID: {
      description: 'Only groups of this location.',
      schema: { type: 'integer', minimum: 0, maximum: 2147483647 },
    },
    pageNumber: {
      description: `1-based page. Given alone, pageSize is ${DEFAULT_PAGE_SIZE}; either paging parameter returns the paged envelope.`,
      schema: { type: 'integer', minimum: 1, maximum: 999999999 },
    },
    pageSize: {
      description: `Items per page, 1-${MAX_PAGE_SIZE} (above: 400). Given alone, pageNumber is 1; either paging parameter returns the paged envelope.`,
      schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE },
    },
  },
};

/** Query parameters of each route, by route id. No entry: none. */
export const queryParameters: Readonly<Partial<Record<string, QueryDoc>>> = {
  ListPendingGroups: groupListQuery,
  ListGroups: groupListQuery,
  SearchPayors: {
    schema: searchPayorsQuerySchema,
    parameters: { customerAccountId: { description: "The integrator's customer ID (exact match)." } },
  },
};

const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const uuidParameter = (what: string) => ({
  description: `${what} (a UUID; any letter case). Malformed: 400.`,
  schema: { type: 'string', format: 'uuid', pattern: UUID_PATTERN },
  example: '01890a5d-ac96-774b-bcce-b302099a8057',
});

/** Every path parameter name a route may use, as http.ts checks it. */
export const pathParameters: Readonly<
  Record<string, { readonly description: string; readonly schema: SchemaObject; readonly example: string }>
> = {
  MID: {
    description:
      'Merchant ID: 11 digits, or the 8-digit short form of an 11-digit MID. Malformed: 400; unknown, or not a merchant this client is authorized for: 403.',
    schema: { type: 'string', pattern: midPattern },
    example: '32350000001',
  },
  GroupID: uuidParameter('Payment group ID (`paymentGroupId`)'),
  PaymentID: uuidParameter('Payment ID (`paymentId`); on the `/transactions` alias paths the same ID'),
  PayorID: uuidParameter('Payor ID (`payorId`)'),
  PaymentMethodID: uuidParameter('Saved payment method ID (`savedPaymentMethodId`)'),
  TransactionID: uuidParameter('Transaction ID (`transactionId`)'),
};

// ---- Response schemas (hand-written, next to the views) ----

const money = (description: string, minimum = 0): SchemaObject => ({
  type: 'number',
  minimum,
  multipleOf: 0.01,
  description: `${description} A JSON number with at most 2 decimals (integer cents inside the service).`,
});
const uuid = (description?: string): SchemaObject => ({
  type: 'string',
  format: 'uuid',
  ...(description !== undefined && { description }),
});
const dateTime = (description: string): SchemaObject => ({
  type: 'string',
  format: 'date-time',
  description: `${description} UTC (ISO 8601, \`Z\`).`,
});
const integer = (description: string, minimum = 0): SchemaObject => ({
  type: 'integer',
  minimum,
  description,
});
const object = (
  required: string[],
  properties: Record<string, SchemaObject>,
  description?: string,
): SchemaObject => ({
  type: 'object',
  ...(description !== undefined && { description }),
  required,
  properties,
});

const declineCategory = {
  type: 'string',
  enum: ['1', '2'],
  description: `Declined transactions only. 1: ${DECLINE_CATEGORY_DESCRIPTIONS['1']}. 2: ${DECLINE_CATEGORY_DESCRIPTIONS['2']}.`,
};

/** The fields of transactionView (with the built-in protections), shared by Transaction and AuthResponse. */
const transactionFields: Record<string, SchemaObject> = {
  transactionId: uuid(),
  type: { type: 'string', enum: ['sale'] },
  status: { type: 'string', enum: ['Approved', 'Declined', 'Voided'] },
  responseCode: {
    type: 'string',
    description:
      'Processor code: `00` approved, `10` partial approval, `19` duplicate; see the decline table.',
  },
  responseMessage: { type: 'string', description: 'Reason text.' },
  declineCategory,
  declineCategoryDescription: {
    type: 'string',
    description: 'Text for declineCategory (declined transactions only).',
  },
  isDuplicate: { type: 'boolean', description: 'true when rejected as a duplicate (responseCode 19).' },
  originalTransactionId: uuid('Duplicates only: the earlier transaction this one duplicates.'),
  amount: money('Requested amount.'),
  approvedAmount: money('Charged amount: less than amount on a partial approval; 0 when declined.'),
  authCode: { type: 'string', description: 'Approved transactions only.' },
  originalAmount: money('Amount originally charged (approvedAmount).'),
  refundedAmount: money('Completed plus pending refunds.'),
  availableRefundAmount: money(
    'originalAmount minus completed and pending refunds (failed ones are not counted); 0 unless Approved.',
  ),
  refundCount: integer('Number of refunds (completed and pending).'),
  refundHistory: { type: 'array', items: ref('RefundHistoryItem') },
  profileId: { type: 'string', description: '`{payorId}/{savedPaymentMethodId}` charged.' },
  accountType: { type: 'string', enum: ['VISA', 'MASTERCARD', 'AMEX', 'DISCOVER', 'CHECKING'] },
  maskedAccountNumber: { type: 'string', description: 'All but the last four digits masked.' },
  orderId: { type: 'string' },
  paymentId: uuid('The scheduled payment this sale charged, when it came from a group.'),
  processedAt: dateTime('When the processor answered.'),
  settled: { type: 'boolean', description: 'Settled sales are refunded; unsettled ones are voided.' },
  settlementTime: dateTime('Settlement cut-off of an approved, unvoided sale.'),
  voidedAt: dateTime('When the sale was voided.'),
};

const responseSchemas: Record<string, SchemaObject> = {
  Error: object(
    ['message', 'responseCode'],
    {
      message: {
        type: 'string',
        description:
          'What was wrong, naming the field (e.g. `payments[3].amount must have at most 2 decimal places`).',
      },
      responseCode: { type: 'integer', description: 'The HTTP status, repeated.', example: 400 },
    },
    'The body of every error response.',
  ),
  Group: {
    type: 'object',
    description:
      'A payment group (groupView). transactionInitiator, surchargeCompliance, allowPartial, dateCreated and lastUpdated are always present in this service, but SPEC.md lets list items omit them: readers must tolerate their absence.',
    required: [
      'paymentGroupId',
      'servicePayId',
      'scheduleDate',
      'scheduleHour',
      'locationId',
      'status',
      'deleted',
      'paymentCount',
      'totalAmount',
    ],
    properties: {
      paymentGroupId: uuid(),
      servicePayId: {
        type: 'string',
        pattern: '^\\d{11}$',
        description: 'The 11-digit merchant ID (also when the path used the 8-digit form).',
      },
      scheduleDate: { type: 'string', format: 'date', description: 'UTC date of processing (yyyy-MM-dd).' },
      scheduleHour: { type: 'integer', minimum: 0, maximum: 23, description: 'UTC hour of processing.' },
      locationId: { type: 'integer', minimum: 0 },
      transactionInitiator: { type: 'string', enum: ['Merchant', 'Consumer'] },
      surchargeCompliance: { type: 'boolean' },
      allowPartial: { type: 'boolean' },
      status: {
        type: 'string',
        enum: ['pending', 'processing', 'processed', 'deleted'],
        description:
          'pending → processing → processed; deleted after DELETE (a soft delete: the group stays readable).',
      },
      deleted: { type: 'boolean', description: 'true exactly when status is deleted. Set only by DELETE.' },
      paymentCount: integer('Number of non-deleted payments.'),
      totalAmount: money('Sum of the non-deleted payments, exact.'),
      dateCreated: dateTime('Creation time.'),
      lastUpdated: dateTime('Last update time.'),
      processingSummary: object(
        [
          'approvedCount',
          'partialCount',
          'declinedCount',
          'failedCount',
          'skippedCount',
          'approvedAmount',
          'processedAt',
        ],
        {
          approvedCount: integer('Payments approved (partial approvals included).'),
          partialCount: integer('Payments approved for less than their amount.'),
          declinedCount: integer('Payments declined (duplicates included).'),
          failedCount: integer(
            'Payments that could not be charged after retries (authResponse status Failed).',
          ),
          skippedCount: integer('Deleted payments (never processed).'),
          approvedAmount: money('Sum charged.'),
          processedAt: dateTime('When processing completed.'),
        },
        'Present once the group is processed.',
      ),
    },
  },
  GroupWithPayments: {
    allOf: [
      ref('Group'),
      object(['payments'], {
        payments: {
          type: 'array',
          items: ref('Payment'),
          description: 'The payments created, each with its paymentId.',
        },
      }),
    ],
  },
  GroupList: {
    type: 'array',
    items: ref('Group'),
    description: 'Without paging parameters: every matching group.',
  },
  GroupPage: object(
    ['meta', 'items'],
    {
      meta: object(['page', 'pageSize', 'totalItems', 'totalPages'], {
        page: integer('The page returned (pageNumber).', 1),
        pageSize: integer('Items per page.', 1),
        totalItems: integer('Matching groups in all pages.'),
        totalPages: integer('ceil(totalItems / pageSize); 0 when nothing matches.'),
      }),
      items: { type: 'array', items: ref('Group'), description: 'This page; [] for a page past the end.' },
    },
    'The paged envelope: with pageNumber and/or pageSize.',
  ),
  Payment: object(
    [
      'paymentId',
      'paymentGroupId',
      'profileId',
      'amount',
      'recurring',
      'sendEmailReceipt',
      'sendPaymentScheduledNotification',
      'deleted',
      'dateCreated',
      'lastUpdated',
      'authResponse',
    ],
    {
      paymentId: uuid(),
      paymentGroupId: uuid(),
      profileId: {
        type: 'string',
        description: '`{payorId}/{savedPaymentMethodId}` of a payor of the same merchant.',
      },
      amount: money('Scheduled amount.', 0.01),
      orderId: { type: 'string', description: 'Present when given.' },
      recurring: { type: 'boolean' },
      allowPartial: {
        type: 'boolean',
        description: 'Present when given; otherwise the group setting applies.',
      },
      sendEmailReceipt: { type: 'boolean' },
      sendPaymentScheduledNotification: { type: 'boolean', description: 'Immutable after creation.' },
      customAttributes: ref('CustomAttributes'),
      fees: {
        type: 'array',
        items: ref('Fee'),
        description: 'Present when given. A breakdown for reporting; the charge is amount.',
      },
      deleted: {
        type: 'boolean',
        description: 'true after a soft delete; a deleted payment is never processed.',
      },
      dateCreated: dateTime('Creation time.'),
      lastUpdated: dateTime('Last update time.'),
      authResponse: {
        // OpenAPI 3.0.3: `nullable` works only next to `type`, so a nullable $ref is a oneOf with null.
        oneOf: [ref('AuthResponse'), { type: 'object', nullable: true, enum: [null] }],
        description: 'null until the group is processed; then the sale transaction of this payment.',
      },
      voidOrRefundResponses: {
        type: 'array',
        items: ref('VoidOrRefundResponse'),
        description: 'Present after a void-or-refund.',
      },
    },
    'A scheduled payment (paymentView).',
  ),
  AuthResponse: object(
    ['status', 'responseCode', 'responseMessage', 'isDuplicate', 'amount', 'approvedAmount', 'processedAt'],
    {
      ...transactionFields,
      transactionId: uuid('The sale (GET it for current refund fields). Absent when status is Failed.'),
      status: {
        type: 'string',
        enum: ['Approved', 'Declined', 'Failed'],
        description:
          'Failed: the payment could not be charged after retries (responseCode 96, declineCategory 2, no transactionId).',
      },
    },
    'The sale that charged a scheduled payment, as a Transaction at processing time (its refund fields are not updated later).',
  ),
  VoidOrRefundResponse: object(
    ['type', 'transactionId', 'status', 'amount', 'date'],
    {
      type: { type: 'string', enum: ['Void', 'Refund'] },
      transactionId: uuid(
        'Void: the voided sale. Refund: the refund (its refundId in the sale’s refundHistory).',
      ),
      status: {
        type: 'string',
        enum: ['Voided', 'Pending', 'Completed', 'Failed'],
        description: 'Voided for a void; the refund status for a refund.',
      },
      amount: money('Amount voided or refunded.'),
      responseCode: { type: 'string', description: 'Processor code, once the processor answered.' },
      responseMessage: { type: 'string' },
      date: dateTime('When it happened.'),
    },
    'One reversal of a scheduled payment, recorded by void-or-refund.',
  ),
  Payor: object(
    [
      'payorId',
      'customerAccountId',
      'customerAccountType',
      'sponsorKey',
      'customerData',
      'email',
      'defaultPaymentMethodId',
      'savedPaymentMethods',
      'dateCreated',
      'lastUpdated',
    ],
    {
      payorId: uuid(),
      customerAccountId: {
        type: 'string',
        maxLength: 50,
        nullable: true,
        description: "The integrator's customer ID, unique per merchant; null when not set.",
      },
      customerAccountType: { type: 'string', maxLength: 50, nullable: true },
      sponsorKey: { type: 'string', maxLength: 8, nullable: true },
      customerData: ref('CustomerData'),
      email: {
        type: 'string',
        format: 'email',
        nullable: true,
        description: 'Where notices and receipts go; null when not set.',
      },
      defaultPaymentMethodId: uuid('The one default saved method.'),
      savedPaymentMethods: { type: 'array', minItems: 1, items: ref('SavedPaymentMethod') },
      dateCreated: dateTime('Creation time.'),
      lastUpdated: dateTime('Last update time.'),
    },
    'A payor (payorView): a customer payment profile with one or more saved methods.',
  ),
  SavedPaymentMethod: object(
    [
      'savedPaymentMethodId',
      'payorId',
      'accountType',
      'maskedAccountNumber',
      'billingAddress',
      'isDefault',
      'customerData',
      'dateCreated',
      'lastUpdated',
    ],
    {
      savedPaymentMethodId: uuid(),
      payorId: uuid(),
      accountType: { type: 'string', enum: ['VISA', 'MASTERCARD', 'AMEX', 'DISCOVER', 'CHECKING'] },
      maskedAccountNumber: {
        type: 'string',
        pattern: '^\\**[0-9]{4}$',
        description: 'All but the last four digits masked with `*`. Full numbers are never returned.',
        example: '************1111',
      },
      expiryMonth: { type: 'integer', minimum: 1, maximum: 12, description: 'Cards only.' },
      expiryYear: { type: 'integer', minimum: 2000, maximum: 2099, description: 'Cards only.' },
      billingAddress: ref('BillingAddress'),
      isDefault: { type: 'boolean', description: 'Exactly one method of a payor is the default.' },
      customerData: ref('CustomerData'),
      dateCreated: dateTime('Creation time.'),
      lastUpdated: dateTime('Last update time.'),
    },
    'A saved payment method (methodView).',
  ),
  Transaction: object(
    [
      'transactionId',
      'type',
      'status',
      'responseCode',
      'responseMessage',
      'isDuplicate',
      'amount',
      'approvedAmount',
      'originalAmount',
      'refundedAmount',
      'availableRefundAmount',
      'refundCount',
      'refundHistory',
      'profileId',
      'processedAt',
      'settled',
    ],
    transactionFields,
    'A transaction with the fields of the built-in protections (transactionView).',
  ),
  RefundHistoryItem: object(['refundId', 'amount', 'status', 'date'], {
    refundId: uuid(),
    amount: money('Refund amount.', 0.01),
    status: { type: 'string', enum: ['Pending', 'Completed', 'Failed'] },
    date: dateTime('When the refund was requested.'),
  }),
  Refund: object(
    ['refundId', 'transactionId', 'amount', 'status', 'date', 'availableRefundAmount'],
    {
      refundId: uuid(),
      transactionId: uuid('The refunded sale.'),
      amount: money('Refund amount.', 0.01),
      status: { type: 'string', enum: ['Pending', 'Completed', 'Failed'] },
      date: dateTime('When the refund was requested.'),
      responseCode: { type: 'string', description: 'Processor code, once the processor answered.' },
      responseMessage: { type: 'string' },
      availableRefundAmount: money("The sale's remaining refundable amount after this refund."),
    },
    'A refund (refundView) with the sale’s remaining availableRefundAmount.',
  ),
  TriggerResult: object(
    ['triggeredGroups', 'totalTriggered', 'totalFailed'],
    {
      triggeredGroups: {
        type: 'array',
        items: object(['paymentGroupId'], {
          paymentGroupId: uuid(),
          executionArn: { type: 'string', description: 'Present when the run was started.' },
          error: {
            type: 'string',
            description:
              'Present when the run could not be started (e.g. the group is already processing, processed or deleted).',
          },
        }),
      },
      totalTriggered: integer('Runs started.'),
      totalFailed: integer('Groups whose run could not be started.'),
    },
    'Result of a (non-production) processing trigger.',
  ),
  VoidOrRefundResult: object(
    ['paymentGroupId', 'voidedCount', 'refundedCount', 'skippedCount', 'failedCount', 'payments'],
    {
      paymentGroupId: uuid(),
      voidedCount: integer('Payments voided (before settlement).'),
      refundedCount: integer('Payments refunded (after settlement, their available amount).'),
      skippedCount: integer(
        'Payments never charged (not processed, deleted, declined, failed), already reversed, or with nothing left to refund.',
      ),
      failedCount: integer('Reversals refused (by the processor or the rules); see reason.'),
      payments: {
        type: 'array',
        items: object(['paymentId', 'outcome'], {
          paymentId: uuid(),
          outcome: { type: 'string', enum: ['voided', 'refunded', 'skipped', 'failed'] },
          response: ref('VoidOrRefundResponse'),
          reason: { type: 'string', description: 'Why it was skipped or failed.' },
        }),
      },
    },
    'Result of a void-or-refund on a group.',
  ),
};

// ---- Per-operation documentation ----

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 429 | 500 | 503;

export interface OperationDoc {
  /** What the operation does, with the decisions SPEC.md leaves open (DESIGN.md 3). */
  readonly description: string;
  /** The success body; leave out for 204. */
  readonly response?: { readonly schema: SchemaObject; readonly description: string };
  /**
   * Error statuses besides those of every operation (400, 401, 403, 429, 500, 503; 404 when the
   * path names a resource below the merchant).
   */
  readonly errors?: readonly ErrorStatus[];
}

const LIST_BEHAVIOUR = `Filters combine (all must match). Groups come in schedule order (scheduleDate, scheduleHour), then creation order.

Response shape: without pageNumber and pageSize, a JSON **array** of every matching group. With pageNumber, pageSize or both, the **paged envelope** \`{meta, items}\`; a missing one takes its default (pageNumber 1, pageSize ${DEFAULT_PAGE_SIZE}). pageSize is at most ${MAX_PAGE_SIZE} (above: 400). A page past the end answers 200 with \`items: []\` and the true totals in meta.`;

const PENDING_ONLY =
  "Only the merchant's groups that are not deleted and not yet processed: status `pending` or `processing`.";

const PAYMENTS_EDITABLE =
  'The group must be pending: on a processing, processed or deleted group the request is refused with 400 and a message saying why, and nothing changes.';

const TRIGGER_RULES = `Non-production only (403 in production). The path MID must be an 11-digit test MID within ${TEST_MID_RANGE.from}-${TEST_MID_RANGE.to} (the 8-digit form, or any other MID, is 403).`;

const PROFILE_RULE =
  'profileId is `{payorId}/{savedPaymentMethodId}` of a saved method of a payor of this merchant; any other value is 400.';

export const operationDocs: Readonly<Partial<Record<string, OperationDoc>>> = {
  ListPendingGroups: {
    description: `${PENDING_ONLY} Same query parameters and response shapes as ListGroups.\n\n${LIST_BEHAVIOUR}`,
    response: {
      schema: { oneOf: [ref('GroupList'), ref('GroupPage')] },
      description: 'The groups: an array, or the paged envelope when paging parameters are given.',
    },
  },
  ListGroups: {
    description: `Groups in every stage: pending, processing, processed and deleted (soft-deleted groups are listed with \`deleted: true\`).\n\n${LIST_BEHAVIOUR}`,
    response: {
      schema: { oneOf: [ref('GroupList'), ref('GroupPage')] },
      description: 'The groups: an array, or the paged envelope when paging parameters are given.',
    },
  },
  CreateGroup: {
    description: `Creates a group, and with \`payments\` (up to ${MAX_PAYMENTS_PER_CREATE.toLocaleString('en-US')}) its payments, all or nothing; preferred over adding payments one by one when all are known.

- servicePayId must name the path's merchant, in either MID form; the group holds the 11-digit form.
- scheduleDate and scheduleHour are UTC (convert local time first: 5 PM at UTC-5 is scheduleHour 22). A slot earlier than the current UTC hour is 400.
- locationId is an integer >= 0. transactionInitiator defaults to \`Merchant\`; surchargeCompliance and allowPartial to false.
- Payments: ${PROFILE_RULE} recurring, sendEmailReceipt and sendPaymentScheduledNotification default to false; with sendPaymentScheduledNotification the payor is e-mailed a notice at creation.

201: the group with its \`payments\`, each with its assigned paymentId. There is no idempotency key: after a timeout or a 5xx, list the merchant's groups before sending again.`,
    response: { schema: ref('GroupWithPayments'), description: 'The group created, with its payments.' },
  },
  GetGroup: {
    description:
      'A group of this merchant, in any stage. An unknown GroupID or a group of another merchant: 404.',
    response: { schema: ref('Group'), description: 'The group.' },
  },
  UpdateGroup: {
    description: `Changes the fields present (unlike payment PUT, a partial update): scheduleDate, scheduleHour, locationId, transactionInitiator, surchargeCompliance, allowPartial. paymentGroupId and servicePayId may be sent and must then match the path.

- A body with \`deleted\` is 400: use DELETE.
- A new schedule slot earlier than the current UTC hour is 400; the new slot is used for processing.
- On a processing or processed group the update is ignored: 200 with the group unchanged (reverse processed payments with void-or-refund). On a deleted group: 400.`,
    response: { schema: ref('Group'), description: 'The group after the update (unchanged when ignored).' },
  },
  DeleteGroup: {
    description:
      'Cancels a pending group: a soft delete. The group gets status `deleted` (`deleted: true`), stays readable and listed with its payments, and is never processed. Deleting a deleted group again is a no-op 204. A processing or processed group cannot be deleted: 400 (use void-or-refund).',
  },
  ListPayments: {
    description:
      'Every payment of the group as a JSON array, in the order they were added, soft-deleted ones included (`deleted: true`). `authResponse` is null until the group is processed; `voidOrRefundResponses` appear after a void-or-refund.',
    response: { schema: { type: 'array', items: ref('Payment') }, description: 'The payments.' },
  },
  AddPayment: {
    description: `Adds one payment. paymentGroupId must match the path. ${PROFILE_RULE} ${PAYMENTS_EDITABLE}

Defaults: recurring, sendEmailReceipt and sendPaymentScheduledNotification false. With sendPaymentScheduledNotification the payor is e-mailed a notice now; the flag cannot change later. There is no idempotency key: after a timeout or a 5xx, list the group's payments before sending again.`,
    response: {
      schema: ref('Payment'),
      description: 'The payment, with paymentId assigned, deleted false and authResponse null.',
    },
  },
  GetPayment: {
    description:
      'A payment of this group and merchant, deleted or not. Not found in this group of this merchant: 404.',
    response: { schema: ref('Payment'), description: 'The payment.' },
  },
  UpdatePayment: {
    description: `Full replacement: optional fields left out take their defaults or are removed (orderId, customAttributes, fees, allowPartial removed; recurring and sendEmailReceipt false). paymentId and paymentGroupId must match the path. ${PROFILE_RULE}

- sendPaymentScheduledNotification may be left out; when sent with a value other than the stored one: 400 \`ImmutableFieldViolation: sendPaymentScheduledNotification cannot be changed after creation\`.
- sendEmailReceipt can be changed until the group is processed.
- A body with \`deleted\` is 400 (use DELETE). A deleted payment cannot be updated: 400.
- ${PAYMENTS_EDITABLE}`,
    response: { schema: ref('Payment'), description: 'The payment after the replacement.' },
  },
  DeletePayment: {
    description: `Soft delete: the payment stays listed with \`deleted: true\`, is never processed, and no longer counts in the group's paymentCount and totalAmount. Deleting it again is a no-op 204. ${PAYMENTS_EDITABLE}`,
  },
  CreatePayor: {
    description: `Creates a payor with its first saved payment method (\`paymentMethod\`), which becomes the default. All payor fields are optional; customerAccountId, when given, must not belong to another payor of this merchant (400).

A card method is \`{accountType: VISA|MASTERCARD|AMEX|DISCOVER, cardNumber, expiryMonth, expiryYear, billingAddress}\`: the number must be 12-19 digits, pass the Luhn check and be of the brand given; the expiry must not be past. A bank method is \`{accountType: CHECKING, routingNumber, accountNumber, billingAddress}\` with a valid ABA routing number and a 4-17 digit account number. Otherwise 400 (messages never echo the number). Full account numbers are never stored, logged or returned: only the masked form (all but the last four digits masked).`,
    response: { schema: ref('Payor'), description: 'The payor with its first method.' },
  },
  SearchPayors: {
    description:
      'The payor with this customerAccountId, as a JSON array of zero or one payor (no match is 200 with `[]`).',
    response: {
      schema: { type: 'array', maxItems: 1, items: ref('Payor') },
      description: 'Zero or one payor.',
    },
  },
  BulkSearchPayors: {
    description:
      'Looks up 1 to 100 customerAccountIds at once. A JSON array of the payors found, in the order asked; repeated IDs count once and IDs with no payor are left out.',
    response: {
      schema: { type: 'array', maxItems: 100, items: ref('Payor') },
      description: 'The payors found.',
    },
  },
  GetPayor: {
    description: 'A payor with its saved methods.',
    response: { schema: ref('Payor'), description: 'The payor.' },
  },
  UpdatePayor: {
    description:
      'Changes the fields present (customerAccountId, customerAccountType, sponsorKey, customerData (replaced as a whole), email). payorId may be sent and must then match the path. A customerAccountId of another payor of this merchant: 400. Saved methods are changed through their own operations.',
    response: { schema: ref('Payor'), description: 'The payor after the update.' },
  },
  DeletePayor: {
    description:
      'Deletes the payor and all its saved methods (a hard delete) and frees its customerAccountId. Scheduled payments that still name one of its methods are declined when processed (responseCode `PM`, declineCategory 1).',
  },
  ListMethods: {
    description: "The payor's saved payment methods as a JSON array; exactly one has `isDefault: true`.",
    response: {
      schema: { type: 'array', minItems: 1, items: ref('SavedPaymentMethod') },
      description: 'The methods.',
    },
  },
  AddMethod: {
    description: `Adds a saved method (a card or a CHECKING account, as in CreatePayor). The payor's default does not change unless \`setAsDefault\` is true. A payor has at most ${MAX_METHODS_PER_PAYOR} methods (400 beyond).`,
    response: { schema: ref('SavedPaymentMethod'), description: 'The method added.' },
  },
  GetMethod: {
    description: 'A saved method of this payor.',
    response: { schema: ref('SavedPaymentMethod'), description: 'The method.' },
  },
  UpdateMethod: {
    description:
      'Changes the fields present: expiryMonth/expiryYear (cards only: 400 on a CHECKING method; not in the past), billingAddress and customerData (each replaced as a whole). `setAsDefault: true` makes this method the default and clears the flag on the previous one (`false` is not accepted: make another method the default instead). Account numbers cannot change: add a new method.',
    response: { schema: ref('SavedPaymentMethod'), description: 'The method after the update.' },
  },
  DeleteMethod: {
    description:
      "Deletes a saved method. Deleting the payor's only method is refused (400). Deleting the default makes the oldest remaining method the default.",
  },
  CreateSale: {
    description: `Charges a saved method now. ${PROFILE_RULE}

201 with the transaction whether Approved or Declined: a decline is not an error (4xx is only for requests that are themselves invalid). Check \`status\`, and on a decline \`declineCategory\` (1: do not retry; 2: may retry later). With allowPartial an approval may be for less than amount (responseCode 10, approvedAmount < amount).

Duplicate check: a sale with the same merchant, exact amount and saved method as an earlier sale within 5 minutes is not sent to the processor: 201 with status Declined, responseCode 19, isDuplicate true and originalTransactionId. A declined sale does not block a retry.

idempotencyKey: sending the same key with the same body again returns the first response (same transactionId; nothing is charged again), which makes a retry after a timeout or a 5xx safe. The same key with a different body: 409. While the first request with the key is still running: 409, retry shortly.`,
    response: { schema: ref('Transaction'), description: 'The transaction, Approved or Declined.' },
    errors: [409],
  },
  GetTransaction: {
    description:
      'A transaction with its refund fields (originalAmount, refundedAmount, availableRefundAmount, refundCount, refundHistory).',
    response: { schema: ref('Transaction'), description: 'The transaction.' },
  },
  VoidTransaction: {
    description:
      'Voids an approved sale before it settles (the whole amount; no body). Voiding a voided sale returns it unchanged. A declined sale, or a settled one (refund it instead), is 400.',
    response: { schema: ref('Transaction'), description: 'The sale, status Voided.' },
  },
  RefundTransaction: {
    description: `Refunds a settled sale, whole or in part. An amount above availableRefundAmount is 400; an unsettled sale is 400 (void it instead). A refund the processor refuses ends Failed and is not counted against availableRefundAmount.

idempotencyKey: the same key with the same body returns the first response without refunding again; with a different body, 409.`,
    response: {
      schema: ref('Refund'),
      description: "The refund, with the sale's remaining availableRefundAmount.",
    },
    errors: [409],
  },
  VoidOrRefundGroup: {
    description: `Reverses the group's approved payments: each approved payment not yet reversed is voided before its settlement (the whole amount) or refunded after it (its availableRefundAmount). The reversal is recorded in the payment's \`voidOrRefundResponses\`.

- Optional body \`{paymentIds}\`: only these payments (each must be a payment of this group, else 400). No body: every payment of the group.
- Payments never charged (the group not processed yet, deleted, declined or failed), already reversed, or with nothing left to refund are skipped and counted in skippedCount; a reversal refused by the processor or the rules is counted in failedCount with a reason. Either way the answer is 200 (a pending group: everything skipped).
- Safe to repeat: a payment with a recorded reversal is skipped, so nothing is reversed twice.`,
    response: { schema: ref('VoidOrRefundResult'), description: 'Counts, and the outcome of each payment.' },
  },
  ProcessGroup: {
    description: `${TRIGGER_RULES} Processes the group now, whatever its schedule: claims it (status processing) and starts its run, whose executionArn is in the result; payments are charged and the group becomes processed within moments.

A group that is already processing, processed or deleted is still a 200: its entry carries an \`error\`, totalTriggered is 0 and totalFailed 1, and nothing is charged again. No body.`,
    response: { schema: ref('TriggerResult'), description: 'One entry, for this group.' },
  },
  ProcessMerchant: {
    description: `${TRIGGER_RULES} Processes the merchant's pending groups now, one entry per group. Optional body: \`{scheduleDate, scheduleHour}\` selects the pending groups of that UTC slot; scheduleDate alone, every pending group of that date; scheduleHour alone, pending groups at that hour on any date; no body, every pending group of the merchant. No matching group: 200 with \`triggeredGroups: []\`.`,
    response: { schema: ref('TriggerResult'), description: 'One entry per group.' },
  },
};

// ---- The document ----

const ERROR_RESPONSES: Record<ErrorStatus, { name: string; description: string }> = {
  400: {
    name: 'BadRequest',
    description:
      'The request is invalid: a malformed path parameter, an invalid query parameter, a missing or invalid body field, a rule of the operation (see its description). Do not retry unchanged.',
  },
  401: {
    name: 'Unauthorized',
    description: 'The bearer token is missing, malformed or expired. Get a new token and retry once.',
  },
  403: {
    name: 'Forbidden',
    description:
      'The client is not authorized for this merchant (or the merchant is unknown), the token lacks the scope, or the operation is not available in this environment. Do not retry.',
  },
  404: {
    name: 'NotFound',
    description:
      'The resource named in the path does not exist or is not of this merchant (or payor, or group). Do not retry.',
  },
  409: {
    name: 'Conflict',
    description:
      'The idempotencyKey was already used with a different body, or the first request with it is still in progress (retry shortly).',
  },
  429: { name: 'TooManyRequests', description: 'Throttled. Retry with backoff.' },
  500: {
    name: 'InternalServerError',
    description:
      'Unexpected server error. Retry with backoff (1, 2, 4 s ± 200 ms), at most 3 attempts in all.',
  },
  503: {
    name: 'ServiceUnavailable',
    description:
      'Transient: a dependency is unavailable or there was too much contention. Retry with backoff (1, 2, 4 s ± 200 ms), at most 3 attempts in all.',
  },
};

const COMMON_ERRORS: readonly ErrorStatus[] = [400, 401, 403, 429, 500, 503];

const TAGS: Record<string, { name: string; description: string }> = {
  groups: {
    name: 'Groups',
    description: 'Payment groups: payments processed together at one UTC date and hour.',
  },
  payments: { name: 'Payments', description: 'Scheduled payments of a group.' },
  payors: { name: 'Payors', description: 'Customer payment profiles.' },
  methods: { name: 'Saved payment methods', description: 'Tokenized cards and bank accounts of a payor.' },
  transactions: { name: 'Transactions', description: 'Sales with saved methods, voids and refunds.' },
};

function tagOf(route: Route): string {
  const dir = route.handler.split('/')[0] ?? route.handler;
  return TAGS[dir]?.name ?? dir.charAt(0).toUpperCase() + dir.slice(1);
}

/** `{Name}` placeholders of a path, in order. */
export const pathParameterNames = (path: string): string[] =>
  [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);

/** The first route with the same handler and method, when `route` is an alias of it. */
function aliasTarget(route: Route): Route | undefined {
  const first = routes.find((r) => r.handler === route.handler && r.method === route.method);
  return first && first !== route ? first : undefined;
}

/** Builds components from validator schemas, each once, under its registered (or given) name. */
class SchemaComponents {
  readonly schemas: Record<string, SchemaObject> = {};
  private readonly names = new Map<object, string>(schemaComponentNames);
  private readonly sources = new Map<string, object>();

  /** A `$ref` to the component of a validator schema (or one-of list), emitting it once. */
  refTo(schema: JsonSchema | readonly JsonSchema[], fallbackName: string): ReferenceObject {
    let name = this.names.get(schema);
    if (name === undefined) {
      name = fallbackName;
      this.names.set(schema, name);
    }
    this.emit(schema, name);
    return ref(name);
  }

  /** A one-of of validator schemas, with a discriminator when a required enum tells them apart. */
  oneOf(list: readonly JsonSchema[], memberName: (index: number) => string): SchemaObject {
    const members = list.map((s, i) => this.refTo(s, memberName(i)));
    const out: SchemaObject = { oneOf: members };
    const discriminator = discriminatorOf(list, members);
    if (discriminator) out.discriminator = discriminator;
    return out;
  }

  private emit(schema: JsonSchema | readonly JsonSchema[], name: string): void {
    const previous = this.sources.get(name);
    if (previous !== undefined) {
      if (previous !== schema) throw new Error(`two different schemas would be the component ${name}`);
      return;
    }
    this.sources.set(name, schema);
    this.schemas[name] = {}; // reserves the name (and the order) before subschemas are emitted
    this.schemas[name] = Array.isArray(schema)
      ? this.oneOf(schema as readonly JsonSchema[], (i) => `${name}${i + 1}`)
      : toOpenApiSchema(schema, (subschema) => {
          const subName = this.names.get(subschema);
          if (subName !== undefined) this.emit(subschema, subName);
          return subName;
        });
  }
}

/** `{propertyName, mapping}` when every member requires that property with disjoint string enums. */
function discriminatorOf(
  list: readonly JsonSchema[],
  members: ReferenceObject[],
): { propertyName: string; mapping: Record<string, string> } | undefined {
  type Shape = { required?: readonly string[]; properties?: Record<string, { enum?: readonly unknown[] }> };
  const [first] = list as readonly Shape[];
  for (const property of first?.required ?? []) {
    const mapping: Record<string, string> = {};
    const ok = (list as readonly Shape[]).every((member, i) => {
      const values = member.properties?.[property]?.enum;
      if (!member.required?.includes(property) || !values) return false;
      return values.every((v) => {
        if (typeof v !== 'string' || v in mapping) return false;
        mapping[v] = members[i]!.$ref;
        return true;
      });
    });
    if (ok) return { propertyName: property, mapping };
  }
  return undefined;
}

function overview(stage: Stage, tokenUrl: string): string {
  const hours = TOKEN_VALIDITY_SECONDS / 3600;
  const declineRows = Object.entries(DECLINE_CODES)
    .sort(([a, x], [b, y]) => x.category.localeCompare(y.category) || a.localeCompare(b))
    .map(([code, { message, category }]) => `| \`${code}\` | ${message} | ${category} |`)
    .join('\n');
  return `Scheduled payments: groups of card and bank payments that are charged together at one UTC date and hour; the payors and saved payment methods they charge; and sales, voids and refunds with built-in protections (decline category, duplicate check, available refund). Bodies are JSON. Paths are relative to the base URL ({base_url}).

## Authentication

Every operation needs the header \`Authorization: Bearer <access token>\`. Tokens come from the OAuth 2.0 token endpoint (\`${tokenUrl}\` here; a deployment's is its stack output \`TokenUrl\`) with the **client credentials** grant: \`POST\` a form body \`grant_type=client_credentials\`, with the client ID and secret as HTTP Basic credentials. The answer is \`{access_token, token_type: "Bearer", expires_in: ${TOKEN_VALIDITY_SECONDS}}\`: a token is valid for ${hours} hours; reuse it until shortly before it expires.

The token must carry the scope \`${apiScope(stage)}\` (\`<scope host>/api.execute\`; this document is for stage \`${stage}\`, whose scope host is \`${scopeHost(stage)}\`: non-production scope hosts carry an environment segment, production's does not).

- Missing, malformed or expired token: 401. Get a new token and retry once.
- A client not authorized for the merchant in the path (or an unknown merchant), a token without the scope, or an operation not available in this environment: 403.
- HTTPS only, TLS 1.2 or higher. Recommended client timeouts: connect 10 s, read 30 s.

## Merchants

\`{MID}\` is an 11-digit merchant ID or its 8-digit short form; both name the same merchant and records always hold the 11-digit form (\`servicePayId\`).

## Money, dates and hours

- Amounts are JSON numbers in the currency unit with **at most 2 decimals** (\`multipleOf: 0.01\`; \`19.999\` is 400). Payment, sale and refund amounts are greater than 0 and at most 999999.99; fee amounts may be 0. The service holds them as integer cents, so sums such as a group's \`totalAmount\` are exact. Note: a client-side validator that evaluates \`multipleOf: 0.01\` in binary floating point (e.g. ajv without \`multipleOfPrecision\`) wrongly rejects amounts such as 19.99; the service itself checks for a whole number of cents.
- Every date and hour is **UTC**: \`scheduleDate\` (yyyy-MM-dd) and \`scheduleHour\` (0-23) name the UTC hour in which a group is processed; timestamps are ISO 8601 with \`Z\`. Convert local merchant time before sending (5 PM at UTC-5 is \`scheduleHour\` 22), with the offset in force on the scheduled date.

## Errors

Every error answers \`{"message": "...", "responseCode": <the HTTP status>}\` (schema \`Error\`); the message names the offending field.

| Status | When | Retry? |
|---|---|---|
| 400 | Malformed path parameter, invalid query parameter, missing or invalid field, a rule of the operation (e.g. \`ImmutableFieldViolation\`, a duplicate customerAccountId) | No, not unchanged |
| 401 | Missing or expired token | Once, with a new token |
| 403 | Not authorized for the merchant, token without the scope, operation unavailable here | No |
| 404 | Resource not found, or not of this merchant | No |
| 409 | idempotencyKey reused with a different body, or still in progress | Only the in-progress case, shortly |
| 429 | Throttled | Yes, with backoff |
| 500 | Unexpected error | Yes, with backoff |
| 503 | Transient unavailability | Yes, with backoff |

Retry 500 and 503 (and 429) with exponential backoff: waits of about 1, 2 and 4 seconds with jitter of ±200 ms, **at most 3 attempts in all**. Do not retry 400 or 404 unchanged. Creates without an idempotency key (groups, payments, payors) are not idempotent: after a timeout or a 5xx, read before sending again.

## Idempotency

Sales and refunds take an optional \`idempotencyKey\` (1-100 of letters, digits, \`_ . : -\`). The same key with the same body returns the first response again, without charging or refunding twice; the same key with a different body is 409. Send one with every sale and refund, and reuse it when retrying.

## Transactions: declines, duplicates, refunds

These protections are active on every transaction, with no configuration.

- A sale answers 201 with its transaction whether **Approved** or **Declined**; a decline is not an error. \`declineCategory\` says whether to retry: **1 = do not retry** (permanent), **2 = may retry** (temporary).
- **Duplicate check**: a sale with the same merchant, the same exact amount and the same saved method as an earlier sale **within 5 minutes** is declined before processing: \`responseCode\` \`19\`, \`isDuplicate: true\`, \`originalTransactionId\`. A different amount or method, a refund, or a sale outside the window is not a duplicate.
- **Available refund**: \`availableRefundAmount\` = \`originalAmount\` − (completed + pending refunds); failed refunds are not counted. A refund above it is 400. Before settlement a sale is voided, after it refunded.

| responseCode | Meaning | declineCategory |
|---|---|---|
${declineRows}

## Lists and paging

List operations answer JSON **arrays** (payments, payors, saved methods). The two group lists answer an array without paging parameters, and the **paged envelope** \`{meta: {page, pageSize, totalItems, totalPages}, items}\` when \`pageNumber\`, \`pageSize\` or both are given: a missing one takes its default (pageNumber 1, pageSize ${DEFAULT_PAGE_SIZE}); pageSize is at most ${MAX_PAGE_SIZE}; a page past the end has \`items: []\`. \`GET /rest/merchants/{MID}\` lists the merchant's groups that are not deleted and not yet processed (status \`pending\` and \`processing\`); \`GET /rest/merchants/{MID}/groups\` lists groups in every stage.

## Deletes

Groups and payments are **soft-deleted**: DELETE answers 204, and the record stays readable and listed with \`deleted: true\` (a group also gets \`status: deleted\`); it is never processed. A group's \`paymentCount\` and \`totalAmount\` count non-deleted payments only. \`deleted\` cannot be set with PUT (400). Payors and saved methods are deleted for good.

## Processing and reversals

At its scheduleDate and scheduleHour (UTC) a pending group is processed: every non-deleted payment is charged and gets its \`authResponse\`, then the group's status is \`processed\` with a \`processingSummary\`. Processed payments are reversed with \`POST .../groups/{GroupID}/void-or-refund\` (void before settlement, refund after). Outside production, \`POST .../groups/{GroupID}/process-payments\` and \`POST /rest/merchants/{MID}/process-payments\` process groups of a test MID (${TEST_MID_RANGE.from}-${TEST_MID_RANGE.to}) at once.

## E-mails

With \`sendPaymentScheduledNotification\` (fixed at creation) the payor is e-mailed a notice when the payment is created; with \`sendEmailReceipt\` (changeable until the group is processed) a receipt after settlement.`;
}

function mergeSchemas(
  a: Record<string, SchemaObject>,
  b: Record<string, SchemaObject>,
): Record<string, SchemaObject> {
  const clash = Object.keys(b).find((name) => name in a);
  if (clash !== undefined)
    throw new Error(`schema component ${clash} is both a request and a response schema`);
  return { ...a, ...b };
}

/** The OpenAPI 3.0.3 document of the API of `stage`. */
export function openApiDocument(stage: Stage, options: OpenApiOptions = {}): OpenApiDocument {
  const tokenUrl = options.tokenUrl ?? `${LOCAL_BASE_URL}/oauth2/token`;
  const scope = apiScope(stage);
  const security = [{ [SECURITY_SCHEME]: [scope] }];
  const components = new SchemaComponents();
  for (const [schema, name] of schemaComponentNames) components.refTo(schema, name);

  const paths: Record<string, PathItemObject> = {};
  const usedTags = new Set<string>();
  for (const route of routes) {
    const alias = aliasTarget(route);
    const entry = <T>(map: Readonly<Partial<Record<string, T>>>): T | undefined =>
      map[route.id] ?? (alias ? map[alias.id] : undefined);
    const doc = entry(operationDocs);
    if (!doc) throw new Error(`route ${route.id} has no entry in operationDocs (lib/openapi.ts)`);
    if (route.status !== 204 && !doc.response) {
      throw new Error(
        `route ${route.id} answers ${route.status} but operationDocs has no response schema for it`,
      );
    }

    const parameters: ParameterObject[] = pathParameterNames(route.path).map((name) => {
      const param = pathParameters[name];
      if (!param)
        throw new Error(
          `route ${route.id}: path parameter {${name}} is not in pathParameters (lib/openapi.ts)`,
        );
      return {
        name,
        in: 'path',
        required: true,
        description: param.description,
        schema: { ...param.schema },
        example: param.example,
      };
    });
    const query = entry(queryParameters);
    if (query) {
      const { properties = {}, required = [] } = query.schema as {
        properties?: Record<string, JsonSchema>;
        required?: readonly string[];
      };
      for (const [name, schema] of Object.entries(properties)) {
        const extra = query.parameters?.[name];
        parameters.push({
          name,
          in: 'query',
          required: required.includes(name),
          ...(extra?.description !== undefined && { description: extra.description }),
          schema: extra?.schema ? { ...extra.schema } : toOpenApiSchema(schema),
        });
      }
    }

    const body = entry(requestBodies);
    let requestBody: OperationObject['requestBody'];
    if (body) {
      let schema: SchemaObject = components.refTo(body.schema, `${route.id}Request`);
      if (body.validatedInCode) {
        // The validator's component stays as the validator says; this body narrows the properties.
        const properties = Object.fromEntries(
          Object.entries(body.validatedInCode).map(([property, list]) => [
            property,
            components.refTo(list, `${route.id}${property.charAt(0).toUpperCase()}${property.slice(1)}`),
          ]),
        );
        schema = { allOf: [schema, { type: 'object', properties }] };
      }
      requestBody = {
        ...(body.description !== undefined && { description: body.description }),
        required: body.optional !== true,
        content: json(schema),
      };
    }

    const errors = new Set<ErrorStatus>([...COMMON_ERRORS, ...(doc.errors ?? [])]);
    if (pathParameterNames(route.path).some((p) => p !== 'MID')) errors.add(404);
    const responses: OperationObject['responses'] = {
      [String(route.status)]:
        route.status === 204 || !doc.response
          ? { description: 'Done; no body.' }
          : { description: doc.response.description, content: json(doc.response.schema) },
    };
    for (const status of [...errors].sort((a, b) => a - b)) {
      responses[String(status)] = { $ref: `#/components/responses/${ERROR_RESPONSES[status].name}` };
    }

    const notes = [
      route.nonProdOnly ? '**Non-production only**: in production this operation answers 403.' : undefined,
      alias ? `Identical alias of \`${alias.method} ${alias.path}\` (${alias.id}).` : undefined,
    ].filter((n): n is string => n !== undefined);
    const tag = tagOf(route);
    usedTags.add(tag);

    const operation: OperationObject = {
      operationId: route.id,
      summary: route.summary,
      description: [...notes, doc.description].join('\n\n'),
      tags: [tag],
      parameters,
      ...(requestBody && { requestBody }),
      responses,
      security,
      ...(route.nonProdOnly && { 'x-non-production-only': true as const }),
    };
    const verb = route.method.toLowerCase() as HttpVerb;
    const item = (paths[route.path] ??= {});
    if (item[verb]) throw new Error(`two routes for ${route.method} ${route.path}`);
    item[verb] = operation;
  }

  const errorResponses: Record<string, ResponseObject> = {};
  for (const [status, { name, description }] of Object.entries(ERROR_RESPONSES)) {
    errorResponses[name] = {
      description,
      ...(status === '401' && {
        headers: { 'WWW-Authenticate': { description: '`Bearer`', schema: { type: 'string' } } },
      }),
      content: json(ref('Error')),
    };
  }

  const knownTags = Object.values(TAGS).filter((t) => usedTags.has(t.name));
  const otherTags = [...usedTags]
    .filter((t) => !knownTags.some((k) => k.name === t))
    .map((name) => ({ name }));

  return {
    openapi: '3.0.3',
    info: {
      title: 'Scheduled Payments Service',
      version: packageJson.version,
      description: overview(stage, tokenUrl),
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
    paths,
    components: {
      schemas: mergeSchemas(components.schemas, structuredClone(responseSchemas)),
      responses: errorResponses,
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: 'oauth2',
          description: `OAuth 2.0 client credentials. Send the access token as \`Authorization: Bearer <token>\`; tokens are valid ${TOKEN_VALIDITY_SECONDS / 3600} hours.`,
          flows: { clientCredentials: { tokenUrl, scopes: { [scope]: 'Call the Scheduled Payments API' } } },
        },
      },
    },
    security,
  };
}
