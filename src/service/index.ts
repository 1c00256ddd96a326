// The service's contract in code: schemas and types, the typed client, errors, webhook signatures, OpenAPI.
export * from './client.js';
export * from './errors.js';
export {
  fillPath,
  type Operation,
  type OperationId,
  operations,
  pathParams,
  type RetryRule,
} from './operations.js';
export * from './schemas/index.js';
export * from './webhook-signature.js';
