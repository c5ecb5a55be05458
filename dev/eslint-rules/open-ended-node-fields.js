'use strict';
// Port of n8n's `open-ended-node-fields` (n8n-io/n8n packages/@n8n/eslint-plugin-community-nodes/src/rules/
// open-ended-node-fields.ts, docs/rules/open-ended-node-fields.md; read at commit 2537d458b086). Not in any published
// version of the plugin. As in n8n: `.node.ts` files only; a top-level entry of a node class's description
// `properties` with `type: 'json'` must be `required: true`; severity `warn` in n8n's configs.

const {
	findArrayLiteralProperty,
	findNodeDescriptionObject,
	findObjectProperty,
	getBooleanLiteralValue,
	getStringLiteralValue,
	isFileType,
	isNodeTypeClass,
} = require('./utils');

module.exports = {
	meta: {
		type: 'suggestion',
		docs: { description: 'Discourage optional open-ended JSON fields in node properties' },
		messages: {
			optionalJson:
				'Optional JSON fields can hide configuration. Use typed parameters under Additional Options or Additional Fields instead.',
		},
		schema: [],
	},
	create(context) {
		if (!isFileType(context.filename, '.node.ts')) return {};
		return {
			ClassDeclaration(node) {
				if (!isNodeTypeClass(node)) return;
				const description = findNodeDescriptionObject(node);
				const properties = description && findArrayLiteralProperty(description, 'properties');
				if (!properties) return;
				for (const property of properties.elements) {
					if (property?.type !== 'ObjectExpression') continue;
					if (getStringLiteralValue(findObjectProperty(property, 'type')?.value ?? null) !== 'json') continue;
					if (getBooleanLiteralValue(findObjectProperty(property, 'required')?.value ?? null) === true) continue;
					context.report({ node: property, messageId: 'optionalJson' });
				}
			},
		};
	},
};
