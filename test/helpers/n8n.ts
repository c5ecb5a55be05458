// Runs workflows with this package's nodes through n8n-core's real WorkflowExecute, the way n8n's own
// NodeTestHarness (packages/core/nodes-testing) does: a real n8n-workflow Workflow, real parameter and expression
// resolution, real httpRequestWithAuthentication. The credentials helper applies a credential type's generic
// `authenticate` block by resolving its expressions with the workflow's own expression engine, as n8n's
// CredentialsHelper does; credentials come from memory instead of a database.
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeExecutionData,
	INodeListSearchResult,
	INodeProperties,
	INodeType,
	INodeTypes,
	IRequestOptionsSimplified,
	IRun,
	ITaskData,
	IVersionedNodeType,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	IConnections,
	ExecutionError,
} from 'n8n-workflow';
import {
	ICredentialsHelper,
	NodeConnectionTypes,
	NodeHelpers,
	Workflow,
	createRunExecutionData,
	isExpression,
} from 'n8n-workflow';

import { core } from './core';
import { StorefrontApi } from '../../credentials/StorefrontApi.credentials';
import { Storefront } from '../../nodes/Storefront/Storefront.node';

export const STOREFRONT_TYPE = 'n8n-nodes-storefront.storefront';
/** The AI Agent tool variant n8n derives from the action node (`usableAsTool`). */
export const STOREFRONT_TOOL_TYPE = 'n8n-nodes-storefront.storefrontTool';
export const INPUT_TYPE = 'harness.input';
export const MANUAL_TRIGGER_TYPE = 'n8n-nodes-base.manualTrigger';

/** Start node of harness workflows: outputs the items in its `items` parameter (or passes input through). */
class HarnessInput implements INodeType {
	description = {
		displayName: 'Harness Input',
		name: 'input',
		group: ['input'],
		version: 1,
		description: 'Emits the items given in its parameter',
		defaults: { name: 'Input' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{ displayName: 'Items', name: 'items', type: 'json', default: '[]' } as INodeProperties,
		],
	} as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const raw = this.getNodeParameter('items', 0, '[]') as unknown;
		const list = (typeof raw === 'string' ? JSON.parse(raw) : raw) as IDataObject[];
		return [list.map((json) => ({ json, pairedItem: { item: 0 } }))];
	}
}

/** Stand-in for n8n's Manual Trigger so exported workflows can run here: passes its input on. */
class ManualTrigger implements INodeType {
	description = {
		displayName: 'Manual Trigger',
		name: 'manualTrigger',
		group: ['trigger'],
		version: 1,
		description: 'Starts the workflow',
		defaults: { name: 'When clicking "Execute workflow"' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	} as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return [this.getInputData()];
	}
}

type AnyNodeType = INodeType | IVersionedNodeType;

function loadTriggerNode(): Record<string, AnyNodeType> {
	try {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const { StorefrontTrigger } = require('../../nodes/StorefrontTrigger/StorefrontTrigger.node');
		return { 'n8n-nodes-storefront.storefrontTrigger': new StorefrontTrigger() as INodeType };
	} catch {
		return {};
	}
}

/**
 * The tool variant as n8n makes it at load time (convertNodeToAiTool in n8n's tool-generation): the same node with
 * `Tool` appended to its name, which is what the `@tool` display condition tests. n8n also swaps the inputs and
 * outputs for the agent's connection and adds its own description parameters unless the node has a
 * `toolDescription` (this one does): neither matters to running the node, so only the name changes here.
 */
export function toolVariant(): IVersionedNodeType {
	const action = new Storefront();
	const nodeVersions: IVersionedNodeType['nodeVersions'] = {};
	for (const [version, nodeType] of Object.entries(action.nodeVersions)) {
		const description = { ...nodeType.description, name: `${nodeType.description.name}Tool` };
		nodeVersions[Number(version)] = Object.assign(Object.create(nodeType) as INodeType, {
			description,
		});
	}
	return Object.assign(Object.create(action) as IVersionedNodeType, {
		nodeVersions,
		description: { ...action.description, name: `${action.description.name}Tool` },
	});
}

const nodeTypeMap: Record<string, AnyNodeType> = {
	[STOREFRONT_TYPE]: new Storefront(),
	[STOREFRONT_TOOL_TYPE]: toolVariant(),
	[INPUT_TYPE]: new HarnessInput(),
	[MANUAL_TRIGGER_TYPE]: new ManualTrigger(),
	...loadTriggerNode(),
};

/** Adds or replaces a node type (e.g. the compiled node from dist/, or a benchmark's baseline node). */
export function registerNodeType(type: string, nodeType: AnyNodeType): void {
	nodeTypeMap[type] = nodeType;
}

