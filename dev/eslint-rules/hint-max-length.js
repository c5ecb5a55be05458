'use strict';
// Port of n8n's `hint-max-length` (n8n-io/n8n packages/@n8n/eslint-plugin-community-nodes/src/rules/hint-max-length.ts,
// docs/rules/hint-max-length.md; read at commit 73072236ac7c). Not in any published version of the plugin (0.32.0 is
// the latest). As in n8n: `.node.ts` files only; every `hint` string anywhere in a node class's description object
// (properties, collection options, …) may be at most 120 characters; severity `warn` in n8n's configs.

const { findNodeDescriptionObject, getStringLiteralValue, isFileType, isNodeTypeClass } = require('./utils');

/** n8n's figure: the 95th percentile of hint length in its own nodes, so only the long tail is cut. */
const MAX_HINT_LENGTH = 120;

const isHintKey = (key) => (key.type === 'Identifier' && key.name === 'hint') || (key.type === 'Literal' && key.value === 'hint');

module.exports = {
	meta: {
		type: 'suggestion',
		docs: { description: 'Limit the length of a node property "hint"' },
		messages: {
			hintTooLong:
				'The "hint" is {{ length }} characters long, over the limit of {{ max }}. A hint is a short inline nudge. Move the longer text to "description", which renders as the tooltip.',
		},
		schema: [],
	},
	MAX_HINT_LENGTH,
	create(context) {
		if (!isFileType(context.filename, '.node.ts')) return {};

		const checkHint = (valueNode) => {
			const hint = getStringLiteralValue(valueNode);
			if (hint === null || hint.length <= MAX_HINT_LENGTH) return;
			context.report({ node: valueNode, messageId: 'hintTooLong', data: { length: hint.length, max: MAX_HINT_LENGTH } });
		};
		const visit = (node) => {
			if (node.type === 'ObjectExpression') {
				for (const property of node.properties) {
					if (property.type !== 'Property') continue;
					if (isHintKey(property.key)) checkHint(property.value);
					visit(property.value);
				}
			} else if (node.type === 'ArrayExpression') {
				for (const element of node.elements) if (element) visit(element);
			}
		};

		return {
			ClassDeclaration(node) {
				if (!isNodeTypeClass(node)) return;
				const description = findNodeDescriptionObject(node);
				if (description) visit(description);
			},
		};
	},
};
