// pi-ai's streaming layer for extensions: the event streams, the api registry, the built-in
// apis and the api-dispatching stream/complete functions.
//
// pi-agent makes provider calls in Rust. A built-in api (anthropicMessagesApi() & co, the
// legacy streamAnthropic & co, and stream()/complete() for a model whose api no extension
// registered) asks the host: `host.complete({model, context, options, simple}, signal, onEvent)`
// resolves to the final AssistantMessage; the events the agent streams meanwhile come through
// its `onEvent` (a host that gives none has the final message replayed). Without
// `host.complete` those calls throw "… is not supported by pi-agent yet".
// Apis an extension registers with registerApiProvider run in the extension, as in pi.

import { getEnvApiKey } from "./pi_ai_env.mjs";
import { notSupportedError, piHost } from "./pi_runtime_host.mjs";

/** An async-iterable queue of events that also resolves one final result. */
export class EventStream {
	queue = [];
	waiting = [];
	done = false;
	finalResultPromise;
	resolveFinalResult;
	isComplete;
	extractResult;

	constructor(isComplete, extractResult) {
		this.isComplete = isComplete;
		this.extractResult = extractResult;
		this.finalResultPromise = new Promise((resolve) => {
			this.resolveFinalResult = resolve;
		});
	}

	push(event) {
		if (this.done) return;
		if (this.isComplete(event)) {
			this.done = true;
			this.resolveFinalResult(this.extractResult(event));
		}
		const waiter = this.waiting.shift();
		if (waiter) waiter({ value: event, done: false });
		else this.queue.push(event);
	}

	end(result) {
		this.done = true;
		if (result !== undefined) this.resolveFinalResult(result);
		for (const waiter of this.waiting.splice(0)) waiter({ value: undefined, done: true });
	}

	async *[Symbol.asyncIterator]() {
		for (;;) {
			if (this.queue.length > 0) {
				yield this.queue.shift();
				continue;
			}
			if (this.done) return;
			const next = await new Promise((resolve) => this.waiting.push(resolve));
			if (next.done) return;
			yield next.value;
		}
	}

	result() {
		return this.finalResultPromise;
	}
}

/** The stream of one assistant message: ends with "done" (the message) or "error". */
export class AssistantMessageEventStream extends EventStream {
	constructor() {
		super(
			(event) => event.type === "done" || event.type === "error",
			(event) => {
				if (event.type === "done") return event.message;
				if (event.type === "error") return event.error;
				throw new Error("Unexpected event type for final result");
			},
		);
	}
}

export function createAssistantMessageEventStream() {
	return new AssistantMessageEventStream();
}

function zeroUsage() {
	return {
		input: 0,
		output: 0,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: 0,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
	};
}

/** A failed call's message: nothing streamed, no usage, the error's text. */
export function errorMessageFor(model, error) {
	return {
		role: "assistant",
		content: [],
		api: model.api,
		provider: model.provider,
		model: model.id,
		usage: zeroUsage(),
		stopReason: "error",
		errorMessage: error instanceof Error ? error.message : String(error),
		timestamp: Date.now(),
	};
}

async function pipeInto(target, source) {
	for await (const event of source) target.push(event);
	target.end(typeof source.result === "function" ? await source.result() : undefined);
}

/**
 * A stream returned at once while `setup` (async) produces the real one; a setup failure
 * ends the stream with an error event.
 */
export function lazyStream(model, setup) {
	const outer = new AssistantMessageEventStream();
	setup()
		.then((inner) => pipeInto(outer, inner))
		.catch((error) => {
			const message = errorMessageFor(model, error);
			outer.push({ type: "error", reason: "error", error: message });
			outer.end(message);
		});
	return outer;
}

/** An api whose implementation module is loaded on first use. */
export function lazyApi(load, capabilities) {
	const api = {
		stream: (model, context, options) =>
			lazyStream(model, async () => (await load()).stream(model, context, options)),
		streamSimple: (model, context, options) =>
			lazyStream(model, async () => (await load()).streamSimple(model, context, options)),
	};
	if (capabilities?.fetchDeferred) {
		api.fetchDeferred = (model, handle, options) =>
			lazyStream(model, async () => {
				const impl = await load();
				if (!impl.fetchDeferred) throw new Error("API does not support deferred responses");
				return impl.fetchDeferred(model, handle, options);
			});
	}
	if (capabilities?.cancelDeferred) {
		api.cancelDeferred = async (model, handle, options) => {
			const impl = await load();
			if (!impl.cancelDeferred) throw new Error("API cannot cancel deferred responses");
			await impl.cancelDeferred(model, handle, options);
		};
	}
	return api;
}

