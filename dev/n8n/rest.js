// @ts-check
// A small client for n8n's internal REST API (the one the editor uses, under /rest), enough to set an
// instance up without clicks: owner account, login, credentials, workflows, activation, executions and the
// node-type catalogue. Paths and bodies follow n8n 2.41's controllers (packages/cli/src/controllers,
// workflows/, credentials/, executions/); where n8n 1.x differs (workflow creation and activation) the client asks
// the instance's version first.
'use strict';

const crypto = require('node:crypto');

class N8nApiError extends Error {
	/** @param {string} method @param {string} path @param {number} status @param {unknown} body */
	constructor(method, path, status, body) {
		const text = typeof body === 'string' ? body : JSON.stringify(body);
		super(`${method} ${path} → ${status}: ${text.slice(0, 500)}`);
		this.status = status;
		this.body = body;
	}
}

/**
 * A GET, sent again once on a new connection when the kept-alive one it went out on was closed by n8n before n8n read
 * it ("other side closed": n8n's keep-alive ran out while this process's event loop was busy; seen in the registry
 * suite after a synchronous npm publish, and in the dev suite's first read after a minute's wait). Writes are never
 * sent twice.
 * @param {() => Promise<Response>} send
 */
async function sendAgainIfClosed(send) {
	return await send().catch((/** @type {any} */ error) => {
		if (!['UND_ERR_SOCKET', 'ECONNRESET'].includes(error?.cause?.code)) throw error;
		return send();
	});
}

/** n8n list endpoints take their filter as JSON in the query string. @param {object} [filter] */
const filterQuery = (filter) =>
	filter ? `?filter=${encodeURIComponent(JSON.stringify(filter))}` : '';

class N8nClient {
	/**
	 * @param {string} baseUrl e.g. http://127.0.0.1:5678
	 * @param {{version?: string}} [o] the instance's n8n version when the caller knows it (an n8n without its editor
	 *   has no /rest/settings to ask)
	 */
	constructor(baseUrl, { version } = {}) {
		this.baseUrl = baseUrl.replace(/\/$/, '');
		this.cookie = '';
		// n8n binds the auth cookie to the browser id sent along with the login.
		this.browserId = crypto.randomUUID();
		/** @type {number | undefined} */
		this.majorVersion = version === undefined ? undefined : Number(version.split('.')[0]);
	}

