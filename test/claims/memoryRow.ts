// One row of n8n's deduplication store in mode "entries", in memory, for the claims' table tests. It behaves as n8n's
// DeduplicationHelper (packages/cli/src/deduplication/deduplication-helper.ts) keeps a row of table processed_data:
//  - values are kept as the base64 MD5 of their string, oldest first; a recorded value already there stays where it is;
//  - maxEntries trims from the front, after the new values are appended (also on the first insert);
//  - record reads the row and then writes it back whole: the first insert of two at once fails on the table's primary
//    key (Postgres' code 23505), and writing back a row deleted meanwhile changes nothing;
//  - record answers which of its values were there before (none on the first insert), remove takes values out
//    (read, then write back), clear deletes the row, count is the number of values (0 without a row);
//  - a row saved in another mode (a Remove Duplicates node keeping the latest key) counts 0 and refuses record.
// What n8n cannot do, the test can: `values()` reads the row back in plain words (kept beside each hash here only).
import { createHash } from 'crypto';

import type { StoreRow } from '../../nodes/shared/n8n';

const hash = (value: string) => createHash('md5').update(value).digest('base64');

export type Operation = 'count' | 'record' | 'remove' | 'clear';

export class MemoryRow implements StoreRow {
	/** The row's hashes, oldest first; undefined: there is no row. */
	private data?: string[];
	/** Set when the row was saved in another mode than "entries". */
	private otherMode?: string;
	private readonly plain = new Map<string, string>();
	/** Every call made, in order, with the values it was given. */
	readonly calls: Array<{ operation: Operation; values: string[] }> = [];
	/** How many first inserts failed on the key (another insert won). */
	collisions = 0;
	/**
	 * Awaited at each call's start (the read) and, for writing calls, between its read and its write (the round trip):
	 * a test delays a call, fails it (by throwing) or lets another process's call go in between.
	 */
	hook?: (operation: Operation, step: 'read' | 'write') => Promise<void> | void;

	/** `maxEntries`: the cap the row is written with (n8n's option), unless a call gives its own. */
	constructor(
		values: string[] = [],
		private readonly maxEntries?: number,
	) {
		if (values.length) this.data = values.map((value) => this.hashOf(value));
	}

	/** A row of another node, saved in another mode (n8n's "latestIncrementalKey", say). */
	static inOtherMode(mode: string): MemoryRow {
		const row = new MemoryRow(['41']);
		row.otherMode = mode;
		return row;
	}

	private hashOf(value: string): string {
		const hashed = hash(value);
		this.plain.set(hashed, value);
		return hashed;
	}

	/** The row's values in plain words, oldest first (undefined: no row). */
	values(): string[] | undefined {
		return this.data?.map((hashed) => this.plain.get(hashed) ?? hashed);
	}

	/** Whether `value` is in the row. */
	has(value: string): boolean {
		return this.data?.includes(hash(value)) ?? false;
	}

	/** The calls that write (record, remove, clear). */
	writes() {
		return this.calls.filter(({ operation }) => operation !== 'count');
	}

	/** What another process's calls leave in the row (not counted in `calls`); undefined deletes it. */
	replace(values: string[] | undefined): void {
		this.data = values?.map((value) => this.hashOf(value));
	}

	/** What n8n's cap does to a row written with a smaller maxEntries: the oldest values go until `keep` remain. */
	trimTo(keep: number): void {
		this.data?.splice(0, Math.max(0, this.data.length - keep));
	}

	async count(): Promise<number> {
		this.calls.push({ operation: 'count', values: [] });
		await this.hook?.('count', 'read');
		return this.otherMode ? 0 : (this.data?.length ?? 0);
	}

	async record(values: string[], keepLast?: number): Promise<Set<string>> {
		this.calls.push({ operation: 'record', values });
		await this.hook?.('record', 'read');
		if (this.otherMode) {
			throw new Error(
				`Deduplication Failed: Deduplication data was originally saved with an incompatible setting (${this.otherMode})`,
			);
		}
		const read = this.data ? [...this.data] : undefined;
		await this.hook?.('record', 'write');
		const maxEntries = keepLast ?? this.maxEntries;
		const hashes = values.map((value) => this.hashOf(value));
		if (read === undefined) {
			// n8n's first insert: every value is new, nothing is looked up.
			if (maxEntries) hashes.splice(0, hashes.length - maxEntries);
			if (this.data !== undefined) {
				this.collisions++;
				throw Object.assign(
					new Error('duplicate key value violates unique constraint "PK_processed_data"'),
					{ code: '23505' },
				);
			}
			this.data = hashes;
			return new Set();
		}
		const had = new Set<string>();
		hashes.forEach((hashed, i) => {
			if (read.includes(hashed)) had.add(values[i]);
			else read.push(hashed);
		});
		if (maxEntries) read.splice(0, read.length - maxEntries);
		// n8n's UPDATE of a row deleted since the read changes nothing.
		if (this.data !== undefined) this.data = read;
		return had;
	}

	async remove(values: string[]): Promise<void> {
		this.calls.push({ operation: 'remove', values });
		await this.hook?.('remove', 'read');
		if (!this.data) return;
		const read = [...this.data];
		await this.hook?.('remove', 'write');
		for (const hashed of values.map(hash)) {
			const i = read.indexOf(hashed);
			if (i !== -1) read.splice(i, 1);
		}
		if (this.data !== undefined) this.data = read;
	}

	async clear(): Promise<void> {
		this.calls.push({ operation: 'clear', values: [] });
		await this.hook?.('clear', 'read');
		this.data = undefined;
		this.otherMode = undefined;
	}
}
