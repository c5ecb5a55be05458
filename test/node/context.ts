/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// Shared set-up of the node suites: one sandbox per file on a random port, reset before every test, in the suite's
// sandbox profile (test/helpers/profile.ts).
import type { INodeExecutionData } from 'n8n-workflow';
import { inspect } from 'util';

import type { RunNodeOptions, RunNodeResult } from '../helpers/n8n';
import { runNode } from '../helpers/n8n';
import type { Sandbox, SandboxOptions } from '../helpers/sandbox';
import { startSandbox } from '../helpers/sandbox';
import { PROFILE } from '../helpers/profile';

export interface LoggedRequest {
	method: string;
	path: string;
	query: Record<string, string>;
	status: number;
}

export interface SandboxContext {
	sb: Sandbox;
	credentials: { baseUrl: string; apiKey: string };
	/** Runs the node against this sandbox; fast retries unless the test sets its own options. */
	run(
		options: Omit<RunNodeOptions, 'credentials'> & { credentials?: RunNodeOptions['credentials'] },
	): Promise<RunNodeResult>;
	requests(): Promise<LoggedRequest[]>;
	admin<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
}

export function useSandbox(
	sizes: SandboxOptions['sizes'] = { products: 250, orders: 60, customers: 30 },
): SandboxContext {
	const ctx = {} as SandboxContext;
	beforeAll(async () => {
		ctx.sb = await startSandbox({ sizes, profile: PROFILE });
		// A trailing slash in the Base URL must not matter.
		ctx.credentials = { baseUrl: `${ctx.sb.baseUrl}/`, apiKey: ctx.sb.apiKey };
	});
	afterAll(async () => {
		await ctx.sb.stop();
	});
	beforeEach(async () => {
		await ctx.admin('PUT', '/profile', { profile: PROFILE });
		await ctx.admin('DELETE', '/faults');
		await ctx.admin('POST', '/reset', { sizes });
		await ctx.admin('DELETE', '/requests');
	});
	ctx.admin = async (method, path, body) => {
		const response = await ctx.sb.admin(method, path, body);
		if (response.status >= 300)
			throw new Error(
				`admin ${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`,
			);
		return response.body as never;
	};
	ctx.requests = async () => (await ctx.sb.admin('GET', '/requests')).body as LoggedRequest[];
	ctx.run = async (options) => {
		const parameters = { ...options.parameters };
		parameters.options = { retryDelay: 5, ...(parameters.options as object) };
		return await runNode({
			...options,
			parameters,
			credentials: options.credentials ?? ctx.credentials,
		});
	};
	return ctx;
}

/** The HTTP status a NodeApiError carries ('404', …). */
export const httpCodeOf = (error: unknown) =>
	(error as { httpCode?: string | null } | undefined)?.httpCode;

export const jsonOf = (items: INodeExecutionData[]) => items.map((item) => item.json);

/** Everything an error could expose: its enumerable JSON and a deep inspection incl. causes and hidden fields. */
export function exposed(value: unknown): string {
	let json = '';
	try {
		json = JSON.stringify(value);
	} catch {
		json = '';
	}
	return `${json}\n${inspect(value, { depth: 12, showHidden: true, getters: false })}`;
}
