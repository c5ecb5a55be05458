// A late status change (docs/trigger.md, Late and superseded) run after the order's current status would make an old
// status the workflow's last word on the order; so would a late creation, with the order's first status. It is
// superseded when this n8n knows the order in another status since (./statusesKnown: what the process that received it
// knew, and this one now), free. One of whose order nothing later is known is checked against the order as it is now
// (one request per order and run, paced as the node's) when it is late, or when n8n's claims show a change of its order
// since (./changeKeys, activityMark: it reached another process, or ran before a restart).
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { StorefrontClient } from '../shared/transport';
import { changedAt, hasUpdatedAt } from '../shared/changes/read';
import { scopeOf } from '../shared/n8n';
import { activityMark, statusChange } from './changeKeys';
import { catchesUp, CHANGE_KEY, SOURCE_FIELD, type Options } from './options';
import { judge, noteStatus, type Judgement } from './statusesKnown';

/**
 * A delivery this much younger than its run is not asked about unless the claims show a change of its order since: the
 * order has rarely changed again so soon.
 */
const LATE_AFTER_MS = 60_000;
/**
 * A run that starts this long after the process that received its change judged it waited in n8n's queue (queue mode,
 * a backlog): its order's later change may be in a run beside it, on another worker, not yet claimed.
 */
const QUEUED_AFTER_MS = 3_000;

/** Whether markSuperseded may mark the item: a creation, or a delivered status change. */
const marksOf = (json: IDataObject) =>
	json[SOURCE_FIELD] !== 'catchUp' || json.type === 'order.created';

/**
 * What a young change's claim looks for (../shared/claims, looks): its order's activity in each second since it
 * happened. A late one is asked about anyway.
 */
export function laterLooks(json: IDataObject, now: number): string[] {
	const change = marksOf(json) ? statusChange(json, now) : undefined;
	if (change === undefined || now - change.at > LATE_AFTER_MS) return [];
	const [from, to] = [Math.floor(change.at / 1_000), Math.floor(now / 1_000)];
	return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) =>
		activityMark(change.order, from + i),
	);
}

/**
 * Marks the status changes and creations whose order has another status by now, and leaves out the changes if asked; a
 * test or retry runs as is.
 */
export async function markSuperseded(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	options: Options,
): Promise<INodeExecutionData[]> {
	// What the process that received an item knew (CHANGE_KEY) is read here, and never passed on.
	const passOn = (kept: INodeExecutionData[]) =>
		kept.map(({ json, pairedItem }) => ({ json, pairedItem }));
	if (!catchesUp(options) || ['manual', 'retry'].includes(context.getMode())) return passOn(items);
	const scope = scopeOf(context);
	const now = Date.now();
	let client: StorefrontClient | undefined;
	const asked = new Map<string, Promise<string | undefined>>();
	for (const item of items) {
		const { json } = item;
		// A creation is the order's change to its first status: marked as an update is, a reading's too (its order's
		// changes may have run before it). A reading's status change is the order's status as read.
		const change = marksOf(json) ? statusChange(json, now) : undefined;
		if (change === undefined) continue;
		const { order: id, status, at } = change;
		const here = judge(scope, id, status, at);
		const door = item[CHANGE_KEY] as Judgement | undefined;
		let current = here.current ?? door?.current;
		// Asked about when late (a minute old, or older than what the process that received it or the one that runs it
		// knows: it started since, or restarted; or its run waited in the queue), or when a change of its order ran since.
		// A run that waited in the queue (through a worker's restart, or a backlog) starts beside the other runs that
		// waited, its order's later change maybe among them, claimed after it on the other worker and passed on before it
		// (docs/trigger.md, Found by the soak in queue mode).
		const heardSince = Math.max(door?.knownSince ?? 0, here.knownSince ?? 0);
		const queued = now - (door?.judgedAt ?? now) > QUEUED_AFTER_MS;
		const late = now - at > LATE_AFTER_MS || at < heardSince || queued;
		// A sighting of the order later than the change, in its status, says nothing of what ran since: a change of its
		// order that ran in that second or after is asked about too (the sighting a worker's earlier request noted, the
		// later change run on the other worker: docs/trigger.md, Found by the soak in queue mode).
		const seenTo = Math.max(here.lastSeen ?? -Infinity, door?.lastSeen ?? -Infinity);
		const ranSince = door?.laterRan !== undefined && door.laterRan >= Math.floor(seenTo / 1_000);
		const ask = (late && !here.later && !door?.later) || ranSince;
		if (current === undefined && ask) {
			client ??= await StorefrontClient.create(context);
			if (!asked.has(id)) asked.set(id, statusNow(context, client, id, status, now));
			current = await asked.get(id);
		}
		if (current !== undefined && current !== status)
			item.json = { ...json, superseded: true, current_status: current };
	}
	if (options.leaveOutSuperseded !== true) return passOn(items);
	// A creation runs, marked: it is the order's one creation, and only a later status replaces a status.
	return passOn(
		items.filter(({ json }) => json.superseded !== true || json.type !== 'order.updated'),
	);
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
