import type { components, operations } from './generated/schema';

/** Types derived from the generated schema (client/generated/schema.d.ts, `npm run client:types`). */
export type { components, operations, paths } from './generated/schema';
export type Schemas = components['schemas'];
export type OperationId = keyof operations;

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

/** The JSON request body of an operation. */
export type RequestBody<K extends OperationId> = Json<NonNullable<operations[K]['requestBody']>>;

/** The JSON body of an operation's 2xx answers (undefined for a 204). */
export type Result<K extends OperationId> = {
  [S in keyof operations[K]['responses']]: S extends 200 | 201 | 202
    ? Json<operations[K]['responses'][S]>
    : S extends 204
      ? undefined
      : never;
}[keyof operations[K]['responses']];

/** An operation's query parameters. */
export type Query<K extends OperationId> = NonNullable<operations[K]['parameters']['query']>;

/** The token endpoint's answer (OAuth 2.0 client credentials; not part of the OpenAPI paths). */
export interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in: number;
}
