// Runs the Storefront Polling Trigger's poll() through n8n-core's own PollContext (the context n8n's scheduler
// gives a polling node), and keeps its static data the way n8n does: saved when a poll emits items and at
// activation, so `restart()` starts from what n8n would have in its database (verified in n8n's
// active-workflow-triggers.js / active-workflows.js: `__emit` saves, a poll returning null does not).
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INode,
	INodeType,
	IPollFunctions,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { core } from './core';
import { buildAdditionalData, nodeTypes, registerNodeType } from './n8n';
import { StorefrontPollingTrigger } from '../../nodes/StorefrontPollingTrigger/StorefrontPollingTrigger.node';

export const POLL_TYPE = 'n8n-nodes-storefront.storefrontPollingTrigger';
registerNodeType(POLL_TYPE, new StorefrontPollingTrigger());

export interface Poller {
	/** One scheduled poll ('trigger'), or Fetch Test Event ('manual'). Returns the items' JSON, or null. */
	poll(mode?: 'trigger' | 'manual'): Promise<IDataObject[] | null>;
	/** Activation: n8n polls at once and saves the static data afterwards, whatever the poll returned. */
	activate(): Promise<IDataObject[] | null>;
	/** n8n stopped and started: the static data as last saved. */
	restart(): void;
	/** The static data as n8n holds it in memory now. */
	readonly staticData: IDataObject;
	/** The static data as last saved to the database (JSON text). */
	readonly saved: string;
	/** The trigger's state as last saved (its node's static data, key `poll`). */
	savedState(): {
		orders?: IDataObject & { cursor: number; statuses: unknown[]; atCursor: string[] };
		products?: IDataObject;
	};
	warnings: string[];
}

export function createPoller(
	credentials: ICredentialDataDecryptedObject,
	parameters: INode['parameters'],
): Poller {
	const node: INode = {
		id: 'poll-node',
		name: 'Storefront Polling Trigger',
		type: POLL_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: { storefrontApi: { id: 'cred-1', name: 'Storefront account' } },
	};
	const additionalData = buildAdditionalData({ storefrontApi: credentials });
	const nodeType = nodeTypes.getByNameAndVersion(POLL_TYPE, 1) as INodeType;
	let saved = '{}';
	let workflow: Workflow;
	const warnings: string[] = [];
	const load = () => {
		workflow = new Workflow({
			id: 'harness-poll',
			nodes: [node],
			connections: {},
			active: true,
			nodeTypes,
			staticData: JSON.parse(saved),
		});
	};
	load();
	const save = () => {
		saved = JSON.stringify(workflow.staticData);
	};
	const run = async (mode: 'trigger' | 'manual') => {
		const context = new core.PollContext(workflow, node, additionalData, mode, 'activate');
		// n8n's logger is silent in tests; the warnings the node logs are kept for assertions.
		const logger = {
			...context.logger,
			warn: (message: string) => void warnings.push(message),
			debug: () => {},
		};
		// The context's own logger is a read-only property: an object inheriting from the context carries this one.
		const withLogger = Object.create(context, { logger: { value: logger } }) as typeof context;
		const result = await (
			nodeType.poll as (this: IPollFunctions) => ReturnType<NonNullable<INodeType['poll']>>
		).call(withLogger);
		return result ? result[0].map((item) => item.json) : null;
	};
	return {
		async poll(mode = 'trigger') {
			const items = await run(mode);
			if (items && mode === 'trigger') save();
			return items;
		},
		async activate() {
			const items = await run('trigger');
			save();
			return items;
		},
		restart: load,
		get staticData() {
			return workflow.staticData;
		},
		get saved() {
			return saved;
		},
		savedState() {
			return (JSON.parse(saved) as Record<string, IDataObject>)[`node:${node.name}`]?.poll as never;
		},
		warnings,
	};
}
