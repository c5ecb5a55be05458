'use strict';
// Port of n8n's `no-hardcoded-ids` (n8n-io/n8n packages/@n8n/eslint-plugin-community-nodes/src/rules/no-hardcoded-ids.ts,
// docs/rules/no-hardcoded-ids.md; read at commit 2aaf19f556db). Not in any published version of the plugin. As in n8n:
// `.node.ts` / `.node.js` files only; a string literal given to a variable, property, class field or assignment
// target named partnerId / partner_id / affiliate-id / … (partner, affiliate, reseller, account, tenant, customer,
// client + optional `_`/`-` + `id`, any case) is reported; severity `error` in n8n's configs.

const { getPropertyKeyName, getStringLiteralValue, isFileType } = require('./utils');

const CONFIGURABLE_ID_NAME = /^(?:partner|affiliate|reseller|account|tenant|customer|client)(?:[_-]?id)$/i;

module.exports = {
	meta: {
		type: 'problem',
		docs: { description: 'Disallow fixed partner and other account identifiers in community node source.' },
		messages: {
			hardcodedId: 'Hardcoded `{{ name }}`. Read this ID from a node parameter or credential so users can configure it.',
		},
		schema: [],
	},
	create(context) {
		if (!isFileType(context.filename, '.node.ts') && !isFileType(context.filename, '.node.js')) return {};

		const check = (name, value) => {
			if (!name || !value || !CONFIGURABLE_ID_NAME.test(name) || getStringLiteralValue(value) === null) return;
			context.report({ node: value, messageId: 'hardcodedId', data: { name } });
		};

		return {
			VariableDeclarator(node) {
				if (node.id.type === 'Identifier') check(node.id.name, node.init);
			},
			PropertyDefinition(node) {
				check(getPropertyKeyName(node), node.value);
			},
			Property(node) {
				check(getPropertyKeyName(node), node.value);
			},
			AssignmentExpression(node) {
				if (node.left.type === 'Identifier') {
					check(node.left.name, node.right);
				} else if (node.left.type === 'MemberExpression') {
					const name = node.left.computed
						? getStringLiteralValue(node.left.property)
						: node.left.property.type === 'Identifier'
							? node.left.property.name
							: null;
					check(name, node.right);
				}
			},
		};
	},
};
