/* eslint-disable @n8n/community-nodes/no-hardcoded-secrets -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// The Storefront API credentials as n8n applies them. `authenticate`: a node request through n8n-core's
// httpRequestWithAuthentication, the Bearer header set by the credential's function (no expression to resolve).
// `test`: the request n8n's credential dialog sends, run the way n8n's CredentialsTester runs it — a throw-away
// node type whose only property routes `test.request`, executed by n8n-core's RoutingNode — against the sandbox.
import type {
	ICredentialDataDecryptedObject,
	IHttpRequestOptions,
	INode,
	INodeType,
	INodeTypes,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { createRunExecutionData, NodeConnectionTypes, NodeHelpers, Workflow } from 'n8n-workflow';

import { StorefrontApi } from '../../credentials/StorefrontApi.credentials';
import { core } from '../helpers/core';
import { HarnessCredentialsHelper, runNode } from '../helpers/n8n';
import { startSandbox, type Sandbox } from '../helpers/sandbox';

const credentialType = new StorefrontApi();
let sb: Sandbox;

beforeAll(async () => {
	sb = await startSandbox();
});
afterAll(async () => sb?.stop());
beforeEach(async () => {
	await sb.admin('DELETE', '/requests');
});

const creds = (
	over: Partial<ICredentialDataDecryptedObject> = {},
): ICredentialDataDecryptedObject => ({
	baseUrl: sb.baseUrl,
	apiKey: sb.apiKey,
	webhookSecret: sb.webhookSecret,
	...over,
});

/** What n8n's CredentialsTester.runRequestTest does for a credential with a `test.request`. */
async function testCredential(
	credentials: ICredentialDataDecryptedObject,
): Promise<{ status: 'OK' | 'Error'; message: string; httpCode?: number }> {
	const testNodeType: INodeType = {
		description: {
			displayName: 'No Operation',
			name: 'credentialTest',
			group: ['transform'],
			version: 1,
			description: 'Credential test',
			defaults: { name: 'Temp-Node' },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: credentialType.name, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					default: '',
					routing: { request: credentialType.test.request },
				},
			],
		},
	};
	const nodeTypes: INodeTypes = {
		getByName: () => testNodeType,
		getByNameAndVersion: () => NodeHelpers.getVersionedNodeType(testNodeType, 1),
		getKnownTypes: () => ({}),
	};
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: 'credentialTest',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { [credentialType.name]: { id: 'cred-1', name: 'Storefront account' } },
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const additionalData = {
		credentialsHelper: new HarnessCredentialsHelper({ [credentialType.name]: credentials }),
		currentNodeParameters: node.parameters,
		variables: {},
		instanceBaseUrl: 'http://localhost:5678/',
		webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
		formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
	} as unknown as IWorkflowExecuteAdditionalData;
	const context = new core.ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		createRunExecutionData(),
		0,
		[],
		{ main: [[{ json: {} }]] },
		{ node, data: {}, source: null },
		[],
	);
	try {
		const decrypted = {
			id: 'cred-1',
			name: 'Storefront account',
			type: credentialType.name,
			data: credentials,
		};
		await new core.RoutingNode(context, testNodeType, decrypted).runNode();
		return { status: 'OK', message: 'Connection successful!' };
	} catch (error) {
		const e = error as {
			message: string;
			httpCode?: string;
			cause?: { response?: { status: number } };
		};
		const httpCode = e.cause?.response?.status ?? (e.httpCode ? Number(e.httpCode) : undefined);
		return { status: 'Error', message: e.message, httpCode };
	}
}

describe('credential test request (Test button in the credential dialog)', () => {
	test('succeeds for a good key, with one cheap request: GET /v1/products?limit=1', async () => {
		expect(await testCredential(creds())).toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
		const { body } = await sb.admin('GET', '/requests');
		const log = Array.isArray(body) ? body : body.requests;
		expect(
			log.map((r: { method: string; path: string; query: object; status: number }) => [
				r.method,
				r.path,
				r.query,
				r.status,
			]),
		).toEqual([['GET', '/v1/products', { limit: '1' }, 200]]);
	});

	test('fails with 401 for a wrong key, and the key is not in the message', async () => {
		const result = await testCredential(creds({ apiKey: 'sf_wrong_key_123' }));
		expect(result.status).toBe('Error');
		expect(result.httpCode).toBe(401);
		expect(result.message).not.toContain('sf_wrong_key_123');
	});

	test('fails for a wrong base URL (missing /v1) and for an unreachable one', async () => {
		const noVersion = await testCredential(creds({ baseUrl: sb.baseUrl.replace(/\/v1$/, '') }));
		expect(noVersion).toMatchObject({ status: 'Error', httpCode: 404 });
		const unreachable = await testCredential(creds({ baseUrl: 'http://127.0.0.1:1/v1' }));
		expect(unreachable.status).toBe('Error');
	});

	test('a trailing slash on the base URL does not produce // in the request path', async () => {
		expect((await testCredential(creds({ baseUrl: `${sb.baseUrl}/` }))).status).toBe('OK');
		const { body } = await sb.admin('GET', '/requests');
		const log = Array.isArray(body) ? body : body.requests;
		expect(log.map((r: { path: string }) => r.path)).toEqual(['/v1/products']);
	});
});

describe('authenticate (a Bearer header) applied by n8n-core to node requests', () => {
	const getStore = { resource: 'store', operation: 'get', storeId: 'store_001' };

	test('a node request with the stored key is accepted by the API', async () => {
		const { items, error } = await runNode({ parameters: getStore, credentials: creds() });
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({ id: 'store_001' });
	});

	test('without the right key the API answers 401: the header carries exactly the credential key', async () => {
		const { error } = await runNode({
			parameters: getStore,
			credentials: creds({ apiKey: `${sb.apiKey}x` }),
		});
		expect(error).toBeDefined();
		expect((error as { httpCode?: string }).httpCode).toBe('401');
		expect(JSON.stringify(error)).not.toContain(`${sb.apiKey}x`);
	});

	test("it sets the Bearer header the spec asks for, keeps the request's other headers, and needs no expression engine (n8n 2.x lends one only inside a node's call)", async () => {
		const authenticate = credentialType.authenticate as (
			c: ICredentialDataDecryptedObject,
			r: IHttpRequestOptions,
		) => Promise<IHttpRequestOptions>;
		const request: IHttpRequestOptions = {
			url: 'https://api.example.test/v1/products',
			headers: { Accept: 'application/json' },
		};
		expect(await authenticate({ apiKey: 'sf_key_1' }, request)).toEqual({
			...request,
			headers: { Accept: 'application/json', Authorization: 'Bearer sf_key_1' },
		});
		expect(request.headers).toEqual({ Accept: 'application/json' });
	});
});
