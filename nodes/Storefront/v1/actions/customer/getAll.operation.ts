import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getManyExecute, getManyProperties } from '../common';

const properties: INodeProperties[] = getManyProperties('customer', [
	{
		displayName: 'Search',
		name: 'search',
		type: 'string',
		default: '',
		description: 'Only customers whose name or email contains this text (case-insensitive)',
	},
]);

export const description = updateDisplayOptions({ show: { resource: ['customer'], operation: ['getAll'] } }, properties);

export const execute = getManyExecute('customers');
