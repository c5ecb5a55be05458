/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code, not node code: n8n's strict lint config (kept unmodified) applies node rules to every .ts file */
// A scripted, OpenAI-compatible model server for end-to-end tests of n8n's AI Agent with the OpenAI Chat Model
// node (lmChatOpenAi, which drives @langchain/openai's ChatOpenAI through the `openai` SDK). Point the openAiApi
// credential's `url` at `baseUrl`; every model call then lands here, is recorded in a normalized form, and is
// answered with whatever the test's script decides for that turn: tool calls or final text.
//
// It speaks both APIs ChatOpenAI may use, since which one depends on the node version and its "Use Responses
// API" switch (on by default from v1.3):
// - Chat Completions, POST /v1/chat/completions: `messages` in, `choices[0].message` out;
// - Responses, POST /v1/responses: `input` items in, `output` items (`message`, `function_call`) out.
// The reply shapes follow what the SDK and @langchain/openai read (see the comments at each builder), so tool
// calls come out as LangChain `tool_calls` and text as the message content. It does not stream: n8n's agent only
// asks for a stream behind a streaming trigger, which these tests do not use, so `stream: true` is refused with a
// 400 rather than answered by code no test runs.
import * as http from 'http';
import type { AddressInfo } from 'net';

/** A function tool as the client declared it (normalized from either API's tool format). */
export interface ToolSpec {
	name: string;
	description: string;
	/** The JSON schema as sent. */
	parameters: Record<string, unknown>;
}

/** What a tool returned to the model, as the conversation carries it. */
export interface ToolResult {
	callId: string;
	/** The tool's name, when an earlier assistant tool call in the conversation has this call id. */
	name?: string;
	content: string;
}

export interface RecordedRequest {
	api: 'chat' | 'responses';
	path: string;
	stream: boolean;
	model: string;
	/** The raw parsed JSON body. */
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
	body: any;
	tools: ToolSpec[];
	/** Text of the last user message (the prompt). */
	userText: string;
	/** Every tool result in the conversation so far, in order (`role: tool` messages or `function_call_output` items). */
	toolResults: ToolResult[];
	/** Earlier assistant tool calls in the conversation, in order. */
	toolCalls: Array<{ callId: string; name: string; arguments: Record<string, unknown> }>;
	/** Set when the script threw (or returned something that is not a turn): the message sent back in the error body. */
	error?: string;
}

export type ModelTurn =
	| { toolCalls: Array<{ name: string; arguments: Record<string, unknown> }> }
	| { text: string };

/**
 * Decides one model turn from the recorded request. Throwing answers the call with an HTTP error: 500 by default,
 * which n8n retries (the node's default maxRetries is 2: the script runs three times over about five seconds,
 * each call recorded), or the thrown error's own `status` if it has one in 400-599 (400 is not retried).
 */
export type Script = (request: RecordedRequest) => ModelTurn | Promise<ModelTurn>;

export interface ScriptedModel {
	/** e.g. http://127.0.0.1:41234/v1: the openAiApi credential's `url`. */
	baseUrl: string;
	/** Every model call so far, in arrival order (cleared in place by reset(), so a held reference stays live). */
	requests: RecordedRequest[];
	setScript(script: Script): void;
	/** Clears `requests`. Call ids keep counting up, so ids stay unique for the server's whole life. */
	reset(): void;
	stop(): Promise<void>;
}

// Parsed JSON navigated freely: request bodies are whatever the client sent, replies are plain objects.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

type ToolCallTurn = Array<{ callId: string; name: string; arguments: string }>;

// ---------------------------------------------------------------------------------------------------------------
// Reading a request: the same facts out of either API's conversation format.

/** The text of a message's content: a plain string, or the text parts of a content array (any API's part types). */
function textOf(content: unknown): string {
	if (typeof content === 'string') return content;
	if (!Array.isArray(content))
		return content === null || content === undefined ? '' : JSON.stringify(content);
	return content
		.map((part: Json) =>
			typeof part === 'string' ? part : typeof part?.text === 'string' ? part.text : '',
		)
		.join('');
}

/** Tool-call arguments travel as a JSON string in both APIs; an unparsable one is recorded as `{}`. */
function parseArguments(raw: unknown): Record<string, unknown> {
	if (raw !== null && typeof raw === 'object') return raw as Record<string, unknown>;
	try {
		const parsed: unknown = JSON.parse(String(raw ?? ''));
		return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
			? (parsed as Record<string, unknown>)
			: {};
	} catch {
		return {};
	}
}

