// The transport of the Storefront node: the client (client.ts), JSON envelopes (envelope.ts), pagination rules
// (pagination.ts) and error bodies (errors.ts).
export * from './client';
export { isObject, unwrapList, unwrapSingle } from './envelope';
export { serviceMessage } from './errors';
export { nextPageNumber, type Page } from './pagination';
