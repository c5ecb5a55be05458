import type { INodeTypeBaseDescription } from 'n8n-workflow';
import { VersionedNodeType } from 'n8n-workflow';

import { StorefrontV1 } from './v1/StorefrontV1';

export class Storefront extends VersionedNodeType {
	constructor() {
		const baseDescription: INodeTypeBaseDescription = {
			displayName: 'Storefront',
			name: 'storefront',
			icon: { light: 'file:storefront.svg', dark: 'file:storefront.dark.svg' },
			group: ['transform'],
			description:
				'Manage a Storefront shop: products, orders, customers, store details and sales analytics',
			defaultVersion: 1,
		};
		super({ 1: new StorefrontV1(baseDescription) }, baseDescription);
	}
}
