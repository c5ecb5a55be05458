'use strict';
// Port of n8n's `prefer-declarative-style` (n8n-io/n8n packages/@n8n/eslint-plugin-community-nodes/src/rules/
// prefer-declarative-style.ts at commit 8d2e9ee429bf, docs/rules/prefer-declarative-style.md). Not in any published
// version of the plugin. As in n8n: `.node.ts` files only; a non-trigger node class with exactly one output whose
// `execute()` makes exactly one `this.helpers.httpRequest[WithAuthentication]` call, inside a top-level loop over the
// input items (for…of / for…in over `getInputData()`, or an index loop bounded by its length) that uses the item, and
// has no "escape hatch" (names/parameters about binary data, cursors, offsets, pages, pagination or returnAll, static
// data, or calls other than getCredentials / getInputData / getNodeParameter / push), is reported: such a node
// could be declarative. Severity `warn` in n8n's configs.

const {
	findNodeDescriptionObject,
	findObjectProperty,
	getPropertyKeyName,
	isFileType,
	isNodeTypeClass,
	isThisHelpersAccess,
	isThisMethodCall,
	isTriggerNode,
} = require('./utils');

const HTTP_REQUEST_METHODS = new Set(['httpRequest', 'httpRequestWithAuthentication']);
const ALLOWED_CALLS = new Set(['getCredentials', 'getInputData', 'getNodeParameter', 'push']);
const ESCAPE_HATCH_NAME = /binary|cursor|offset|page|pagination|returnAll/i;

const isInputItems = (node, inputItems) =>
	(node.type === 'Identifier' && inputItems.has(node.name)) ||
	(node.type === 'CallExpression' && isThisMethodCall(node, 'getInputData'));

const isInputItemsLength = (node, inputItems) =>
	node.type === 'MemberExpression' &&
	!node.computed &&
	node.property.type === 'Identifier' &&
	node.property.name === 'length' &&
	isInputItems(node.object, inputItems);

const getBoundedIndex = (test, inputItems) =>
	test?.type === 'BinaryExpression' && test.operator === '<' && test.left.type === 'Identifier' && isInputItemsLength(test.right, inputItems)
		? test.left.name
		: null;

const incrementsIndex = (node, index) =>
	node.type === 'UpdateExpression' && node.operator === '++' && node.argument.type === 'Identifier' && node.argument.name === index;

/** '' for a for…of/for…in over the items, the index name for an index loop over them, else null. */
function getItemLoopIndex(node, state) {
	if (node.type === 'ForOfStatement' || node.type === 'ForInStatement') {
		return isInputItems(node.right, state.inputItems) ? '' : null;
	}
	const index = getBoundedIndex(node.test, state.inputItems);
	if (!index) return null;
	if (node.type === 'ForStatement') {
		const isItemLoop =
			node.init?.type === 'VariableDeclaration' &&
			node.init.declarations.some(
				(d) => d.id.type === 'Identifier' && d.id.name === index && d.init?.type === 'Literal' && d.init.value === 0,
			) &&
			node.update !== null &&
			incrementsIndex(node.update, index);
		return isItemLoop ? index : null;
	}
	const isItemLoop =
		state.zeroIndexes.has(index) &&
		node.body.type === 'BlockStatement' &&
		node.body.body.some((s) => s.type === 'ExpressionStatement' && incrementsIndex(s.expression, index));
	return isItemLoop ? index : null;
}

function getMemberName(node) {
	if (node.callee.type !== 'MemberExpression') return null;
	return node.callee.property.type === 'Identifier' ? node.callee.property.name : null;
}

function getHttpRequestMethod(node) {
	if (node.callee.type !== 'MemberExpression') return null;
	const direct = getMemberName(node);
	if (direct && HTTP_REQUEST_METHODS.has(direct) && isThisHelpersAccess(node.callee)) return direct;
	const object = node.callee.object;
	if (
		direct === 'call' &&
		object.type === 'MemberExpression' &&
		object.property.type === 'Identifier' &&
		HTTP_REQUEST_METHODS.has(object.property.name) &&
		isThisHelpersAccess(object)
	) {
		return object.property.name;
	}
	return null;
}

