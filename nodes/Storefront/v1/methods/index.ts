export * as listSearch from './listSearch';
export * as resourceMapping from './resourceMapping';
