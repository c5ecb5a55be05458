import type { ResourceMapperFields } from 'n8n-workflow';

import { mapperFields } from '../actions/product/editorFields';

/** @public n8n calls it by name, from Create or Update's mapper: the contract's fields (the service has no schema). */
export async function getProductFields(): Promise<ResourceMapperFields> {
	return { fields: mapperFields() };
}
