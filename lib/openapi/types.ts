/** The parts of OpenAPI 3.0.3 this document uses, and its fixed names. */

/** A JSON Schema as the validators compile it (ajv, with the custom `maxDecimals`). */
export type JsonSchema = object;
/** An OpenAPI 3.0 Schema Object or Reference Object. */
export type SchemaObject = { [keyword: string]: unknown };

export interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description?: string;
  schema: SchemaObject;
  example?: unknown;
}

export interface ExampleObject {
  summary: string;
  description?: string;
  value: unknown;
}

export interface MediaTypeObject {
  schema: SchemaObject;
  examples?: Readonly<Record<string, ExampleObject>>;
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
  info: { title: string; version: string; description: string; license: { name: string; url: string } };
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

export const ref = (name: string): ReferenceObject => ({ $ref: `#/components/schemas/${name}` });
export const json = (schema: SchemaObject) => ({ 'application/json': { schema } });
