'use strict';
// Port of n8n's `require-continue-on-fail` (@n8n/eslint-plugin-community-nodes, src/rules/require-continue-on-fail.ts;
// added in n8n-io/n8n#28163, published in 0.17.0–0.23.0, removed again in n8n-io/n8n#33427 in favour of
// eslint-plugin-n8n-nodes-base's `node-execute-block-missing-continue-on-fail`, which `n8n-node lint` runs but which
// only looks at an execute() whose whole body is one for loop). Same selection and message as n8n's rule:
// an `execute()` method of a node class (`implements INodeType` or `extends Node`) must call `this.continueOnFail()`
// somewhere in its body, nested functions included; any file.

/** A node class, as n8n's rules select it: `implements INodeType`, or `extends Node`. */
function isNodeTypeClass(classNode) {
	const implementsNodeType = (classNode.implements ?? []).some(
		(impl) =>
			impl.type === 'TSClassImplements' &&
			impl.expression.type === 'Identifier' &&
			impl.expression.name === 'INodeType',
	);
	return (
		implementsNodeType ||
		(classNode.superClass?.type === 'Identifier' && classNode.superClass.name === 'Node')
	);
}

/** Whether `node` or any node below it is a call `this.continueOnFail()`. */
function containsContinueOnFailCall(node, visitorKeys) {
	if (
		node.type === 'CallExpression' &&
		node.callee.type === 'MemberExpression' &&
		node.callee.object.type === 'ThisExpression' &&
		node.callee.property.type === 'Identifier' &&
		node.callee.property.name === 'continueOnFail'
	) {
		return true;
	}
	for (const key of visitorKeys[node.type] ?? []) {
		const value = node[key];
		const children = Array.isArray(value) ? value : [value];
		for (const child of children) {
			if (child && typeof child.type === 'string' && containsContinueOnFailCall(child, visitorKeys))
				return true;
		}
	}
	return false;
}

module.exports = {
	meta: {
		type: 'problem',
		docs: { description: 'Require continueOnFail() handling in execute() methods of node classes' },
		messages: {
			missingContinueOnFail:
				'execute() method must handle this.continueOnFail() for proper error handling. ' +
				'Wrap item processing in a try/catch and check this.continueOnFail() in the catch block.',
		},
		schema: [],
	},
	create(context) {
		const visitorKeys = context.sourceCode.visitorKeys;
		return {
			ClassDeclaration(node) {
				if (!isNodeTypeClass(node)) return;
				for (const member of node.body.body) {
					if (
						member.type !== 'MethodDefinition' ||
						member.key.type !== 'Identifier' ||
						member.key.name !== 'execute'
					) {
						continue;
					}
					if (member.value.body && !containsContinueOnFailCall(member.value.body, visitorKeys)) {
						context.report({ node: member.key, messageId: 'missingContinueOnFail' });
					}
				}
			},
		};
	},
};