module.exports = {
	meta: {
		type: 'suggestion',
		docs: { description: 'Prefer declarative routing for nodes that only send one HTTP request per item.' },
		messages: {
			preferDeclarativeStyle:
				'This execute() method only sends one HTTP request per input item. Use declarative routing and requestDefaults instead.',
		},
		schema: [],
	},
	create(context) {
		if (!isFileType(context.filename, '.node.ts')) return {};

		const eligibleClassStack = [];
		let state = null;

		const enterLoop = (node) => {
			if (!state) return;
			const index = getItemLoopIndex(node, state);
			state.loopStack.push({ index, referencesItem: index === '', hasRequest: false });
		};
		const exitLoop = () => {
			if (!state) return;
			const loop = state.loopStack.pop();
			state.requestInLoop ||=
				state.loopStack.length === 0 && loop !== undefined && loop.index !== null && loop.referencesItem && loop.hasRequest;
		};

		return {
			ClassDeclaration(node) {
				const description = findNodeDescriptionObject(node);
				const outputs = description ? findObjectProperty(description, 'outputs') : null;
				const hasOneOutput = outputs?.value.type === 'ArrayExpression' && outputs.value.elements.length === 1;
				eligibleClassStack.push(isNodeTypeClass(node) && description !== null && !isTriggerNode(node, description) && hasOneOutput);
			},
			'ClassDeclaration:exit'() {
				eligibleClassStack.pop();
			},
			MethodDefinition(node) {
				if (eligibleClassStack.at(-1) && getPropertyKeyName(node) === 'execute') {
					state = {
						node,
						httpRequestCount: 0,
						hasEscapeHatch: false,
						requestInLoop: false,
						inputItems: new Set(),
						zeroIndexes: new Set(),
						loopStack: [],
					};
				}
			},
			'MethodDefinition:exit'(node) {
				if (state?.node !== node) return;
				if (state.httpRequestCount === 1 && state.requestInLoop && !state.hasEscapeHatch) {
					context.report({ node, messageId: 'preferDeclarativeStyle' });
				}
				state = null;
			},
			VariableDeclarator(node) {
				if (!state || node.id.type !== 'Identifier') return;
				if (node.init?.type === 'CallExpression' && isThisMethodCall(node.init, 'getInputData')) state.inputItems.add(node.id.name);
				if (node.init?.type === 'Literal' && node.init.value === 0) state.zeroIndexes.add(node.id.name);
			},
			ForStatement: enterLoop,
			ForInStatement: enterLoop,
			ForOfStatement: enterLoop,
			WhileStatement: enterLoop,
			DoWhileStatement: enterLoop,
			'ForStatement:exit': exitLoop,
			'ForInStatement:exit': exitLoop,
			'ForOfStatement:exit': exitLoop,
			'WhileStatement:exit': exitLoop,
			'DoWhileStatement:exit': exitLoop,
			Identifier(node) {
				if (!state) return;
				if (ESCAPE_HATCH_NAME.test(node.name)) state.hasEscapeHatch = true;
				const loop = state.loopStack.at(-1);
				if (loop?.index !== node.name) return;
				const parent = node.parent;
				if (
					(parent.type === 'MemberExpression' && parent.computed && parent.property === node && isInputItems(parent.object, state.inputItems)) ||
					(parent.type === 'CallExpression' && isThisMethodCall(parent, 'getNodeParameter') && parent.arguments[1] === node) ||
					(parent.type === 'Property' && parent.value === node && getPropertyKeyName(parent) === 'item')
				) {
					loop.referencesItem = true;
				}
			},
			Literal(node) {
				if (!state || typeof node.value !== 'string' || !ESCAPE_HATCH_NAME.test(node.value)) return;
				const parent = node.parent;
				if (
					(parent.type === 'CallExpression' && getMemberName(parent) === 'getNodeParameter' && parent.arguments[0] === node) ||
					(parent.type === 'Property' && parent.key === node)
				) {
					state.hasEscapeHatch = true;
				}
			},
			TemplateLiteral(node) {
				const parent = node.parent;
				if (
					state &&
					parent.type === 'CallExpression' &&
					getMemberName(parent) === 'getNodeParameter' &&
					parent.arguments[0] === node &&
					node.quasis.some((part) => ESCAPE_HATCH_NAME.test(part.value.cooked ?? ''))
				) {
					state.hasEscapeHatch = true;
				}
			},
			CallExpression(node) {
				if (!state) return;
				if (getHttpRequestMethod(node)) {
					state.httpRequestCount++;
					const loop = state.loopStack.length === 1 ? state.loopStack[0] : null;
					if (loop) loop.hasRequest = true;
					return;
				}
				const methodName = getMemberName(node);
				if (methodName === 'getWorkflowStaticData' || !methodName || !ALLOWED_CALLS.has(methodName)) state.hasEscapeHatch = true;
			},
		};
	},
};