export const nodeTypes: INodeTypes = {
	getByName: (type) => {
		const found = nodeTypeMap[type];
		if (!found) throw new Error(`Unknown node type ${type}`);
		return found;
	},
	getByNameAndVersion: (type, version) =>
		NodeHelpers.getVersionedNodeType(nodeTypes.getByName(type), version),
	getKnownTypes: () => ({}),
};

const credentialTypes: Record<string, ICredentialType> = { storefrontApi: new StorefrontApi() };

export type CredentialStore = Record<string, ICredentialDataDecryptedObject>;

/** n8n's ICredentialsHelper over an in-memory store, applying generic authentication with the real expression engine. */
export class HarnessCredentialsHelper extends ICredentialsHelper {
	constructor(private readonly store: CredentialStore) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		incoming: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const requestOptions = incoming as IHttpRequestOptions & Record<string, unknown>;
		const { authenticate } = credentialTypes[typeName] ?? {};
		if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions);
		if (authenticate?.type === 'generic') {
			if (!workflow || !node) throw new Error('Generic authentication needs the workflow and node');
			const resolve = (value: string) =>
				isExpression(value)
					? String(
							workflow.expression.getSimpleParameterValue(
								node,
								value,
								'internal',
								{ $credentials: credentials },
								undefined,
								'',
							) ?? '',
						)
					: value;
			for (const [where, entries] of Object.entries(authenticate.properties)) {
				const target = (requestOptions[where] ??= {}) as Record<string, unknown>;
				for (const [key, value] of Object.entries(entries as Record<string, string>)) {
					target[resolve(key)] = resolve(value);
				}
			}
		}
		return requestOptions;
	}

	async preAuthentication(): Promise<undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<undefined> {
		return undefined;
	}

	async getCredentials(): Promise<never> {
		throw new Error('The harness keeps no encrypted credentials');
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const data = this.store[type];
		if (!data) throw new Error(`No credentials of type ${type} in the harness`);
		return { ...data };
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties(type: string): INodeProperties[] {
		return credentialTypes[type]?.properties ?? [];
	}
}

export function buildAdditionalData(
	credentials: CredentialStore,
	hooks?: InstanceType<typeof core.ExecutionLifecycleHooks>,
): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper: new HarnessCredentialsHelper(credentials),
		hooks,
		executionId: 'harness-execution',
		restApiUrl: 'http://localhost:5678/rest',
		instanceBaseUrl: 'http://localhost:5678/',
		webhookBaseUrl: 'http://localhost:5678/webhook',
		webhookTestBaseUrl: 'http://localhost:5678/webhook-test',
		webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
		formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
		variables: {},
		currentNodeParameters: undefined,
		executeWorkflow: async () => {
			throw new Error('Sub-workflows are not supported by the harness');
		},
		setExecutionStatus: () => {},
		logAiEvent: () => {},
		startRunnerTask: async () => {
			throw new Error('Task runners are not supported by the harness');
		},
	} as unknown as IWorkflowExecuteAdditionalData;
}

export interface WorkflowResult {
	run: IRun;
	/** Output items per node name: runData[node][0].data.main. */
	outputs: Record<string, Array<INodeExecutionData[] | null>>;
	/** The workflow error, if the run failed. */
	error?: ExecutionError;
}

/** Runs a workflow (n8n export shape: nodes + connections) from its first node without inputs. */
export async function runWorkflow(
	workflowJson: Pick<IWorkflowBase, 'nodes' | 'connections'> & Partial<IWorkflowBase>,
	credentials: CredentialStore,
): Promise<WorkflowResult> {
	const workflow = new Workflow({
		id: workflowJson.id ?? 'harness-workflow',
		name: workflowJson.name ?? 'Harness workflow',
		nodes: workflowJson.nodes,
		connections: workflowJson.connections,
		active: false,
		nodeTypes,
		settings: workflowJson.settings,
		staticData: {},
	});
	const destinations = new Set(
		Object.values(workflowJson.connections).flatMap((byType) =>
			Object.values(byType).flatMap((outputs) =>
				outputs.flatMap((list) => (list ?? []).map((c) => c.node)),
			),
		),
	);
	const startNode = workflowJson.nodes.find(
		(node) => !destinations.has(node.name) && !node.disabled,
	);
	if (!startNode) throw new Error('The workflow has no start node');

	const hooks = new core.ExecutionLifecycleHooks('manual', 'harness-execution', {
		id: workflow.id,
		name: workflow.name,
		nodes: workflowJson.nodes,
		connections: workflowJson.connections,
		active: false,
		activeVersionId: null,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
	} as IWorkflowBase);
	let finished: (run: IRun) => void = () => {};
	const done = new Promise<IRun>((resolve) => (finished = resolve));
	hooks.addHandler('workflowExecuteAfter', (run) => finished(run));

	const additionalData = buildAdditionalData(credentials, hooks);

	const runExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [{ node: startNode, data: { main: [[{ json: {} }]] }, source: null }],
		},
	});
	const execute = new core.WorkflowExecute(additionalData, 'manual', runExecutionData);
	try {
		await execute.processRunExecutionData(workflow);
	} catch (error) {
		// n8n refuses to start a workflow whose nodes have issues (e.g. a required parameter left empty).
		const run = {
			data: runExecutionData,
			mode: 'manual',
			status: 'error',
			startedAt: new Date(),
		} as unknown as IRun;
		return { run, outputs: {}, error: error as ExecutionError };
	}
	const run = await done;
	const outputs: WorkflowResult['outputs'] = {};
	for (const [name, tasks] of Object.entries(run.data.resultData.runData)) {
		outputs[name] = (tasks as ITaskData[])[0]?.data?.main ?? [];
	}
	return { run, outputs, error: run.data.resultData.error };
}

