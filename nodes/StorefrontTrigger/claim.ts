// The first step of every run the trigger starts (execute()): n8n calls a node that has both webhook() and execute()
// with the webhook's items, as it does for its Wait and Form nodes, and so does the run a reading starts. Each item
// goes on unless the same delivery or change got there first: in this running n8n (free: after a crash n8n re-runs
// accepted executions itself while the service redelivers them), then in n8n's database, which every n8n shares
// (another webhook processor or worker in queue mode, this n8n before a restart; ../shared/claims). With the catch-up
// on, the change itself is claimed (changeKey), so a delivery and a reading that report it run it once. A retry from
// the executions list always runs: the user asked for it.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { sharedStore } from '../shared/claims/n8nStore';
import { claimShared, type Claim, type SharedStore } from '../shared/claims/sharedClaims';
import { changeClaim, noteRanHere, noteLastRun } from './catchUp';
import {
	catchesUp,
	DELIVERY_KEY,
	rememberMs,
	scopeOf,
	SOURCE_FIELD,
	type Options,
} from './options';
import { refusedRun } from './refusals';
import { acceptRun } from './accepted';
import { markSuperseded } from './superseded';

/** What the store's warnings say of the trigger's claims. */
const CLAIM_WORDS = {
	node: 'Storefront Trigger',
	claims: 'events',
	risk: 'two n8n processes could both run a redelivered event',
	doc: 'docs/trigger.md, How the trigger remembers',
};

export async function claimItems(context: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = context.getInputData();
	const refused = refusedRun(context, items);
	if (refused) return refused;
	const mode = context.getMode();
	const claim = !['manual', 'retry'].includes(mode);
	const options = context.getNodeParameter('options', 0, {}) as Options;
	const byChange = catchesUp(options);
	const staticData =
		byChange && mode !== 'manual' ? context.getWorkflowStaticData('node') : undefined;
	const scope = scopeOf(context);
	const shared = claim ? sharedStore(context, scope, rememberMs(options), CLAIM_WORDS) : undefined;
	const now = Date.now();
	// The items' claims go out together, so a reading's run asks n8n's database once (one batch) rather than once per
	// change; the in-memory steps before it still take the items in order.
	const goesOn = await Promise.all(
		items.map(async (item) => {
			const delivery = item[DELIVERY_KEY];
			const { id, type, data, created_at } = item.json;
			if (staticData) noteLastRun(staticData, created_at, now);
			if (!claim || typeof delivery !== 'string' || typeof id !== 'string') return true;
			if (!acceptRun(scope, id, delivery, now)) return false;
			const read = item.json[SOURCE_FIELD] === 'catchUp';
			const claimed: Claim = (byChange && changeClaim(type, data, read)) || { key: id };
			const runs = !shared || (await claimInDatabase(context, shared, claimed, delivery));
			// Ran here or elsewhere, it is not started again by this n8n's readings (which know it by what it reached).
			if (byChange) noteRanHere(scope, [claimed.key, ...(claimed.notes ?? [])], now);
			return runs;
		}),
	);
	const passed = items.flatMap((item, index) =>
		goesOn[index] ? [{ json: item.json, pairedItem: { item: index } }] : [],
	);
	if (!byChange || !claim) return [passed];
	return [await markSuperseded(context, passed, options.leaveOutSuperseded === true, now)];
}

/**
 * The shared-database claim of one event; true when the run goes on. Should n8n's database not answer, the event
 * runs (and a warning says why): dropping it would lose it, and the in-memory checks have already passed.
 */
async function claimInDatabase(
	context: IExecuteFunctions,
	store: SharedStore,
	claim: Claim,
	delivery: string,
) {
	try {
		return await claimShared(store, claim, delivery);
	} catch (error) {
		context.logger.warn(
			`Storefront Trigger: could not check event ${claim.key} for duplicates in n8n's database, so it runs: ` +
				(error as Error).message,
		);
		return true;
	}
}
