// The parameters both triggers show alike: the set-up notice at the top, Events, and the Options collection.
import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { EVENT_OPTIONS } from './constants';

/** The subtitle under a trigger on the canvas: its events by the names the Events list shows, not their values. */
export const eventsSubtitle = (first: INodePropertyOptions[] = []) => {
	const names = Object.fromEntries([...first, ...EVENT_OPTIONS].map((o) => [o.value, o.name]));
	return `={{ ($parameter["events"] || []).map((e) => (${JSON.stringify(names)})[e] || e).join(", ") }}`;
};

/** A trigger's parameters: the set-up notice, Events (`first`: options offered before the kinds), its Options. */
export const triggerProperties = (
	notice: string,
	eventsDescription: string,
	options: INodeProperties[],
	first: INodePropertyOptions[] = [],
): INodeProperties[] => [
	{ displayName: notice, name: 'setupNotice', type: 'notice', default: '' },
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		required: true,
		default: [],
		description: eventsDescription,
		options: [...first, ...EVENT_OPTIONS],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options,
	},
];
