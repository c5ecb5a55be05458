'use strict';
// Local ESLint rules: checks from n8n's @n8n/eslint-plugin-community-nodes that the published tooling this package is
// checked with does not run (`n8n-node lint` with the plugin's 0.32.0 and eslint-plugin-n8n-nodes-base, and
// @n8n/scan-community-package), kept only where a change to this package could break them (docs/verification.md, "Lint
// rules", says what each catches). Each file says where its rule comes from in n8n's repository and what became of it
// there. `severities` are n8n's own for each rule; `configs()` applies them to nodes/ and credentials/
// (./lint.config.mjs, run by `npm run lint`), and test/package/lintRules.test.ts tests every rule and runs the same
// configuration over the package.

const rules = {
	'hint-max-length': require('./hint-max-length'),
	'non-required-fields-in-collection': require('./non-required-fields-in-collection'),
	'open-ended-node-fields': require('./open-ended-node-fields'),
	'require-continue-on-fail': require('./require-continue-on-fail'),
	'valid-node-categories': require('./valid-node-categories'),
};

/** n8n's severity for each rule in its `recommended` config. */
const severities = {
	'hint-max-length': 'warn',
	'non-required-fields-in-collection': 'warn',
	'open-ended-node-fields': 'warn',
	'require-continue-on-fail': 'error',
	'valid-node-categories': 'error',
};

/** Plugin namespace of these rules in ESLint messages and disable comments: `storefront-local/<rule>`. */
const namespace = 'storefront-local';

const plugin = { meta: { name: 'storefront-local-rules' }, rules };

/**
 * The flat config that applies every rule at n8n's severity: to the TypeScript under nodes/ and credentials/, and to
 * the nodes' .node.json codex files (parsed as JSON scripts, as `n8n-node lint` parses package.json).
 * `parser` is typescript-eslint's parser, passed in so that this file needs nothing outside ESLint itself.
 */
function configs(parser) {
	const ruleSettings = Object.fromEntries(Object.entries(severities).map(([name, severity]) => [`${namespace}/${name}`, severity]));
	return [
		{ ignores: ['dist/**', 'node_modules/**'] },
		{
			files: ['nodes/**/*.ts', 'credentials/**/*.ts'],
			plugins: { [namespace]: plugin },
			languageOptions: { parser, sourceType: 'module' },
			rules: ruleSettings,
		},
		// The trigger's execute() only drops redeliveries: its one step that can fail, the claim in n8n's database,
		// already lets the event run when the database fails (claimInDatabase), so there is no failed item for
		// "On Error: Continue" to keep, and a catch there could never run. (The Storefront node's execute() reads it
		// and hands it to the router, which turns a failed item into an `{ error }` item.)
		{
			files: ['nodes/StorefrontTrigger/StorefrontTrigger.node.ts'],
			rules: { [`${namespace}/require-continue-on-fail`]: 'off' },
		},
		{
			files: ['nodes/**/*.node.json'],
			plugins: { [namespace]: plugin },
			languageOptions: { parser, parserOptions: { extraFileExtensions: ['.json'] } },
			rules: ruleSettings,
		},
	];
}

module.exports = { configs, namespace, plugin, rules, severities };