// Replays a finished message as the events a streaming provider would have sent (a failed call
// that never started has only its "error").
function replayMessage(stream, message) {
	if (message.stopReason === "error" && (message.content ?? []).length === 0) {
		finishMessage(stream, message);
		return;
	}
	const partial = { ...message, content: [] };
	stream.push({ type: "start", partial: { ...partial, content: [] } });
	for (const block of message.content ?? []) {
		const contentIndex = partial.content.length;
		partial.content.push(block);
		const snapshot = () => ({ ...partial, content: [...partial.content] });
		if (block.type === "text") {
			stream.push({ type: "text_start", contentIndex, partial: snapshot() });
			stream.push({ type: "text_delta", contentIndex, delta: block.text, partial: snapshot() });
			stream.push({ type: "text_end", contentIndex, content: block.text, partial: snapshot() });
		} else if (block.type === "thinking") {
			stream.push({ type: "thinking_start", contentIndex, partial: snapshot() });
			stream.push({ type: "thinking_delta", contentIndex, delta: block.thinking, partial: snapshot() });
			stream.push({ type: "thinking_end", contentIndex, content: block.thinking, partial: snapshot() });
		} else if (block.type === "toolCall") {
			const delta = JSON.stringify(block.arguments ?? {});
			stream.push({ type: "toolcall_start", contentIndex, partial: snapshot() });
			stream.push({ type: "toolcall_delta", contentIndex, delta, partial: snapshot() });
			stream.push({ type: "toolcall_end", contentIndex, toolCall: block, partial: snapshot() });
		}
	}
	finishMessage(stream, message);
}

/** A stream answered by the agent (`host.complete`); throws when the host has none. */
function hostStream(name, simple, model, context, options) {
	const host = piHost();
	if (typeof host?.complete !== "function") throw notSupportedError(name);
	const stream = new AssistantMessageEventStream();
	// The events the agent streams come as they are made; a host that sends none has its final
	// message replayed.
	let streamed = false;
	const onEvent = (event) => {
		streamed = true;
		stream.push(event);
	};
	Promise.resolve()
		.then(() => host.complete({ model, context, options, simple }, options?.signal, onEvent))
		.then(
			(message) => (streamed ? finishMessage(stream, message) : replayMessage(stream, message)),
			(error) => {
				const message = errorMessageFor(model, error);
				stream.push({ type: "error", reason: options?.signal?.aborted ? "aborted" : "error", error: message });
				stream.end(message);
			},
		);
	return stream;
}

/** Ends a streamed message with its last event: "done", or "error" for a failed one. */
function finishMessage(stream, message) {
	if (message.stopReason === "error" || message.stopReason === "aborted") {
		stream.push({ type: "error", reason: message.stopReason, error: message });
	} else {
		stream.push({ type: "done", reason: message.stopReason ?? "stop", message });
	}
	stream.end(message);
}

function hostApi(label) {
	return {
		stream: (model, context, options) => hostStream(`${label}.stream`, false, model, context, options),
		streamSimple: (model, context, options) =>
			hostStream(`${label}.streamSimple`, true, model, context, options),
	};
}

export const anthropicMessagesApi = () => hostApi("anthropicMessagesApi()");
export const azureOpenAIResponsesApi = () => hostApi("azureOpenAIResponsesApi()");
export const bedrockConverseStreamApi = () => hostApi("bedrockConverseStreamApi()");
export const googleGenerativeAIApi = () => hostApi("googleGenerativeAIApi()");
export const googleVertexApi = () => hostApi("googleVertexApi()");
export const mistralConversationsApi = () => hostApi("mistralConversationsApi()");
export const openAICodexResponsesApi = () => hostApi("openAICodexResponsesApi()");
export const openAICompletionsApi = () => hostApi("openAICompletionsApi()");
export const openAIResponsesApi = () => hostApi("openAIResponsesApi()");
export const piMessagesApi = () => hostApi("piMessagesApi()");

/** pi swaps the bedrock module in its Bun binary; pi-agent's bedrock calls are the host's. */
export function setBedrockProviderModule(_module) {}

