'use strict';
// Port of n8n's `no-logic-or-flow-nodes` (n8n-io/n8n packages/@n8n/eslint-plugin-community-nodes/src/rules/
// no-logic-or-flow-nodes.ts, docs/rules/no-logic-or-flow-nodes.md; read at commit 1e8d9c253158). Not in any published
// version of the plugin. As in n8n: `.node.json` codex files only; the string 'Logic' or 'Flow' in `categories`, or in
// any array of the `subcategories` object, is reported; severity `error` in n8n's configs.

const { findJsonProperty, getTopLevelObjectInJson } = require('./utils');

const FORBIDDEN_CATEGORIES = new Set(['Logic', 'Flow']);

module.exports = {
	meta: {
		type: 'problem',
		docs: { description: 'Reject Logic and Flow community nodes' },
		messages: { logicOrFlowNode: 'Logic and Flow nodes are not allowed' },
		schema: [],
	},
	create(context) {
		if (!context.filename.endsWith('.node.json')) return {};

		const reportForbidden = (array) => {
			for (const category of array.elements) {
				if (category?.type === 'Literal' && typeof category.value === 'string' && FORBIDDEN_CATEGORIES.has(category.value)) {
					context.report({ node: category, messageId: 'logicOrFlowNode' });
				}
			}
		};

		return {
			ObjectExpression(node) {
				const root = getTopLevelObjectInJson(node);
				if (!root) return;
				const categories = findJsonProperty(root, 'categories');
				if (categories?.value.type === 'ArrayExpression') reportForbidden(categories.value);
				const subcategories = findJsonProperty(root, 'subcategories');
				if (subcategories?.value.type !== 'ObjectExpression') return;
				for (const property of subcategories.value.properties) {
					if (property.type === 'Property' && property.value.type === 'ArrayExpression') reportForbidden(property.value);
				}
			},
		};
	},
};
