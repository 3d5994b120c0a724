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
const V1 = '/v1/rest/merchants/{MID}';
const P = `${V1}/payors/{PayorID}`;
const PM = `${P}/savedPaymentMethods`;
const T = `${V1}/transactions`;

function payorRoutes(): Route[] {
  return [
    {
      id: 'CreatePayor',
      method: 'POST',
      path: `${V1}/payors`,
      handler: 'payors/create-payor',
      status: 201,
      summary: 'Create a payor with its first saved payment method',
    },
    {
      id: 'SearchPayors',
      method: 'GET',
      path: `${V1}/payors`,
      handler: 'payors/search-payors',
      status: 200,
      summary: 'Find the payor with a customerAccountId',
    },
    {
      id: 'BulkSearchPayors',
      method: 'POST',
      path: `${V1}/payors/search`,
      handler: 'payors/bulk-search-payors',
      status: 200,
      summary: 'Find payors by up to 100 customerAccountIds',
    },
    {
      id: 'GetPayor',
      method: 'GET',
      path: P,
      handler: 'payors/get-payor',
      status: 200,
      summary: 'Get a payor with its saved methods',
    },
    {
      id: 'UpdatePayor',
      method: 'PUT',
      path: P,
      handler: 'payors/update-payor',
      status: 200,
      summary: 'Update a payor',
    },
    {
      id: 'DeletePayor',
      method: 'DELETE',
      path: P,
      handler: 'payors/delete-payor',
      status: 204,
      summary: 'Delete a payor and its saved methods',
    },
    {
      id: 'ListMethods',
      method: 'GET',
      path: PM,
      handler: 'methods/list-methods',
      status: 200,
      summary: "List a payor's saved payment methods",
    },
    {
      id: 'AddMethod',
      method: 'POST',
      path: PM,
      handler: 'methods/add-method',
      status: 201,
      summary: 'Add a saved payment method',
    },
    {
      id: 'GetMethod',
      method: 'GET',
      path: `${PM}/{PaymentMethodID}`,
      handler: 'methods/get-method',
      status: 200,
      summary: 'Get a saved payment method',
    },
    {
      id: 'UpdateMethod',
      method: 'PUT',
      path: `${PM}/{PaymentMethodID}`,
      handler: 'methods/update-method',
      status: 200,
      summary: 'Update expiry, billing address, default',
    },
    {
      id: 'DeleteMethod',
      method: 'DELETE',
      path: `${PM}/{PaymentMethodID}`,
      handler: 'methods/delete-method',
      status: 204,
      summary: 'Delete a saved payment method',
    },
    {
      id: 'CreateSale',
      method: 'POST',
      path: T,
      handler: 'transactions/create-sale',
      status: 201,
      summary: 'Charge a saved payment method (sale)',
    },
    {
      id: 'GetTransaction',
      method: 'GET',
      path: `${T}/{TransactionID}`,
      handler: 'transactions/get-transaction',
      status: 200,
      summary: 'Get a transaction with refund fields',
    },
    {
      id: 'VoidTransaction',
      method: 'POST',
      path: `${T}/{TransactionID}/void`,
      handler: 'transactions/void-transaction',
      status: 200,
      summary: 'Void an unsettled sale',
    },
    {
      id: 'RefundTransaction',
      method: 'POST',
      path: `${T}/{TransactionID}/refunds`,
      handler: 'transactions/refund-transaction',
      status: 201,
      summary: 'Refund a settled sale, whole or in part',
    },
  ];
}
const G = `${M}/groups/{GroupID}`;

export const routes: readonly Route[] = [
  {
    id: 'ListPendingGroups',
    method: 'GET',
    path: M,
    handler: 'groups/list-pending-groups',
    status: 200,
    summary: 'List pending groups of a merchant',
  },
  {
    id: 'ListGroups',
    method: 'GET',
    path: `${M}/groups`,
    handler: 'groups/list-groups',
    status: 200,
    summary: 'List all groups of a merchant',
  },
  {
    id: 'CreateGroup',
    method: 'POST',
    path: `${M}/groups`,
    handler: 'groups/create-group',
    status: 201,
    summary: 'Create a group, optionally with payments',
  },
  {
    id: 'GetGroup',
    method: 'GET',
    path: G,
    handler: 'groups/get-group',
    status: 200,
    summary: 'Get a group',
  },
  {
    id: 'UpdateGroup',
    method: 'PUT',
    path: G,
    handler: 'groups/update-group',
    status: 200,
    summary: 'Update a pending group',
  },
  {
    id: 'DeleteGroup',
    method: 'DELETE',
    path: G,
    handler: 'groups/delete-group',
    status: 204,
    summary: 'Cancel (soft-delete) a group',
  },
  ...(['payments', 'transactions'] as const).flatMap((alias): Route[] => {
    const suffix = alias === 'payments' ? '' : 'Alias';
    return [
      {
        id: `ListPayments${suffix}`,
        method: 'GET',
        path: `${G}/${alias}`,
        handler: 'payments/list-payments',
        status: 200,
        summary: "List a group's payments, deleted ones included",
      },
      {
        id: `AddPayment${suffix}`,
        method: 'POST',
        path: `${G}/${alias}`,
        handler: 'payments/add-payment',
        status: 201,
        summary: 'Add a payment to a pending group',
      },
      {
        id: `GetPayment${suffix}`,
        method: 'GET',
        path: `${G}/${alias}/{PaymentID}`,
        handler: 'payments/get-payment',
        status: 200,
        summary: 'Get a payment',
      },
      {
        id: `UpdatePayment${suffix}`,
        method: 'PUT',
        path: `${G}/${alias}/{PaymentID}`,
        handler: 'payments/update-payment',
        status: 200,
        summary: 'Replace a payment of a pending group',
      },
      {
        id: `DeletePayment${suffix}`,
        method: 'DELETE',
        path: `${G}/${alias}/{PaymentID}`,
        handler: 'payments/delete-payment',
        status: 204,
        summary: 'Soft-delete a payment',
      },
    ];
  }),
  {
    id: 'VoidOrRefundGroup',
    method: 'POST',
    path: `${G}/void-or-refund`,
    handler: 'groups/void-or-refund',
    status: 200,
    summary: "Reverse a group's approved payments (void before settlement, refund after)",
  },
  {
    id: 'ProcessGroup',
    method: 'POST',
    path: `${G}/process-payments`,
    handler: 'processing/trigger-group',
    status: 200,
    nonProdOnly: true,
    summary: 'Process a group now (non-production, test MIDs)',
  },
  {
    id: 'ProcessMerchant',
    method: 'POST',
    path: `${M}/process-payments`,
    handler: 'processing/trigger-merchant',
    status: 200,
    nonProdOnly: true,
    summary: "Process a merchant's pending groups of a slot now (non-production, test MIDs)",
  },
  ...payorRoutes(),
];

/** Distinct handler modules, one Lambda function each. */
export const handlerModules = (): string[] => [...new Set(routes.map((r) => r.handler))];
