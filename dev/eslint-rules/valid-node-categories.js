'use strict';
// After n8n's `valid-node-categories` (n8n-io/n8n packages/@n8n/eslint-plugin-community-nodes/src/rules/
// valid-node-categories.ts at commit 3320bdd2920a, docs/rules/valid-node-categories.md). Not in any published version
// of the plugin; severity `error` in n8n's configs. Kept to what this package can get wrong: its codex lives only in
// the nodes' `.node.json` files, whose root `categories` must be a non-empty array of the community categories below
// ('Marketing' gets its own message). n8n's rule also checks an inline `codex` in a `.node.ts` file and the 'AI'
// category with its AI subcategories; these nodes have neither, so 'AI' is reported here like any other category
// not in the list (verification.test.ts allows the same list, and no subcategories).

const { findJsonProperty, getTopLevelObjectInJson } = require('./utils');

const VALID_CATEGORIES = new Set([
	'Data & Storage',
	'Finance & Accounting',
	'Marketing & Content',
	'Productivity',
	'Miscellaneous',
	'Sales',
	'Development',
	'Analytics',
	'Communication',
	'Utility',
]);

module.exports = {
	meta: {
		type: 'problem',
		docs: { description: 'Require supported community node categories in .node.json codex files' },
		messages: {
			invalidCategories: '"categories" must be a non-empty array of community node categories.',
			invalidCategoryType: 'Each category must be a string from the community node category list.',
			invalidCategory:
				'"{{ category }}" is not a supported community node category. See https://docs.n8n.io/connect/create-nodes/build-your-node/reference/codex-files/#node-categories for the allowed values.',
			marketingCategory: '"Marketing" is not a supported category. Use "Marketing & Content".',
		},
		schema: [],
	},
	create(context) {
		if (!context.filename.endsWith('.node.json')) return {};
		return {
			ObjectExpression(node) {
				if (!getTopLevelObjectInJson(node)) return;
				const categories = findJsonProperty(node, 'categories');
				if (!categories) return;
				if (categories.value.type !== 'ArrayExpression' || categories.value.elements.length === 0) {
					context.report({ node: categories.value, messageId: 'invalidCategories' });
					return;
				}
				for (const category of categories.value.elements) {
					if (!category) continue;
					if (category.type !== 'Literal' || typeof category.value !== 'string') {
						context.report({ node: category, messageId: 'invalidCategoryType' });
					} else if (category.value === 'Marketing') {
						context.report({ node: category, messageId: 'marketingCategory' });
					} else if (!VALID_CATEGORIES.has(category.value)) {
						context.report({ node: category, messageId: 'invalidCategory', data: { category: category.value } });
					}
				}
			},
		};
	},
};
