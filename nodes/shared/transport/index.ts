// The transport of the Storefront node: the client (client.ts), JSON envelopes (envelope.ts), pagination rules
// (pagination.ts), the errors a request ends in (errors.ts) and a record's id (identity.ts).
export * from './client';
export { isObject, unwrapList, unwrapSingle } from './envelope';
export { duration, gotNoAnswer, serviceMessage, type RequestTarget } from './errors';
export { eventRecordId, idFieldNames, recordId } from './identity';
export { nextPageNumber, type Page } from './pagination';
