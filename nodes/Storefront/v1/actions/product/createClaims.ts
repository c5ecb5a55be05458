// Create or Update claims each create in n8n's database, as the Storefront Trigger claims its changes, so that runs
// on two queue workers create a product once: docs/storefront-node.md, Create or Update ("Across processes").
import type { IExecuteFunctions } from 'n8n-workflow';

import { sharedStore } from '../../../../shared/claims/store';
import { claimShared, releaseShared, type SharedStore } from '../../../../shared/claims';

/** Outlasts a create's wait for the rate limit and a try's time-out, so a run looking meanwhile finds the claim. */
export const CLAIM_MINUTES = 20;
/** A run waits this long at most for the account's run ahead of it: as long as that run's creates stay claimed. */
export const TURN_WAIT_MS = CLAIM_MINUTES * 60_000;

const WORDS = {
	node: 'Storefront Create or Update',
	claims: 'creates',
	risk: 'two runs creating one product at the same moment may both create it',
	doc: 'docs/storefront-node.md, Create or Update',
};

export function createClaims(context: IExecuteFunctions, account: string, field: string) {
	// Tells this run's claims apart where the lock does not cover them.
	const token = Math.random().toString(36).slice(2);
	const key = (value: string) => `create:${account}:${field}:${value}`;
	let store: SharedStore | undefined;
	const shared = () => (store ??= sharedStore(context, CLAIM_MINUTES * 60_000, WORDS));
	return {
		/** true: this run creates the product; false: another run claimed its create; undefined: no answer. */
		async claim(value: string): Promise<boolean | undefined> {
			try {
				return await claimShared(shared(), key(value), token);
			} catch (error) {
				const why = (error as Error).message;
				context.logger.warn(
					`${WORDS.node}: could not claim the create of "${value}" in n8n's database: ${why}`,
				);
				return undefined;
			}
		},
		/** After a create the service refused: the claim is given up, so that a later run may create the product. */
		async release(value: string, claimed: boolean | undefined): Promise<void> {
			if (claimed === true) await releaseShared(shared(), key(value), token).catch(() => undefined);
		},
	};
}
