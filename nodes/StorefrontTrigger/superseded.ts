// A late status change (docs/trigger.md, Late and superseded) run after the order's current status would make an old
// status the workflow's last word on the order; so would a late creation, with the order's first status. It is
// superseded when this n8n knows the order in another status since (./statusesKnown: what the process that received it
// knew, and this one now), free. A late one of whose order nothing later is known is checked against the order as it
// is now: one request per order and run, paced as the node's.
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { StorefrontClient } from '../shared/transport';
import { changedAt, hasUpdatedAt } from '../shared/changes/read';
import { scopeOf } from '../shared/n8n';
import { statusChange } from './changeKeys';
import { catchesUp, CHANGE_KEY, SOURCE_FIELD, type Options } from './options';
import { judge, noteStatus, type Judgement } from './statusesKnown';

/** A delivery this much younger than its run is not asked about: the order has rarely changed again so soon. */
const LATE_AFTER_MS = 60_000;

/**
 * Marks the status changes and creations whose order has another status by now, and leaves out the changes if asked; a
 * test or retry runs as is.
 */
export async function markSuperseded(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	options: Options,
): Promise<INodeExecutionData[]> {
	if (!catchesUp(options) || ['manual', 'retry'].includes(context.getMode())) return items;
	const scope = scopeOf(context);
	const now = Date.now();
	let client: StorefrontClient | undefined;
	const asked = new Map<string, Promise<string | undefined>>();
	for (const item of items) {
		const { json } = item;
		// A creation is the order's change to its first status: marked as an update is, a reading's too (its order's
		// changes may have run before it). A reading's status change is the order's status as read.
		const change = statusChange(json, now);
		if (change === undefined || (json[SOURCE_FIELD] === 'catchUp' && json.type !== 'order.created'))
			continue;
		const { order: id, status, at } = change;
		const here = judge(scope, id, status, at);
		const door = item[CHANGE_KEY] as Judgement | undefined;
		let current = here.current ?? door?.current;
		// Late: a minute old, or older than what the process that received it knows (it started since, or restarted).
		const heardSince = door?.knownSince ?? here.knownSince ?? now;
		const late = now - at > LATE_AFTER_MS || at < heardSince;
		if (current === undefined && !here.later && !door?.later && late) {
			client ??= await StorefrontClient.create(context);
			if (!asked.has(id)) asked.set(id, statusNow(context, client, id, status, now));
			current = await asked.get(id);
		}
		if (current !== undefined && current !== status)
			item.json = { ...json, superseded: true, current_status: current };
	}
	if (options.leaveOutSuperseded !== true) return items;
	// A creation runs, marked: it is the order's one creation, and only a later status replaces a status.
	return items.filter(({ json }) => json.superseded !== true || json.type !== 'order.updated');
}

/** The order's status as the service has it now (noted as a sighting), or undefined where it cannot be read. */
async function statusNow(
	context: IExecuteFunctions,
	client: StorefrontClient,
	id: string,
	status: string,
	now: number,
): Promise<string | undefined> {
	try {
		const order: IDataObject = await client.requestRecord('GET', ['orders', id], 'order', {
			resourceLabel: 'Order',
			id,
		});
		if (typeof order.status !== 'string') return undefined;
		const at = hasUpdatedAt(order) ? changedAt(order) : now;
		noteStatus(scopeOf(context), id, { status: order.status, at, read: true });
		return order.status;
	} catch (error) {
		context.logger.warn(
			`Storefront Trigger: could not read order ${id} to check whether its late change to ` +
				`"${status}" is superseded: ${(error as Error).message}`,
		);
		return undefined;
	}
}
