// A late status change (docs/trigger.md, Late and superseded) run after the order's current status would make an old
// status the workflow's last word on the order, so a late delivery is checked against the order as it is now.
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { eventRecordId, isObject, StorefrontClient } from '../shared/transport';
import { timeOf } from '../shared/changes/read';
import { catchesUp, SOURCE_FIELD, type Options } from './options';

/** A delivery this much younger than its run is not checked: the order has rarely changed again so soon. */
const LATE_AFTER_MS = 60_000;

const isLate = ({ type, created_at, data }: IDataObject, now: number) =>
	type === 'order.updated' &&
	isObject(data) &&
	typeof data.status === 'string' &&
	now - timeOf(created_at) > LATE_AFTER_MS;

/** Marks (or leaves out) the late status changes whose order has another status now; a test or retry runs as is. */
export async function markSuperseded(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	options: Options,
): Promise<INodeExecutionData[]> {
	if (!catchesUp(options) || ['manual', 'retry'].includes(context.getMode())) return items;
	const now = Date.now();
	const late = items.filter(({ json }) => json[SOURCE_FIELD] !== 'catchUp' && isLate(json, now));
	if (late.length === 0) return items;
	const client = await StorefrontClient.create(context);
	for (const item of late) {
		const data = item.json.data as IDataObject;
		const id = eventRecordId(data, 'order');
		if (id === undefined) continue;
		try {
			const order = await client.getOne(['orders', id], 'order', { resourceLabel: 'Order', id });
			if (typeof order.status === 'string' && order.status !== data.status)
				item.json = { ...item.json, superseded: true, current_status: order.status };
		} catch (error) {
			context.logger.warn(
				`Storefront Trigger: could not read order ${id} to check whether its late change to ` +
					`"${String(data.status)}" is superseded: ${(error as Error).message}`,
			);
		}
	}
	if (options.leaveOutSuperseded !== true) return items;
	return items.filter(({ json }) => json.superseded !== true);
}
