// The transport of the Storefront node: the client (client.ts), JSON envelopes (envelope.ts), pagination rules
// (pagination.ts), error bodies (errors.ts), a request's errors (requestErrors.ts) and a record's id (identity.ts).
export * from './client';
export * from './waits';
export { isObject, unwrapList, unwrapSingle } from './envelope';
export { gotNoAnswer, serviceMessage } from './errors';
export { eventRecordId, idFieldNames, recordId } from './identity';
export { nextPageNumber, type Page } from './pagination';
