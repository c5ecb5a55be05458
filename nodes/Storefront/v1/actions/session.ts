import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { StorefrontClient } from '../../../shared/transport';

/**
 * An operation that works on the run as a whole instead of item by item (Create or Update: one catalog read for all
 * items, one writer per account): opened once before the items, closed after them (actions/router.ts).
 */
export interface RunSession {
	/** One item, as an OperationExecute. */
	execute(itemIndex: number): Promise<IDataObject>;
	/** The record an item writes: items of one record run one after another, in input order. */
	recordKey(itemIndex: number): string | undefined;
	/** What the run did, for the output panel's hints; called after the last item. */
	hints(): string[];
	close(): void;
}

/** What an operation file exports as `openSession` instead of `execute`. */
export type OpenSession = (
	this: IExecuteFunctions,
	client: StorefrontClient,
) => Promise<RunSession>;
