import type { ResourceMapperFields } from 'n8n-workflow';

import { mapperFields } from '../actions/product/editorFields';

/**
 * Create or Update's mapper fields: the contract's (the service has no schema to ask), shown without a request.
 * @public n8n calls it by its name, from the mapper's resourceMapperMethod.
 */
export async function getProductFields(): Promise<ResourceMapperFields> {
	return { fields: mapperFields() };
}
