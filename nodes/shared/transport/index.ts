// The transport of the Storefront node, as the rest of the package imports it.
export * from './client';
export { isObject, unwrapList, unwrapSingle } from './envelope';
export { duration, gotNoAnswer, serviceMessage, type RequestTarget } from './errors';
export { eventRecordId, idFieldNames, recordId } from './identity';
export { nextPageNumber, type Page } from './pagination';
