'use strict';
// The one local ESLint rule, `require-continue-on-fail` (./require-continue-on-fail.js says where it comes from): a
// check of n8n's that its published tooling (`n8n-node lint` with @n8n/eslint-plugin-community-nodes 0.32.0 and
// eslint-plugin-n8n-nodes-base, and @n8n/scan-community-package) does not run in a form that sees this package's
// execute(). docs/verification.md ("Lint rules") says why it is the only one. `configs()` applies it, at n8n's severity,
// to nodes/ and credentials/ (./lint.config.mjs, run by `npm run lint`); test/package/lintRules.test.ts tests it and
// runs the same configuration over the package.

/** Plugin namespace in ESLint messages and disable comments: `storefront-local/require-continue-on-fail`. */
const namespace = 'storefront-local';

const rules = { 'require-continue-on-fail': require('./require-continue-on-fail') };

const plugin = { meta: { name: 'storefront-local-rules' }, rules };

/**
 * The flat config `npm run lint` runs. `parser` is typescript-eslint's parser, passed in so that this file needs
 * nothing outside ESLint itself.
 */
function configs(parser) {
	return [
		{ ignores: ['dist/**', 'node_modules/**'] },
		{
			files: ['nodes/**/*.ts', 'credentials/**/*.ts'],
			plugins: { [namespace]: plugin },
			languageOptions: { parser, sourceType: 'module' },
			rules: {
				[`${namespace}/require-continue-on-fail`]: 'error',
				// Prettier wraps code at 100 characters and leaves comments and strings whole: they are held to 120.
				'max-len': ['error', { code: 120, tabWidth: 2 }],
			},
		},
		// The trigger's execute() only drops redeliveries: its one step that can fail, the claim in n8n's database,
		// already lets the event run when the database fails (claimInDatabase), so there is no failed item for
		// "On Error: Continue" to keep, and a catch there could never run. (The Storefront node's execute() reads it
		// and hands it to the operation's item loop, actions/eachItem.ts, which turns a failed item into an `{ error }`
		// item.)
		{
			files: ['nodes/StorefrontTrigger/StorefrontTrigger.node.ts'],
			rules: { [`${namespace}/require-continue-on-fail`]: 'off' },
		},
	];
}

module.exports = { configs, rules };