	/**
	 * @param {string} method
	 * @param {string} path  below /rest
	 * @param {unknown} [body]
	 * @returns {Promise<any>} the `data` of n8n's `{data: …}` envelope
	 */
	async request(method, path, body) {
		/** @type {Record<string, string>} */
		const headers = { accept: 'application/json', 'browser-id': this.browserId };
		if (this.cookie) headers.cookie = this.cookie;
		if (body !== undefined) headers['content-type'] = 'application/json';
		const send = () =>
			fetch(`${this.baseUrl}/rest${path}`, {
				method,
				headers,
				body: body === undefined ? undefined : JSON.stringify(body),
			});
		const res = method === 'GET' ? await sendAgainIfClosed(send) : await send();
		const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('n8n-auth='));
		if (setCookie) this.cookie = setCookie.split(';')[0];
		const text = await res.text();
		let parsed;
		try {
			parsed = text ? JSON.parse(text) : undefined;
		} catch {
			parsed = text;
		}
		if (!res.ok) throw new N8nApiError(method, path, res.status, parsed);
		return parsed && typeof parsed === 'object' && 'data' in parsed ? parsed.data : parsed;
	}

	/** The public settings the editor loads first; `userManagement.showSetupOnFirstLoad` is true until an owner exists. */
	settings() {
		return this.request('GET', '/settings');
	}

	/**
	 * Create the owner on a fresh instance, or log in when it already exists (a second `npm start`): n8n refuses a
	 * second setup with 400 "Instance owner already setup" (1.x and 2.x). Asks no /rest/settings, which an n8n without
	 * its editor does not serve.
	 * @param {{email: string, password: string, firstName: string, lastName: string}} owner
	 */
	async ensureOwner(owner) {
		try {
			await this.request('POST', '/owner/setup', owner);
			return { created: true };
		} catch (error) {
			if (
				!(
					error instanceof N8nApiError &&
					error.status === 400 &&
					/already setup/.test(error.message)
				)
			)
				throw error;
		}
		await this.login(owner.email, owner.password);
		return { created: false };
	}

	/** @param {string} email @param {string} password */
	login(email, password) {
		return this.request('POST', '/login', { emailOrLdapLoginId: email, password });
	}

	/** @param {{name: string, type: string, data: Record<string, unknown>}} credential */
	createCredential(credential) {
		return this.request('POST', '/credentials', credential);
	}

	/** @param {{filter?: object}} [o] */
	listCredentials({ filter } = {}) {
		return this.request('GET', `/credentials${filterQuery(filter)}`);
	}

	/**
	 * Run the credential type's `test` request inside n8n, as the editor's "Retest" button does.
	 * @param {{id?: string, name: string, type: string, data: Record<string, unknown>}} credential
	 * @returns {Promise<{status: 'OK' | 'Error', message: string}>}
	 */
	testCredential(credential) {
		return this.request('POST', '/credentials/test', { credentials: credential });
	}

	/** n8n's major version (from /rest/settings): 1.x and 2.x differ in how workflows are created and activated. */
	async major() {
		this.majorVersion ??= Number(String((await this.settings()).versionCli).split('.')[0]);
		return this.majorVersion;
	}

	/** @param {object} workflow {name, nodes, connections, settings?} */
	async createWorkflow(workflow) {
		// n8n 1.x requires `active` in the body; 2.x activates through its own endpoint only.
		return this.request(
			'POST',
			'/workflows',
			(await this.major()) < 2 ? { active: false, ...workflow } : workflow,
		);
	}

	/** @param {{filter?: object}} [o] */
	listWorkflows({ filter } = {}) {
		return this.request('GET', `/workflows${filterQuery(filter)}`);
	}

	/** @param {string} id */
	getWorkflow(id) {
		return this.request('GET', `/workflows/${id}`);
	}

	/**
	 * n8n 2.x publishes a workflow version: activation names the `versionId` to make live. n8n 1.x sets `active` with
	 * a PATCH of the workflow (naming the version it has, for its conflict check).
	 * @param {string} id
	 */
	async activateWorkflow(id) {
		const workflow = await this.getWorkflow(id);
		if ((await this.major()) < 2)
			return this.request('PATCH', `/workflows/${id}`, {
				active: true,
				versionId: workflow.versionId,
			});
		return this.request('POST', `/workflows/${id}/activate`, { versionId: workflow.versionId });
	}

	/**
	 * Saves changes to a workflow as the editor does, and publishes them when it is active: n8n 2.x saves a draft and
	 * makes it live with an activation of the new version; n8n 1.x re-activates an active workflow on save.
	 * @param {string} id @param {object} changes {nodes?, connections?, …}
	 */
	async updateWorkflow(id, changes) {
		const workflow = await this.getWorkflow(id);
		const saved = await this.request('PATCH', `/workflows/${id}`, {
			...changes,
			versionId: workflow.versionId,
		});
		if ((await this.major()) < 2 || !workflow.activeVersionId) return saved;
		return this.request('POST', `/workflows/${id}/activate`, { versionId: saved.versionId });
	}

	/** @param {string} id */
	async deactivateWorkflow(id) {
		if ((await this.major()) < 2) {
			const workflow = await this.getWorkflow(id);
			return this.request('PATCH', `/workflows/${id}`, {
				active: false,
				versionId: workflow.versionId,
			});
		}
		return this.request('POST', `/workflows/${id}/deactivate`, {});
	}

	/**
	 * @param {{workflowId?: string, status?: string[], limit?: number}} [o]
	 * @returns {Promise<{count: number, estimated: boolean, results: any[]}>}
	 */
	listExecutions({ workflowId, status, limit = 100 } = {}) {
		/** @type {Record<string, unknown>} */
		const filter = {};
		if (workflowId) filter.workflowId = workflowId;
		if (status) filter.status = status;
		const query = new URLSearchParams({ filter: JSON.stringify(filter), limit: String(limit) });
		return this.request('GET', `/executions?${query}`);
	}

	/**
	 * Every execution matching the filter, page after page (n8n 2.x by start time, 1.x by id: see below).
	 * @param {{workflowId?: string, status?: string[]}} [o]
	 * @returns {Promise<any[]>}
	 */
	async allExecutions({ workflowId, status } = {}) {
		/** @type {Record<string, unknown>} */
		const filter = {};
		if (workflowId) filter.workflowId = workflowId;
		if (status) filter.status = status;
		// n8n 2.41 sorts the list by start time but its cursor continues below the last row's *id*: where executions
		// did not start in id order (queue mode: several workers) a cursor page skips some and repeats others (seen:
		// 499 or 501 of 500). So 2.x is paged by start time instead (`startedBefore` is inclusive: rows that share the
		// boundary's time come again and are kept once, by id); 1.x pages by id, which it also sorts by.
		/** @type {Map<string, any>} */
		const all = new Map();
		const v2 = (await this.major()) >= 2;
		/** @type {Record<string, string>} */
		let position = {};
		/** @type {string | undefined} */
		let startedBefore;
		for (;;) {
			const pageFilter = startedBefore ? { ...filter, startedBefore } : filter;
			const query = new URLSearchParams({
				filter: JSON.stringify(pageFilter),
				limit: '100',
				...position,
			});
			const page = await this.request('GET', `/executions?${query}`);
			let added = 0;
			for (const execution of page.results) {
				if (!all.has(String(execution.id))) added++;
				all.set(String(execution.id), execution);
			}
			if (v2 && page.nextCursor) {
				const started = page.results
					.map((/** @type {any} */ e) => e.startedAt)
					.filter(Boolean)
					.sort();
				if (!added || !started.length)
					throw new Error(`the executions list did not move on past ${startedBefore}`);
				startedBefore = started[0];
			} else if (!v2 && page.results.length === 100)
				position = { lastId: String(page.results[99].id) };
			else return [...all.values()];
		}
	}

	/** @param {string} id  the execution with its run data (n8n's flatted format, see runData()) */
	getExecution(id) {
		return this.request('GET', `/executions/${id}`);
	}

	/**
	 * A resource locator's "From list" search, run inside n8n as the editor runs it when a user opens the list.
	 * @param {{nodeType: string, version: number, methodName: string, parameter: string,
	 *   parameters: Record<string, unknown>, credentials: Record<string, {id: string, name: string}>,
	 *   filter?: string, paginationToken?: string}} o
	 * @returns {Promise<{results: Array<{name: string, value: string}>, paginationToken?: string}>}
	 */
	resourceLocatorResults({
		nodeType,
		version,
		methodName,
		parameter,
		parameters,
		credentials,
		filter,
		paginationToken,
	}) {
		return this.request('POST', '/dynamic-node-parameters/resource-locator-results', {
			nodeTypeAndVersion: { name: nodeType, version },
			methodName,
			path: `parameters.${parameter}`,
			currentNodeParameters: parameters,
			credentials,
			filter,
			paginationToken,
		});
	}

	/** Every node type description n8n serves to the editor (the static /types/nodes.json). */
	nodeTypes() {
		return this.types('nodes');
	}

	/** Every credential type description n8n serves to the editor (/types/credentials.json). */
	credentialTypes() {
		return this.types('credentials');
	}

	/**
	 * n8n rewrites these files in place whenever a community package is installed, updated or removed (seen on
	 * 1.123.81: a read during the rewrite got a cut file), so a read that does not parse is made again.
	 * @param {'nodes' | 'credentials'} kind @returns {Promise<any[]>}
	 */
	async types(kind) {
		for (let attempt = 1; ; attempt++) {
			const res = await sendAgainIfClosed(() =>
				fetch(`${this.baseUrl}/types/${kind}.json`, {
					headers: { cookie: this.cookie, 'browser-id': this.browserId },
				}),
			);
			const text = await res.text();
			if (!res.ok) throw new N8nApiError('GET', `/types/${kind}.json`, res.status, text);
			try {
				return JSON.parse(text);
			} catch (error) {
				if (attempt >= 10) throw error;
				await new Promise((resolve) => setTimeout(resolve, 300));
			}
		}
	}
}

/**
 * The run data of an execution fetched with getExecution(): n8n stores it in the `flatted` format (JSON
 * with shared references), so parse it with n8n's own copy of that library.
 * @param {any} execution
 * @returns {Record<string, Array<{error?: any, executionTime: number, data?: {main: Array<Array<{json: any}> | null>}}>>}
 */
function runData(execution) {
	// n8n-workflow (a dev dependency of this package) carries the same flatted n8n uses.
	const flatted = require('flatted');
	const data = typeof execution.data === 'string' ? flatted.parse(execution.data) : execution.data;
	return data.resultData.runData;
}

/** Items a node output in an execution: output `index` (0 = main / "true" branch) of its first run. */
function nodeOutput(/** @type {any} */ execution, /** @type {string} */ nodeName, index = 0) {
	const runs = runData(execution)[nodeName];
	if (!runs) return undefined;
	return (runs[0].data?.main[index] ?? []).map((item) => item.json);
}

module.exports = { N8nClient, N8nApiError, runData, nodeOutput };
