'use strict';
// Port of n8n's `valid-node-categories` (n8n-io/n8n packages/@n8n/eslint-plugin-community-nodes/src/rules/
// valid-node-categories.ts at commit 3320bdd2920a, docs/rules/valid-node-categories.md, tests at 3f126f150691). Not in
// any published version of the plugin. As in n8n: the codex of a node — a `.node.json` file's root object, or the
// `codex` of a node class's description in a `.node.ts` file — may have `categories` only as a non-empty array of
// the community categories below ('Marketing' gets its own message); `subcategories` only as an object holding an
// `AI` array, which goes together with the 'AI' category and names AI subcategories from the list below. Severity
// `error` in n8n's configs. n8n's tests lint `.node.json` text with quoted keys, so keys are matched quoted or not.

const { findNodeDescriptionObject, isNodeTypeClass } = require('./utils');

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
	'AI',
]);

// n8n keeps these in step with the AI_CATEGORY_* constants of its editor (editor-ui/src/app/constants/nodeCreator.ts).
const VALID_AI_SUBCATEGORIES = new Set([
	'Agents',
	'Chains',
	'Language Models',
	'Memory',
	'Output Parsers',
	'Tools',
	'Vector Stores',
	'Retrievers',
	'Embeddings',
	'Document Loaders',
	'Text Splitters',
	'Other Tools',
	'Root Nodes',
	'Model Context Protocol',
	'Human in the Loop',
	'Miscellaneous',
	'Rerankers',
	'Evaluation',
]);

/** A property of an object literal by key, written `name` (TypeScript) or `"name"` (JSON). */
const findProperty = (objectNode, name) =>
	objectNode.properties.find(
		(p) =>
			p.type === 'Property' &&
			!p.computed &&
			((p.key.type === 'Identifier' && p.key.name === name) || (p.key.type === 'Literal' && p.key.value === name)),
	) ?? null;

module.exports = {
	meta: {
		type: 'problem',
		docs: { description: 'Require supported community node codex categories and AI subcategories' },
		messages: {
			invalidCategories: '"categories" must be a non-empty array of community node categories.',
			invalidCategoryType: 'Each category must be a string from the community node category list.',
			invalidCategory:
				'"{{ category }}" is not a supported community node category. See https://docs.n8n.io/connect/create-nodes/build-your-node/reference/codex-files/#node-categories for the allowed values.',
			marketingCategory: '"Marketing" is not a supported category. Use "Marketing & Content".',
			missingAiSubcategories: 'The "AI" category requires a non-empty subcategories.AI array.',
			missingAiCategory: 'subcategories.AI requires "AI" in categories.',
			invalidSubcategories: 'subcategories must be an object with an AI category.',
			invalidAiSubcategoryType: 'Each AI subcategory must be a supported string value.',
			invalidAiSubcategory: '"{{ subcategory }}" is not a supported AI subcategory.',
		},
		schema: [],
	},
	create(context) {
		const isJson = context.filename.endsWith('.node.json');
		if (!isJson && !context.filename.endsWith('.node.ts')) return {};

		function checkCodex(codex) {
			const categories = findProperty(codex, 'categories');
			const subcategories = findProperty(codex, 'subcategories');
			if (!categories && !subcategories) return;

			let hasAiCategory = false;
			if (categories) {
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
					} else if (category.value === 'AI') {
						hasAiCategory = true;
					} else if (!VALID_CATEGORIES.has(category.value)) {
						context.report({ node: category, messageId: 'invalidCategory', data: { category: category.value } });
					}
				}
			}

			if (subcategories && subcategories.value.type !== 'ObjectExpression') {
				context.report({ node: subcategories.value, messageId: 'invalidSubcategories' });
				return;
			}
			const aiSubcategories = subcategories ? findProperty(subcategories.value, 'AI') : null;
			if (hasAiCategory && !aiSubcategories) {
				context.report({ node: categories ?? codex, messageId: 'missingAiSubcategories' });
			}
			if (aiSubcategories && !hasAiCategory) {
				context.report({ node: aiSubcategories, messageId: 'missingAiCategory' });
			}
			if (subcategories && !hasAiCategory && !aiSubcategories) {
				context.report({ node: subcategories, messageId: 'invalidSubcategories' });
			}
			if (!aiSubcategories) return;

			if (aiSubcategories.value.type !== 'ArrayExpression' || aiSubcategories.value.elements.length === 0) {
				context.report({ node: aiSubcategories.value, messageId: 'missingAiSubcategories' });
				return;
			}
			for (const subcategory of aiSubcategories.value.elements) {
				if (!subcategory) continue;
				if (subcategory.type !== 'Literal' || typeof subcategory.value !== 'string') {
					context.report({ node: subcategory, messageId: 'invalidAiSubcategoryType' });
				} else if (!VALID_AI_SUBCATEGORIES.has(subcategory.value)) {
					context.report({ node: subcategory, messageId: 'invalidAiSubcategory', data: { subcategory: subcategory.value } });
				}
			}
		}

		if (isJson) {
			return {
				ObjectExpression(node) {
					if (node.parent?.type === 'ExpressionStatement') checkCodex(node);
				},
			};
		}
		return {
			ClassDeclaration(node) {
				if (!isNodeTypeClass(node)) return;
				const description = findNodeDescriptionObject(node);
				const codex = description && findProperty(description, 'codex');
				if (codex?.value.type === 'ObjectExpression') checkCodex(codex.value);
			},
		};
	},
};
