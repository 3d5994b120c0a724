/**
 * The OpenAPI 3.0.3 document of the service, built from the contract alone: the route table
 * (contract/routes), its schemas (contract/schemas) and path parameters (contract/params).
 * Every route becomes one operation (operationId = route id); see document.ts.
 */
export { openApiDocument } from './document';
export { toOpenApiSchema } from './translate';
export * from './types';
