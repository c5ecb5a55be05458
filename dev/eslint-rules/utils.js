'use strict';
// AST helpers shared by the local rules. They behave like the helpers of the same names in n8n's
// @n8n/eslint-plugin-community-nodes (src/utils/ast-utils.ts, as published in 0.32.0), so that a rule ported from n8n
// selects the same nodes it does there. Written for this repository rather than copied: that plugin is under n8n's
// Sustainable Use License, this package under MIT.

/** Whether a class says `implements <name>`. */
function implementsInterface(classNode, name) {
	return (classNode.implements ?? []).some(
		(impl) => impl.type === 'TSClassImplements' && impl.expression.type === 'Identifier' && impl.expression.name === name,
	);
}

/** A node class for n8n's rules: `implements INodeType`, or `extends Node`. */
function isNodeTypeClass(classNode) {
	if (implementsInterface(classNode, 'INodeType')) return true;
	return classNode.superClass?.type === 'Identifier' && classNode.superClass.name === 'Node';
}

/** A class field `name = …` (non-computed identifier key). */
function findClassProperty(classNode, name) {
	return (
		classNode.body.body.find(
			(member) => member.type === 'PropertyDefinition' && member.key?.type === 'Identifier' && member.key.name === name,
		) ?? null
	);
}

/** The object literal behind `x`, `x as T`, `x satisfies T`, `<T>x` and `x!`. */
function asObjectExpression(node) {
	let current = node;
	while (
		current &&
		['TSAsExpression', 'TSSatisfiesExpression', 'TSTypeAssertion', 'TSNonNullExpression'].includes(current.type)
	) {
		current = current.expression;
	}
	return current?.type === 'ObjectExpression' ? current : null;
}

/**
 * The `description` object literal of a node class: the class field's initializer, else (versioned nodes) an
 * object literal assigned to `this.description` at the top level of the constructor.
 */
function findNodeDescriptionObject(classNode) {
	const fromField = asObjectExpression(findClassProperty(classNode, 'description')?.value ?? null);
	if (fromField) return fromField;
	const constructor = classNode.body.body.find((m) => m.type === 'MethodDefinition' && m.kind === 'constructor');
	for (const statement of constructor?.value.body?.body ?? []) {
		const expression = statement.type === 'ExpressionStatement' ? statement.expression : null;
		if (
			expression?.type === 'AssignmentExpression' &&
			expression.operator === '=' &&
			expression.left.type === 'MemberExpression' &&
			expression.left.object.type === 'ThisExpression' &&
			expression.left.property.type === 'Identifier' &&
			expression.left.property.name === 'description'
		) {
			const assigned = asObjectExpression(expression.right);
			if (assigned) return assigned;
		}
	}
	return null;
}

/** A property `name: …` of an object literal (identifier key, as in TypeScript source). */
function findObjectProperty(objectNode, name) {
	return (
		objectNode.properties.find((p) => p.type === 'Property' && p.key.type === 'Identifier' && p.key.name === name) ?? null
	);
}

/** A property `"name": …` of an object literal (string key, as in JSON). */
function findJsonProperty(objectNode, name) {
	return objectNode.properties.find((p) => p.type === 'Property' && p.key.type === 'Literal' && p.key.value === name) ?? null;
}

function findArrayLiteralProperty(objectNode, name) {
	const property = findObjectProperty(objectNode, name);
	return property?.value.type === 'ArrayExpression' ? property.value : null;
}

function getLiteralValue(node) {
	return node?.type === 'Literal' ? node.value : null;
}

function getStringLiteralValue(node) {
	const value = getLiteralValue(node);
	return typeof value === 'string' ? value : null;
}

function getBooleanLiteralValue(node) {
	const value = getLiteralValue(node);
	return typeof value === 'boolean' ? value : null;
}

/** The root object of a JSON file parsed as a program: its parent is the program's only expression statement. */
function getTopLevelObjectInJson(node) {
	return node.parent?.type === 'ExpressionStatement' ? node : null;
}

function isFileType(filename, extension) {
	return filename.endsWith(extension);
}

module.exports = {
	findArrayLiteralProperty,
	findJsonProperty,
	findNodeDescriptionObject,
	findObjectProperty,
	getBooleanLiteralValue,
	getStringLiteralValue,
	getTopLevelObjectInJson,
	isFileType,
	isNodeTypeClass,
};
