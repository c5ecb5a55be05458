// The first step of every run the trigger starts (execute(): n8n calls it with the webhook's items, as for its Wait
// and Form nodes, and so does a reading's run). An item goes on unless the same delivery or change got there first:
//  1. Refused: a refused delivery's run fails with the reason (./refusals).
//  2. Accepted: in this n8n's memory, the run's delivery must be the one accepted for its event (./ranHere, free).
//  3. Claimed: in n8n's database, shared by every n8n of the instance (../shared/claims). With the catch-up on, the
//     change itself is claimed (./changeKeys), so a delivery and a reading that report it run it once; what the
//     process that received or read it knew of the order (a reading's window) comes with the item, and goes on to
//     ./superseded with whether the claims show a later change of its order.
// A retry from the executions list always runs: the user asked for it.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { claimChange, type Claim } from '../shared/claims';
import { sharedStore } from '../shared/claims/store';
import { scopeOf } from '../shared/n8n';
import { noteLastRun } from './catchUp';
import { claimOf, knowStay, latestActivity } from './changeKeys';
import {
	catchesUp,
	CHANGE_KEY,
	DELIVERY_KEY,
	rememberMs,
	SOURCE_FIELD,
	type Options,
} from './options';
import { refusedRun } from './refusals';
import { acceptDelivery, noteRanHere } from './ranHere';
import type { Judgement } from './statusesKnown';
import { laterLooks } from './superseded';

/** What the store's warnings say of the trigger's claims. */
const CLAIM_WORDS = {
	node: 'Storefront Trigger',
	claims: 'events',
	risk: 'two n8n processes could both run a redelivered event',
	doc: 'docs/trigger.md, How the trigger remembers',
};

/** The items of this run that go on. */
export async function claimItems(
	context: IExecuteFunctions,
	options: Options,
): Promise<INodeExecutionData[]> {
	const items = context.getInputData();
	const passOn = (goesOn: boolean[], known: Array<Judgement | undefined> = []) =>
		items.flatMap((item, index) => {
			if (!goesOn[index]) return [];
			const kept: INodeExecutionData = { json: item.json, pairedItem: { item: index } };
			if (known[index]) kept[CHANGE_KEY] = { ...known[index] };
			return [kept];
		});

	// 1. Refused.
	const refused = refusedRun(context, items);
	if (refused) return refused;
	const mode = context.getMode();
	const byChange = catchesUp(options);
	const now = Date.now();
	if (byChange && mode !== 'manual') {
		const staticData = context.getWorkflowStaticData('node');
		for (const item of items) noteLastRun(staticData, item.json.created_at, now);
	}
	if (mode === 'manual' || mode === 'retry') return passOn(items.map(() => true));

	// 2. Accepted here. An item without a delivery (or an id) is no delivery of the trigger's: it goes on.
	const scope = scopeOf(context);
	const claims = items.map(({ json, [DELIVERY_KEY]: token, [CHANGE_KEY]: known }) => {
		if (typeof token !== 'string' || typeof json.id !== 'string') return undefined;
		if (!acceptDelivery(scope, json.id, token, now)) return null;
		const read = json[SOURCE_FIELD] === 'catchUp';
		const judged = known as Judgement | undefined;
		const claim: Claim = byChange
			? { ...claimOf(json, read, judged), looks: laterLooks(json, now) }
			: { key: json.id };
		// Ran here or elsewhere, it is not started again by this n8n's readings, nor answered again at the door.
		if (byChange) noteRanHere(scope, [claim.key, ...(claim.notes ?? [])], now);
		return { claim, token, json, judged };
	});

	// 3. Claimed in n8n's database, in one batch. Should it not answer, the event runs (a warning says why): dropping
	// it would lose it, and the checks before passed.
	const store = sharedStore(context, rememberMs(options), CLAIM_WORDS);
	const answers = await Promise.all(
		claims.map(async (wanted) => {
			if (!wanted) return { won: wanted !== null, seen: [] };
			return await claimChange(store, wanted.claim, wanted.token).catch((error: Error) => {
				context.logger.warn(
					`Storefront Trigger: could not check event ${wanted.claim.key} for duplicates in n8n's database, so it ` +
						`runs: ${error.message}`,
				);
				return { won: true, seen: [] };
			});
		}),
	);
	claims.forEach((wanted, i) => {
		if (!wanted || !answers[i].won) return;
		// Its marks say it ran, here as in the database: a claim that lost keeps none.
		if (byChange) noteRanHere(scope, wanted.claim.marks ?? [], now);
		knowStay(scope, wanted.json, wanted.claim, wanted.judged);
	});
	return passOn(
		answers.map(({ won }) => won),
		claims.map((wanted, i) =>
			wanted ? { ...wanted.judged, laterRan: latestActivity(answers[i].seen) } : undefined,
		),
	);
}
