/**
 * Examples of the OpenAPI document, keyed by operation (route id): what lib/openapi shows, and what
 * the contract test (test/e2e/contract-examples.test.ts) sends to the local runtime. Ids in them are
 * the placeholders below; the test replaces them with the ids of resources it made.
 */

/** Placeholder values: every example that names one of these resources uses this value. */
export const PLACEHOLDERS = {
  MID: '32350000001',
  GroupID: '0193c2a4-5b1e-7c3d-8e4f-5a6b7c8d9e01',
  PaymentID: '0193c2a4-5b1e-7c3d-8e4f-5a6b7c8d9e02',
  PayorID: '0193c2a4-5b1e-7c3d-8e4f-5a6b7c8d9e03',
  PaymentMethodID: '0193c2a4-5b1e-7c3d-8e4f-5a6b7c8d9e04',
  TransactionID: '0193c2a4-5b1e-7c3d-8e4f-5a6b7c8d9e05',
  EventID: 'evt_0193c2a45b1e7c3d8e4f5a6b7c8d9e06',
  WebhookEndpointID: '0193c2a4-5b1e-7c3d-8e4f-5a6b7c8d9e07',
  SeriesID: '0193c2a4-5b1e-7c3d-8e4f-5a6b7c8d9e08',
  DisputeID: '0193c2a4-5b1e-7c3d-8e4f-5a6b7c8d9e09',
  /** The URL of the webhook endpoint WebhookEndpointID (the contract test's receiver). */
  WebhookURL: 'https://hooks.springfield-elementary.example/scheduled-payments',
  /** A recent time to replay events from (the contract test sends one a minute before it runs). */
  ReplaySince: '2030-05-20T14:00:00.000Z',
  /** The customerAccountId of the payor PayorID. */
  customerAccountId: 'cust-1042',
  /** A customerAccountId no payor has yet. */
  newCustomerAccountId: 'cust-2077',
} as const;

export type Placeholder = keyof typeof PLACEHOLDERS;

/** One example: an OpenAPI 3.0 Example Object. */
export interface Example {
  readonly summary: string;
  readonly description?: string;
  readonly value: unknown;
}

/** A success body's example. */
export const success = (summary: string, value: unknown): Example => ({ summary, value });

/** The error body of an invalid request's 400. */
export interface ErrorExample {
  readonly message: string;
  readonly responseCode: 400;
  readonly errors: readonly { readonly field: string; readonly message: string }[];
}

export interface OperationExamples {
  /** Request bodies by name, each valid against the body schema. */
  readonly requests?: Readonly<Record<string, Example>>;
  /** Query parameters sent with every request example (each documented as the parameter's example). */
  readonly query?: Readonly<Record<string, string>>;
  /** The success body (of the first request example); absent when the success status is 204. */
  readonly response?: Example;
  /** Other success bodies the operation may answer (another outcome of the same request), by name. */
  readonly otherResponses?: Readonly<Record<string, Example>>;
  /**
   * A request that fails the body or query schema, and the 400 (with `errors[]`) it answers. Every
   * route has one; only the health check, which reads no input, has none.
   */
  readonly invalid?: {
    readonly summary: string;
    readonly body?: unknown;
    readonly query?: Readonly<Record<string, string>>;
    readonly response: ErrorExample;
  };
}