type Conversation = Pick<RecordedRequest, 'tools' | 'userText' | 'toolResults' | 'toolCalls'>;

/** Tool results name no tool in either API; the earlier call with the same id does. */
function nameResults(conversation: Conversation): Conversation {
	for (const result of conversation.toolResults) {
		const call = conversation.toolCalls.find((c) => c.callId === result.callId);
		if (call) result.name = call.name;
	}
	return conversation;
}

/**
 * Chat Completions: `tools: [{ type: 'function', function: { name, description, parameters, strict? } }]`,
 * `messages: [{ role, content, tool_calls?: [{ id, type, function: { name, arguments } }], tool_call_id? }]`.
 */
function readChat(body: Json): Conversation {
	const tools: ToolSpec[] = (Array.isArray(body.tools) ? body.tools : [])
		.filter((t: Json) => t?.type === 'function' && t.function)
		.map((t: Json) => ({
			name: t.function.name,
			description: t.function.description ?? '',
			parameters: t.function.parameters ?? {},
		}));
	const conversation: Conversation = { tools, userText: '', toolResults: [], toolCalls: [] };
	for (const message of Array.isArray(body.messages) ? body.messages : []) {
		if (message?.role === 'user') conversation.userText = textOf(message.content);
		if (message?.role === 'tool') {
			conversation.toolResults.push({
				callId: String(message.tool_call_id ?? ''),
				content: textOf(message.content),
			});
		}
		if (message?.role === 'assistant' && Array.isArray(message.tool_calls)) {
			for (const call of message.tool_calls) {
				conversation.toolCalls.push({
					callId: call.id,
					name: call.function?.name,
					arguments: parseArguments(call.function?.arguments),
				});
			}
		}
	}
	return nameResults(conversation);
}

/**
 * Responses: `tools: [{ type: 'function', name, description, parameters, strict }]`, `input` a string or items:
 * messages (`{ type: 'message', role, content }`, `type` optional), `function_call` ({ call_id, name, arguments })
 * and `function_call_output` ({ call_id, output }). ChatOpenAI replays an earlier reply's output items verbatim
 * when it still has them, so those come back here too (with the ids and statuses this server gave them).
 */
function readResponses(body: Json): Conversation {
	const tools: ToolSpec[] = (Array.isArray(body.tools) ? body.tools : [])
		.filter((t: Json) => t?.type === 'function')
		.map((t: Json) => ({
			name: t.name,
			description: t.description ?? '',
			parameters: t.parameters ?? {},
		}));
	const conversation: Conversation = { tools, userText: '', toolResults: [], toolCalls: [] };
	const items: Json[] =
		typeof body.input === 'string'
			? [{ type: 'message', role: 'user', content: body.input }]
			: (body.input ?? []);
	for (const item of Array.isArray(items) ? items : []) {
		const type = item?.type ?? (item?.role ? 'message' : undefined);
		if (type === 'message' && item.role === 'user') conversation.userText = textOf(item.content);
		if (type === 'function_call') {
			conversation.toolCalls.push({
				callId: item.call_id,
				name: item.name,
				arguments: parseArguments(item.arguments),
			});
		}
		if (type === 'function_call_output') {
			conversation.toolResults.push({
				callId: String(item.call_id ?? ''),
				content: textOf(item.output),
			});
		}
	}
	return nameResults(conversation);
}

// ---------------------------------------------------------------------------------------------------------------
// Writing a reply. Usage figures are estimates (about four characters a token), plausible enough for n8n's token
// accounting and never zero, so a test can tell "counted" from "missing".

function estimateTokens(value: unknown): number {
	const text = typeof value === 'string' ? value : JSON.stringify(value ?? '');
	return Math.max(1, Math.ceil(text.length / 4));
}

function chatUsage(body: Json, output: unknown): Json {
	const prompt = estimateTokens(body.messages);
	const completion = estimateTokens(output);
	return {
		prompt_tokens: prompt,
		completion_tokens: completion,
		total_tokens: prompt + completion,
		prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
		completion_tokens_details: {
			reasoning_tokens: 0,
			audio_tokens: 0,
			accepted_prediction_tokens: 0,
			rejected_prediction_tokens: 0,
		},
	};
}

