import type { ResourceMapperFields } from 'n8n-workflow';

import { mapperFields } from '../actions/product/editorFields';

/**
 * The fields Create or Update's resource mapper lists: the contract's product fields (the service describes no
 * schema of its own to ask), so the editor needs no request to show them.
 * @public n8n calls it by its name, from the mapper's resourceMapperMethod.
 */
export async function getProductFields(): Promise<ResourceMapperFields> {
	return { fields: mapperFields() };
}
