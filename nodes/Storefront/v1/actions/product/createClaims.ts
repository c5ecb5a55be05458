// Once across n8n processes: before Create or Update creates a product it claims the create in n8n's database, the
// store n8n gives a node (as the Storefront Trigger claims its changes, under the same lock). Two runs on two queue
// workers that both found no product with a SKU then create it once: the other finds the product and compares with
// it. A claim is given up when the create was refused, else kept for CLAIM_MINUTES. Should n8n's database not answer,
// runs in one process still take turns (./upsert.operation, writerTurn).
import type { IExecuteFunctions } from 'n8n-workflow';

import { sharedStore } from '../../../../shared/n8n';
import { claimShared, releaseShared, type SharedStore } from '../../../../shared/claims';

/**
 * How long a create's claim is kept: a create can reach the service as late as its wait for the rate limit (Max Wait
 * for Rate Limit, 15 minutes by default) and a try's time-out after its claim, and a run that looked before it landed
 * must still find the claim.
 */
export const CLAIM_MINUTES = 20;

const WORDS = {
	node: 'Storefront Create or Update',
	claims: 'creates',
	risk: 'two runs creating one product at the same moment may both create it',
	doc: 'docs/storefront-node.md, Create or Update',
};

export type CreateClaims = ReturnType<typeof createClaims>;

/** A run's claims on creates: `claim` tells whether this run creates the product; `release` gives a claim up. */
export function createClaims(ctx: IExecuteFunctions, account: string, field: string) {
	// This run's own mark on its claims (a claim the lock does not cover is told apart by it).
	const token = Math.random().toString(36).slice(2);
	const key = (value: string) => `create:${account}:${field}:${value}`;
	let store: SharedStore | undefined;
	// n8n's store, opened by the first create that needs it.
	const shared = () =>
		(store ??= sharedStore(
			ctx,
			`${ctx.getWorkflow().id ?? ''}:${ctx.getNode().id}`,
			CLAIM_MINUTES * 60_000,
			WORDS,
		));
	return {
		/** true: this run creates the product; false: another run claimed its create; undefined: no answer. */
		async claim(value: string): Promise<boolean | undefined> {
			try {
				return await claimShared(shared(), key(value), token);
			} catch (error) {
				// Should n8n's database not answer, the create goes on as without the store: one process still takes turns.
				const why = (error as Error).message;
				ctx.logger.warn(
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