function responsesUsage(body: Json, output: unknown): Json {
	const input = estimateTokens([body.instructions, body.input]);
	const produced = estimateTokens(output);
	return {
		input_tokens: input,
		input_tokens_details: { cached_tokens: 0 },
		output_tokens: produced,
		output_tokens_details: { reasoning_tokens: 0 },
		total_tokens: input + produced,
	};
}

/**
 * A `chat.completion`. ChatOpenAI parses `choices[].message.tool_calls` (JSON-string `arguments`) into
 * `tool_calls`, takes `content` as the text, and maps `usage` to usage_metadata.
 */
function chatCompletion(
	id: string,
	created: number,
	body: Json,
	calls: ToolCallTurn | undefined,
	text: string,
): Json {
	const toolCalls = calls?.map((c) => ({
		id: c.callId,
		type: 'function',
		function: { name: c.name, arguments: c.arguments },
	}));
	const message = toolCalls
		? { role: 'assistant', content: null, refusal: null, tool_calls: toolCalls, annotations: [] }
		: { role: 'assistant', content: text, refusal: null, annotations: [] };
	return {
		id,
		object: 'chat.completion',
		created,
		model: body.model,
		choices: [
			{ index: 0, message, logprobs: null, finish_reason: toolCalls ? 'tool_calls' : 'stop' },
		],
		usage: chatUsage(body, toolCalls ?? text),
		service_tier: 'default',
		system_fingerprint: 'fp_scripted',
	};
}

/** Output items of a Responses turn: `function_call` items (ChatOpenAI's tool_calls) or one assistant `message`. */
function responsesOutput(
	nextId: () => string,
	calls: ToolCallTurn | undefined,
	text: string,
): Json[] {
	if (calls) {
		return calls.map((c) => ({
			id: `fc_${nextId()}`,
			type: 'function_call',
			status: 'completed',
			arguments: c.arguments,
			call_id: c.callId,
			name: c.name,
		}));
	}
	return [
		{
			id: `msg_${nextId()}`,
			type: 'message',
			status: 'completed',
			role: 'assistant',
			content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
		},
	];
}

/** A completed `response` object. */
function responseObject(id: string, created: number, body: Json, output: Json[]): Json {
	return {
		id,
		object: 'response',
		created_at: created,
		status: 'completed',
		// ChatOpenAI throws on a truthy `error`, so it is always present and null.
		error: null,
		incomplete_details: null,
		instructions: body.instructions ?? null,
		max_output_tokens: body.max_output_tokens ?? null,
		model: body.model,
		output,
		parallel_tool_calls: body.parallel_tool_calls ?? true,
		previous_response_id: body.previous_response_id ?? null,
		reasoning: { effort: null, summary: null },
		service_tier: 'default',
		store: body.store ?? true,
		temperature: body.temperature ?? 1,
		text: body.text?.format ? body.text : { format: { type: 'text' } },
		tool_choice: body.tool_choice ?? 'auto',
		tools: body.tools ?? [],
		top_p: body.top_p ?? 1,
		truncation: 'disabled',
		usage: responsesUsage(body, output),
		user: null,
		metadata: body.metadata ?? {},
	};
}

// ---------------------------------------------------------------------------------------------------------------
// The server.

function sendJson(res: http.ServerResponse, status: number, payload: unknown): void {
	const data = JSON.stringify(payload);
	res.writeHead(status, {
		'Content-Type': 'application/json',
		'Content-Length': Buffer.byteLength(data),
	});
	res.end(data);
}

/** OpenAI's error body; the SDK turns it into an APIError whose message is `<status> <error.message>`. */
function sendError(
	res: http.ServerResponse,
	status: number,
	message: string,
	type: string,
	code: string,
): void {
	sendJson(res, status, { error: { message, type, param: null, code } });
}

function readBody(req: http.IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		req.on('error', reject);
	});
}

/** Checks what the script returned is a turn, so a mistake in a test's script reads as one. */
function validateTurn(turn: unknown): ModelTurn {
	const t = turn as Json;
	if (t && Array.isArray(t.toolCalls) && t.toolCalls.length > 0) {
		for (const call of t.toolCalls) {
			if (typeof call?.name !== 'string' || !call.name) {
				throw new Error(`script returned a tool call without a name: ${JSON.stringify(call)}`);
			}
		}
		return t as ModelTurn;
	}
	if (t && typeof t.text === 'string') return t as ModelTurn;
	throw new Error(
		`script returned neither { text } nor a non-empty { toolCalls }: ${JSON.stringify(turn)}`,
	);
}

