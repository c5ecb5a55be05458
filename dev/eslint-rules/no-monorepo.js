'use strict';
// Port of n8n's `no-monorepo` (n8n-io/n8n packages/@n8n/eslint-plugin-community-nodes/src/rules/no-monorepo.ts,
// docs/rules/no-monorepo.md; read at commit b2cb311b6a61). Not in any published version of the plugin. As in n8n:
// `package.json` only; a `repository` object with a `directory` field (a package inside a monorepo) is reported;
// severity `error` in n8n's configs.

const { findJsonProperty, getTopLevelObjectInJson } = require('./utils');

module.exports = {
	meta: {
		type: 'problem',
		docs: { description: 'Require community nodes to use a single-package repository' },
		messages: {
			monorepoNotSupported: 'Community nodes must use a single-package repository. Monorepo packages are not supported.',
		},
		schema: [],
	},
	create(context) {
		if (!context.filename.endsWith('package.json')) return {};
		return {
			ObjectExpression(node) {
				if (!getTopLevelObjectInJson(node)) return;
				const repository = findJsonProperty(node, 'repository');
				if (repository?.value.type !== 'ObjectExpression') return;
				const directory = findJsonProperty(repository.value, 'directory');
				if (directory) context.report({ node: directory, messageId: 'monorepoNotSupported' });
			},
		};
	},
};
