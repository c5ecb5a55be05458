// The parameters both triggers show alike: the set-up notice at the top, and Events.
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { EVENT_OPTIONS } from './constants';

export const setupNotice = (text: string): INodeProperties => ({
	displayName: text,
	name: 'setupNotice',
	type: 'notice',
	default: '',
});

/** The subtitle under a trigger on the canvas: its events by the names the Events list shows, not their values. */
export const eventsSubtitle = (first: INodePropertyOptions[] = []) => {
	const names = Object.fromEntries([...first, ...EVENT_OPTIONS].map((o) => [o.value, o.name]));
	return `={{ ($parameter["events"] || []).map((e) => (${JSON.stringify(names)})[e] || e).join(", ") }}`;
};

/** Events: the kinds that start the workflow (`first`: options offered before them). */
export const eventsParameter = (
	description: string,
	first: INodePropertyOptions[] = [],
): INodeProperties => ({
	displayName: 'Events',
	name: 'events',
	type: 'multiOptions',
	required: true,
	default: [],
	description,
	options: [...first, ...EVENT_OPTIONS],
});
