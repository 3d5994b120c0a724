/**
 * The route table: the single source for the CDK REST API, the local HTTP server and the
 * OpenAPI document. `handler` is a file under `lambdas/` (without extension) exporting `handler`;
 * aliases share one handler (and so one Lambda function).
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface Route {
  /** Stable id, used for construct ids and OpenAPI operationIds. */
  readonly id: string;
  readonly method: HttpMethod;
  /** API Gateway resource path with `{param}` placeholders. */
  readonly path: string;
  /** Handler module under `lambdas/`, e.g. `groups/create-group`. */
  readonly handler: string;
  /** Human summary for the OpenAPI document. */
  readonly summary: string;
  /** Success status, for the OpenAPI document. */
  readonly status: 200 | 201 | 204;
  /** Non-production only: the handler answers 403 when SERVICE_STAGE is prod. */
  readonly nonProdOnly?: boolean;
}

const M = '/rest/merchants/{MID}';
const G = `${M}/groups/{GroupID}`;

export const routes: readonly Route[] = [
  { id: 'ListPendingGroups', method: 'GET', path: M, handler: 'groups/list-pending-groups', status: 200, summary: 'List pending groups of a merchant' },
  { id: 'ListGroups', method: 'GET', path: `${M}/groups`, handler: 'groups/list-groups', status: 200, summary: 'List all groups of a merchant' },
  { id: 'CreateGroup', method: 'POST', path: `${M}/groups`, handler: 'groups/create-group', status: 201, summary: 'Create a group, optionally with payments' },
  { id: 'GetGroup', method: 'GET', path: G, handler: 'groups/get-group', status: 200, summary: 'Get a group' },
  { id: 'UpdateGroup', method: 'PUT', path: G, handler: 'groups/update-group', status: 200, summary: 'Update a pending group' },
  { id: 'DeleteGroup', method: 'DELETE', path: G, handler: 'groups/delete-group', status: 204, summary: 'Cancel (soft-delete) a group' },
  ...(['payments', 'transactions'] as const).flatMap((alias): Route[] => {
    const suffix = alias === 'payments' ? '' : 'Alias';
    return [
      { id: `ListPayments${suffix}`, method: 'GET', path: `${G}/${alias}`, handler: 'payments/list-payments', status: 200, summary: "List a group's payments, deleted ones included" },
      { id: `AddPayment${suffix}`, method: 'POST', path: `${G}/${alias}`, handler: 'payments/add-payment', status: 201, summary: 'Add a payment to a pending group' },
      { id: `GetPayment${suffix}`, method: 'GET', path: `${G}/${alias}/{PaymentID}`, handler: 'payments/get-payment', status: 200, summary: 'Get a payment' },
      { id: `UpdatePayment${suffix}`, method: 'PUT', path: `${G}/${alias}/{PaymentID}`, handler: 'payments/update-payment', status: 200, summary: 'Replace a payment of a pending group' },
      { id: `DeletePayment${suffix}`, method: 'DELETE', path: `${G}/${alias}/{PaymentID}`, handler: 'payments/delete-payment', status: 204, summary: 'Soft-delete a payment' },
    ];
  }),
];

/** Distinct handler modules, one Lambda function each. */
export const handlerModules = (): string[] => [...new Set(routes.map((r) => r.handler))];
