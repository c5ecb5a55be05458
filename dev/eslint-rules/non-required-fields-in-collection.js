'use strict';
// Port of n8n's `non-required-fields-in-collection` (n8n-io/n8n packages/@n8n/eslint-plugin-community-nodes/src/rules/
// non-required-fields-in-collection.ts, docs/rules/non-required-fields-in-collection.md; read at commit 01a9d2d4cf06).
// Not in any published version of the plugin. As in n8n: `.node.ts` files only; each top-level entry of a node
// class's description `properties` that is not `required` must live in a collection, except collections and fixed
// collections themselves, non-input types (notice, callout, hidden, curlImport) and the resource / operation /
// authentication selectors; a `required` that is not a boolean literal counts as required. Severity `warn` in n8n.

const {
	findArrayLiteralProperty,
	findNodeDescriptionObject,
	findObjectProperty,
	getBooleanLiteralValue,
	getStringLiteralValue,
	isFileType,
	isNodeTypeClass,
} = require('./utils');

const CONTAINER_TYPES = new Set(['collection', 'fixedCollection']);
const NON_INPUT_TYPES = new Set(['notice', 'callout', 'hidden', 'curlImport']);
const SELECTOR_FIELD_NAMES = new Set(['resource', 'operation', 'authentication']);

module.exports = {
	meta: {
		type: 'suggestion',
		docs: {
			description: 'Enforce that non-required node fields live in an "Additional Options" or "Additional Fields" collection',
		},
		messages: {
			nonRequiredFieldAtTopLevel:
				'"{{ field }}" is not required. Move it into an "Additional Options" or "Additional Fields" collection.',
		},
		schema: [],
	},
	create(context) {
		if (!isFileType(context.filename, '.node.ts')) return {};

		const isRequired = (property) => {
			const required = findObjectProperty(property, 'required');
			return required ? getBooleanLiteralValue(required.value) !== false : false;
		};

		return {
			ClassDeclaration(node) {
				if (!isNodeTypeClass(node)) return;
				const description = findNodeDescriptionObject(node);
				const properties = description && findArrayLiteralProperty(description, 'properties');
				if (!properties) return;
				for (const element of properties.elements) {
					if (element?.type !== 'ObjectExpression') continue;
					const nameProperty = findObjectProperty(element, 'name');
					const name = nameProperty ? getStringLiteralValue(nameProperty.value) : null;
					if (!name || SELECTOR_FIELD_NAMES.has(name)) continue;
					const typeProperty = findObjectProperty(element, 'type');
					const type = typeProperty ? getStringLiteralValue(typeProperty.value) : null;
					if (type && (CONTAINER_TYPES.has(type) || NON_INPUT_TYPES.has(type))) continue;
					if (isRequired(element)) continue;
					context.report({ node: element, messageId: 'nonRequiredFieldAtTopLevel', data: { field: name } });
				}
			},
		};
	},
};