export interface RunNodeOptions {
	parameters: INode['parameters'];
	/** Input items of the node (default: one empty item). */
	items?: IDataObject[];
	credentials: ICredentialDataDecryptedObject;
	/** Shorthand for onError: 'continueRegularOutput'. */
	continueOnFail?: boolean;
	onError?: INode['onError'];
	nodeType?: string;
	typeVersion?: number;
}

export interface RunNodeResult {
	/** Items of the node's first output (success items; with continueRegularOutput also the error items). */
	items: INodeExecutionData[];
	/** Items of the error output (onError: continueErrorOutput). */
	errorItems: INodeExecutionData[];
	/** The error the node failed with, when it did not continue. */
	error?: ExecutionError;
	run: IRun;
}

export const NODE_NAME = 'Storefront';

/** Runs one Storefront node, fed by an input node emitting `items`, through WorkflowExecute. */
export async function runNode(options: RunNodeOptions): Promise<RunNodeResult> {
	const onError = options.onError ?? (options.continueOnFail ? 'continueRegularOutput' : undefined);
	const nodes: INode[] = [
		{
			id: 'input-node',
			name: 'Input',
			type: INPUT_TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters: { items: JSON.stringify(options.items ?? [{}]) },
		},
		{
			id: 'storefront-node',
			name: NODE_NAME,
			type: options.nodeType ?? STOREFRONT_TYPE,
			typeVersion: options.typeVersion ?? 1,
			position: [200, 0],
			parameters: options.parameters,
			credentials: { storefrontApi: { id: 'cred-1', name: 'Storefront account' } },
			...(onError ? { onError } : {}),
		},
	];
	const connections: IConnections = {
		Input: { main: [[{ node: NODE_NAME, type: NodeConnectionTypes.Main, index: 0 }]] },
	};
	const { run, outputs, error } = await runWorkflow(
		{ nodes, connections },
		{ storefrontApi: options.credentials },
	);
	const task = run.data.resultData.runData[NODE_NAME]?.[0];
	const main = outputs[NODE_NAME] ?? [];
	return {
		items: main[0] ?? [],
		errorItems: main[1] ?? [],
		error: task?.error ?? error,
		run,
	};
}

/**
 * Runs a node's listSearch method (resource locator "From List") through n8n-core's real LoadOptionsContext,
 * as the editor does: `filter` is the search box text, `paginationToken` the token of the previous page.
 */
export async function runListSearch(
	method: string,
	credentials: ICredentialDataDecryptedObject,
	{
		filter,
		paginationToken,
		parameters = {},
	}: { filter?: string; paginationToken?: string; parameters?: INode['parameters'] } = {},
): Promise<INodeListSearchResult> {
	const node: INode = {
		id: 'storefront-node',
		name: NODE_NAME,
		type: STOREFRONT_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: { storefrontApi: { id: 'cred-1', name: 'Storefront account' } },
	};
	const workflow = new Workflow({
		id: 'harness-load-options',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes,
	});
	const additionalData = buildAdditionalData({ storefrontApi: credentials });
	const context = new core.LoadOptionsContext(workflow, node, additionalData, 'parameters');
	const nodeType = nodeTypes.getByNameAndVersion(STOREFRONT_TYPE, 1);
	const search = nodeType.methods?.listSearch?.[method];
	if (!search) throw new Error(`No listSearch method ${method}`);
	return await search.call(context, filter, paginationToken);
}
