'use strict';
// Port of n8n's `single-credential-per-node` (n8n-io/n8n packages/@n8n/eslint-plugin-community-nodes/src/rules/
// single-credential-per-node.ts and docs/rules/single-credential-per-node.md, read at commit 489418ad7bf9). Not in any
// published version of the plugin. As in n8n: `.node.ts` files only; when a node class's description lists two or
// more credentials, every pair must be mutually exclusive: some single-value property (not a multiOptions one)
// appears in both credentials' `displayOptions.show` with no value in common. Values compare as literals, local
// constants and local enum members (statically evaluated), or as different members of one imported enum; a value
// that cannot be compared makes the pair not exclusive. Severity `error` in n8n's configs.
// getStaticValue / findVariable are ESLint's own helpers (@eslint-community/eslint-utils, a dependency of eslint),
// the functions typescript-eslint re-exports as ASTUtils and n8n's rule calls.

const { findVariable, getStaticValue } = require('@eslint-community/eslint-utils');

const {
	findArrayLiteralProperty,
	findNodeDescriptionObject,
	findObjectProperty,
	getLiteralValue,
	getPropertyKeyName,
	isFileType,
	isNodeTypeClass,
} = require('./utils');

const isPlainMember = (node) =>
	node.type === 'MemberExpression' && node.object.type === 'Identifier' && !node.computed && node.property.type === 'Identifier';

/** A comparable form of a `show` value: a typed literal, or a member of an imported binding; null when unknowable. */
function getDisplayValue(node, sourceCode) {
	if (!node) return null;
	const scope = sourceCode.getScope(node);
	let value = getStaticValue(node, scope)?.value;
	if (value === undefined && isPlainMember(node)) {
		const variable = findVariable(scope, node.object);
		const definition = variable?.defs.length === 1 ? variable.defs[0]?.node : null;
		if (definition?.type === 'TSEnumDeclaration') {
			const members = definition.body?.members ?? definition.members ?? [];
			const member = members.find(
				({ id }) =>
					(id.type === 'Identifier' && id.name === node.property.name) || (id.type === 'Literal' && id.value === node.property.name),
			);
			value = getLiteralValue(member?.initializer ?? null) ?? undefined;
		}
	}
	if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
		return { kind: 'literal', value: `${typeof value}:${String(value)}` };
	}
	if (isPlainMember(node)) {
		const binding = findVariable(scope, node.object);
		const definition = binding?.defs.length === 1 ? binding.defs[0]?.node : null;
		if (
			binding &&
			['ImportSpecifier', 'ImportDefaultSpecifier', 'ImportNamespaceSpecifier'].includes(definition?.type)
		) {
			return { kind: 'importedMember', binding, member: node.property.name };
		}
	}
	return null;
}

function areDifferent(left, right) {
	if (left.kind === 'literal' && right.kind === 'literal') return left.value !== right.value;
	return left.kind === 'importedMember' && right.kind === 'importedMember' && left.binding === right.binding && left.member !== right.member;
}

/** The `displayOptions.show` conditions of a credential entry: property name → values (only fully comparable lists). */
function getShowConditions(element, sourceCode) {
	const conditions = new Map();
	if (element?.type !== 'ObjectExpression') return conditions;
	const displayOptions = findObjectProperty(element, 'displayOptions');
	if (displayOptions?.value.type !== 'ObjectExpression') return conditions;
	const show = findObjectProperty(displayOptions.value, 'show');
	if (show?.value.type !== 'ObjectExpression') return conditions;
	for (const property of show.value.properties) {
		if (property.type !== 'Property' || property.value.type !== 'ArrayExpression') continue;
		const name = getPropertyKeyName(property);
		if (!name) continue;
		const values = [];
		for (const valueNode of property.value.elements) {
			const value = getDisplayValue(valueNode, sourceCode);
			if (value === null) {
				values.length = 0;
				break;
			}
			values.push(value);
		}
		if (values.length > 0) conditions.set(name, values);
	}
	return conditions;
}

function getMultiOptionPropertyNames(description) {
	const names = new Set();
	for (const element of findArrayLiteralProperty(description, 'properties')?.elements ?? []) {
		if (element?.type !== 'ObjectExpression') continue;
		const name = findObjectProperty(element, 'name');
		const type = findObjectProperty(element, 'type');
		if (name && type?.value.type === 'Literal' && type.value.value === 'multiOptions') {
			const nameValue = getLiteralValue(name.value);
			if (typeof nameValue === 'string') names.add(nameValue);
		}
	}
	return names;
}

function areMutuallyExclusive(left, right, multiOptionPropertyNames, sourceCode) {
	const leftConditions = getShowConditions(left, sourceCode);
	const rightConditions = getShowConditions(right, sourceCode);
	for (const [name, leftValues] of leftConditions) {
		if (multiOptionPropertyNames.has(name)) continue;
		const rightValues = rightConditions.get(name);
		if (rightValues && leftValues.every((l) => rightValues.every((r) => areDifferent(l, r)))) return true;
	}
	return false;
}

module.exports = {
	meta: {
		type: 'problem',
		docs: { description: 'Ensure a node uses only one credential at a time' },
		messages: {
			multipleCredentials:
				'A node can use only one credential at a time. Use mutually exclusive displayOptions for alternative authentication methods. Move non-authentication settings to a node property or collection so users can set them with expressions.',
		},
		schema: [],
	},
	create(context) {
		if (!isFileType(context.filename, '.node.ts')) return {};
		return {
			ClassDeclaration(node) {
				if (!isNodeTypeClass(node)) return;
				const description = findNodeDescriptionObject(node);
				const credentials = description && findArrayLiteralProperty(description, 'credentials');
				if (!credentials || credentials.elements.length < 2) return;
				const multiOptionPropertyNames = getMultiOptionPropertyNames(description);
				const elements = credentials.elements;
				for (let i = 0; i < elements.length - 1; i++) {
					for (let j = i + 1; j < elements.length; j++) {
						if (!areMutuallyExclusive(elements[i] ?? null, elements[j] ?? null, multiOptionPropertyNames, context.sourceCode)) {
							context.report({ node: credentials, messageId: 'multipleCredentials' });
							return;
						}
					}
				}
			},
		};
	},
};