// The deprecated per-api stream functions.
function legacy(name, simple) {
	const fn = (model, context, options) => hostStream(name, simple, model, context, options);
	Object.defineProperty(fn, "name", { value: name });
	return fn;
}
export const streamAnthropic = legacy("streamAnthropic", false);
export const streamSimpleAnthropic = legacy("streamSimpleAnthropic", true);
export const streamAzureOpenAIResponses = legacy("streamAzureOpenAIResponses", false);
export const streamSimpleAzureOpenAIResponses = legacy("streamSimpleAzureOpenAIResponses", true);
export const streamGoogle = legacy("streamGoogle", false);
export const streamSimpleGoogle = legacy("streamSimpleGoogle", true);
export const streamGoogleVertex = legacy("streamGoogleVertex", false);
export const streamSimpleGoogleVertex = legacy("streamSimpleGoogleVertex", true);
export const streamMistral = legacy("streamMistral", false);
export const streamSimpleMistral = legacy("streamSimpleMistral", true);
export const streamOpenAICodexResponses = legacy("streamOpenAICodexResponses", false);
export const streamSimpleOpenAICodexResponses = legacy("streamSimpleOpenAICodexResponses", true);
export const streamOpenAICompletions = legacy("streamOpenAICompletions", false);
export const streamSimpleOpenAICompletions = legacy("streamSimpleOpenAICompletions", true);
export const streamOpenAIResponses = legacy("streamOpenAIResponses", false);
export const streamSimpleOpenAIResponses = legacy("streamSimpleOpenAIResponses", true);

// ---- api registry ----

const registry = new Map(); // api -> {provider, sourceId}
const builtinInstances = new Map(); // api -> the provider registerBuiltInApiProviders left

function checkedApi(api, fn) {
	return (model, context, options) => {
		if (model.api !== api) throw new Error(`Mismatched api: ${model.api} expected ${api}`);
		return fn(model, context, options);
	};
}

export function registerApiProvider(provider, sourceId) {
	registry.set(provider.api, {
		provider: {
			api: provider.api,
			stream: checkedApi(provider.api, provider.stream),
			streamSimple: checkedApi(provider.api, provider.streamSimple),
		},
		sourceId,
	});
}

export function getApiProvider(api) {
	return registry.get(api)?.provider;
}

export function getApiProviders() {
	return Array.from(registry.values(), (entry) => entry.provider);
}

export function unregisterApiProviders(sourceId) {
	for (const [api, entry] of registry) if (entry.sourceId === sourceId) registry.delete(api);
}

const BUILTIN_APIS = [
	["anthropic-messages", anthropicMessagesApi],
	["openai-completions", openAICompletionsApi],
	["openai-responses", openAIResponsesApi],
	["openai-codex-responses", openAICodexResponsesApi],
	["azure-openai-responses", azureOpenAIResponsesApi],
	["google-generative-ai", googleGenerativeAIApi],
	["google-vertex", googleVertexApi],
	["mistral-conversations", mistralConversationsApi],
	["bedrock-converse-stream", bedrockConverseStreamApi],
	["pi-messages", piMessagesApi],
];

/** Registers the built-in apis, leaving alone any api an extension already registered. */
export function registerBuiltInApiProviders() {
	for (const [api, make] of BUILTIN_APIS) {
		if (!getApiProvider(api)) {
			const streams = make();
			registerApiProvider({ api, stream: streams.stream, streamSimple: streams.streamSimple });
		}
		builtinInstances.set(api, getApiProvider(api));
	}
}

export function resetApiProviders() {
	registry.clear();
	builtinInstances.clear();
	registerBuiltInApiProviders();
}

registerBuiltInApiProviders();

function providerFor(api) {
	const provider = getApiProvider(api);
	if (!provider) throw new Error(`No API provider registered for api: ${api}`);
	return provider;
}

// As pi: an api an extension registered gets options.apiKey from the provider's environment
// variable when the caller gave none; the host resolves keys itself for the built-in apis.
function withEnvApiKey(model, options) {
	if (typeof options?.apiKey === "string" && options.apiKey.trim().length > 0) return options;
	const apiKey = getEnvApiKey(model.provider, options?.env);
	if (!apiKey || apiKey === "<authenticated>") return options;
	return { ...options, apiKey };
}

function optionsFor(provider, model, options) {
	return builtinInstances.get(model.api) === provider ? options : withEnvApiKey(model, options);
}

export function stream(model, context, options) {
	const provider = providerFor(model.api);
	return provider.stream(model, context, optionsFor(provider, model, options));
}

export async function complete(model, context, options) {
	return stream(model, context, options).result();
}

export function streamSimple(model, context, options) {
	const provider = providerFor(model.api);
	return provider.streamSimple(model, context, optionsFor(provider, model, options));
}

export async function completeSimple(model, context, options) {
	return streamSimple(model, context, options).result();
}