/**
 * Starts the server on 127.0.0.1 and a free port. Without a script every model call fails with a 500 saying so
 * (rather than inventing an answer a test could mistake for the agent's).
 */
export async function startScriptedModel(script?: Script): Promise<ScriptedModel> {
	let current: Script =
		script ??
		(() => {
			throw new Error('ScriptedModel: no script set (call setScript)');
		});
	const requests: RecordedRequest[] = [];
	// Tool calls get call_1, call_2, ... in the order this server makes them (a counter of their own, so a test can
	// predict them); response, message and item ids come from a second counter and only need to be unique.
	let callCounter = 0;
	let idCounter = 0;
	const nextId = (): string => String(++idCounter);

	async function answerModelCall(
		api: RecordedRequest['api'],
		path: string,
		req: http.IncomingMessage,
		res: http.ServerResponse,
	): Promise<void> {
		let body: Json;
		try {
			body = JSON.parse(await readBody(req));
		} catch (error) {
			sendError(
				res,
				400,
				`We could not parse the JSON body of your request. (${(error as Error).message})`,
				'invalid_request_error',
				'invalid_json',
			);
			return;
		}
		const model = typeof body?.model === 'string' ? body.model : '';
		const recorded: RecordedRequest = {
			api,
			path,
			stream: body?.stream === true,
			model,
			body,
			...(api === 'chat' ? readChat(body ?? {}) : readResponses(body ?? {})),
		};
		// Recorded before the script runs, so a call the script throws on is still there to inspect.
		requests.push(recorded);
		if (recorded.stream) {
			recorded.error = 'stream: true is not scripted';
			sendError(
				res,
				400,
				`ScriptedModel: ${recorded.error}`,
				'invalid_request_error',
				'stream_not_scripted',
			);
			return;
		}

		let turn: ModelTurn;
		try {
			turn = validateTurn(await current(recorded));
		} catch (error) {
			const status = Number((error as Json)?.status);
			recorded.error = error instanceof Error ? error.message : String(error);
			sendError(
				res,
				status >= 400 && status <= 599 ? status : 500,
				`ScriptedModel: ${recorded.error}`,
				'server_error',
				'script_error',
			);
			return;
		}

		const calls: ToolCallTurn | undefined =
			'toolCalls' in turn
				? turn.toolCalls.map((c) => ({
						callId: `call_${++callCounter}`,
						name: c.name,
						arguments: JSON.stringify(c.arguments ?? {}),
					}))
				: undefined;
		const text = 'text' in turn ? turn.text : '';
		const created = Math.floor(Date.now() / 1000);
		if (api === 'chat') {
			sendJson(
				res,
				200,
				chatCompletion(`chatcmpl-scripted${nextId()}`, created, body, calls, text),
			);
		} else {
			sendJson(
				res,
				200,
				responseObject(
					`resp_scripted${nextId()}`,
					created,
					body,
					responsesOutput(nextId, calls, text),
				),
			);
		}
	}

	async function route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
		const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname.replace(/\/+$/, '');
		const key = `${req.method ?? 'GET'} ${path}`;
		if (key === 'POST /v1/chat/completions') return await answerModelCall('chat', path, req, res);
		if (key === 'POST /v1/responses') return await answerModelCall('responses', path, req, res);
		req.resume();
		sendError(
			res,
			404,
			`Invalid URL (${req.method} ${req.url})`,
			'invalid_request_error',
			'unknown_url',
		);
	}

	const server = http.createServer((req, res) => {
		// A failure past the script (say a dropped connection while reading) must not take the test process down.
		route(req, res).catch((error: Error) => {
			if (!res.headersSent)
				sendError(res, 500, `ScriptedModel: ${error.message}`, 'server_error', 'internal_error');
			else res.destroy(error);
		});
	});

	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => resolve());
	});
	const { port } = server.address() as AddressInfo;

	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		requests,
		setScript(next: Script) {
			current = next;
		},
		reset() {
			// In place: a test may hold `model.requests` from before.
			requests.length = 0;
		},
		stop() {
			return new Promise<void>((resolve, reject) => {
				server.close((error) => (error ? reject(error) : resolve()));
				// The SDK's fetch keeps connections alive; close() alone would wait for them to time out.
				server.closeAllConnections();
			});
		},
	};
}
