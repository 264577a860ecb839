// pi-ai's faux provider: canned assistant messages, streamed in small random chunks (optionally
// at a tokens-per-second pace), with estimated usage (prompt caching by session id), deferred
// responses, and an api-registry or Models-provider form. For tests of extensions and tools.

import { createProvider } from "./pi_ai_models.mjs";
import { createAssistantMessageEventStream, errorMessageFor, registerApiProvider, unregisterApiProviders } from "./pi_ai_stream.mjs";

const zeroUsage = () => ({
	input: 0,
	output: 0,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 0,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
});
const DEFAULT_USAGE = zeroUsage();

const randomId = (prefix) => `${prefix}:${Date.now()}:${Math.random().toString(36).slice(2)}`;
const tokensOf = (text) => Math.ceil(text.length / 4);

export function fauxText(text) {
	return { type: "text", text };
}

export function fauxThinking(thinking) {
	return { type: "thinking", thinking };
}

export function fauxToolCall(name, args, options = {}) {
	return { type: "toolCall", id: options.id ?? randomId("tool"), name, arguments: args };
}

/** An assistant message of the faux model ("faux"/"faux-1"); a string is one text block. */
export function fauxAssistantMessage(content, options = {}) {
	return {
		role: "assistant",
		content: typeof content === "string" ? [fauxText(content)] : Array.isArray(content) ? content : [content],
		api: "faux",
		provider: "faux",
		model: "faux-1",
		usage: DEFAULT_USAGE,
		stopReason: options.stopReason ?? "stop",
		deferred: options.deferred,
		errorMessage: options.errorMessage,
		responseId: options.responseId,
		timestamp: options.timestamp ?? Date.now(),
	};
}

// ---- usage estimates ----

const userContentText = (content) =>
	typeof content === "string"
		? content
		: content.map((b) => (b.type === "text" ? b.text : `[image:${b.mimeType}:${b.data.length}]`)).join("\n");

const assistantContentText = (content) =>
	content
		.map((b) => (b.type === "text" ? b.text : b.type === "thinking" ? b.thinking : `${b.name}:${JSON.stringify(b.arguments)}`))
		.join("\n");

function messageText(message) {
	if (message.role === "user") return userContentText(message.content);
	if (message.role === "assistant") return assistantContentText(message.content);
	return [message.toolName, ...message.content.map((block) => userContentText([block]))].join("\n");
}

// The whole prompt as one text: what the usage estimate and the prompt cache compare.
function promptText(context) {
	const parts = [];
	if (context.systemPrompt) parts.push(`system:${context.systemPrompt}`);
	for (const message of context.messages) parts.push(`${message.role}:${messageText(message)}`);
	if (context.tools?.length) parts.push(`tools:${JSON.stringify(context.tools)}`);
	return parts.join("\n\n");
}

function commonPrefixLength(a, b) {
	let i = 0;
	while (i < a.length && i < b.length && a[i] === b[i]) i++;
	return i;
}

// Usage from a quarter of the characters; with a session id (and caching not off), the prompt
// shared with that session's previous one counts as a cache read, the rest as a cache write.
function withUsageEstimate(message, context, options, promptCache) {
	const prompt = promptText(context);
	const promptTokens = tokensOf(prompt);
	const output = tokensOf(assistantContentText(message.content));
	let input = promptTokens;
	let cacheRead = 0;
	let cacheWrite = 0;
	const sessionId = options?.sessionId;
	if (sessionId && options?.cacheRetention !== "none") {
		const previous = promptCache.get(sessionId);
		if (previous) {
			const shared = commonPrefixLength(previous, prompt);
			cacheRead = tokensOf(previous.slice(0, shared));
			cacheWrite = tokensOf(prompt.slice(shared));
			input = Math.max(0, promptTokens - cacheRead);
		} else {
			cacheWrite = promptTokens;
		}
		promptCache.set(sessionId, prompt);
	}
	const usage = { ...zeroUsage(), input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite };
	return { ...message, usage };
}

// ---- streaming ----

function chunksOf(text, minTokens, maxTokens) {
	const chunks = [];
	for (let at = 0; at < text.length; ) {
		const tokens = minTokens + Math.floor(Math.random() * (maxTokens - minTokens + 1));
		const size = Math.max(1, tokens * 4);
		chunks.push(text.slice(at, at + size));
		at += size;
	}
	return chunks.length > 0 ? chunks : [""];
}

function pace(chunk, tokensPerSecond) {
	if (!tokensPerSecond || tokensPerSecond <= 0) return new Promise((resolve) => queueMicrotask(resolve));
	return new Promise((resolve) => setTimeout(resolve, (tokensOf(chunk) / tokensPerSecond) * 1000));
}

/** A failed call's message, as pi's streams make it. */
function failure(error, api, provider, modelId) {
	return errorMessageFor({ api, provider, id: modelId }, error);
}

function deferredMessage(model, handle) {
	return {
		role: "assistant",
		content: [],
		api: model.api,
		provider: model.provider,
		model: model.id,
		usage: DEFAULT_USAGE,
		stopReason: "deferred",
		deferred: handle,
		timestamp: Date.now(),
	};
}

function endWith(stream, message, reason) {
	stream.push({ type: "error", reason, error: message });
	stream.end(message);
}

// Streams `message` block by block in chunks; an abort ends it with what was streamed so far.
async function streamMessage(stream, message, sizes, tokensPerSecond, signal) {
	const partial = { ...message, content: [], stopReason: "pending" };
	const aborted = () => {
		if (!signal?.aborted) return false;
		endWith(stream, { ...partial, stopReason: "aborted", errorMessage: "Request was aborted", timestamp: Date.now() }, "aborted");
		return true;
	};
	if (aborted()) return;
	stream.push({ type: "start", partial: { ...partial } });
	for (let index = 0; index < message.content.length; index++) {
		if (aborted()) return;
		const block = message.content[index];
		const kind = block.type === "thinking" ? "thinking" : block.type === "text" ? "text" : "toolcall";
		const streamed = kind === "toolcall" ? { type: "toolCall", id: block.id, name: block.name, arguments: {} } : { type: block.type, [kind]: "" };
		partial.content = [...partial.content, streamed];
		stream.push({ type: `${kind}_start`, contentIndex: index, partial: { ...partial } });
		const whole = kind === "toolcall" ? JSON.stringify(block.arguments) : block[kind];
		for (const chunk of chunksOf(whole, sizes.min, sizes.max)) {
			await pace(chunk, tokensPerSecond);
			if (aborted()) return;
			if (kind !== "toolcall") partial.content[index][kind] += chunk;
			stream.push({ type: `${kind}_delta`, contentIndex: index, delta: chunk, partial: { ...partial } });
		}
		if (kind === "toolcall") {
			partial.content[index].arguments = block.arguments;
			stream.push({ type: "toolcall_end", contentIndex: index, toolCall: block, partial: { ...partial } });
		} else {
			stream.push({ type: `${kind}_end`, contentIndex: index, content: whole, partial: { ...partial } });
		}
	}
	if (message.stopReason === "pending") throw new Error("Faux response ended without a stop reason");
	if (message.stopReason === "error" || message.stopReason === "aborted") return endWith(stream, message, message.stopReason);
	stream.push({ type: "done", reason: message.stopReason, message });
	stream.end(message);
}

// ---- the core ----

const DEFAULT_MODEL = {
	id: "faux-1",
	name: "Faux Model",
	reasoning: false,
	input: ["text", "image"],
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
	contextWindow: 128000,
	maxTokens: 16384,
};

/**
 * A faux api: each call answers with the next queued response (a message, or a function of
 * (context, options, state, model) returning one), or an error when none is left. Options:
 * api, provider, models, tokenSize {min, max} (tokens per chunk), tokensPerSecond, deferred
 * {pollAfterMs, pendingFetches}.
 */
export function createFauxCore(options) {
	const api = options.api ?? randomId("faux");
	const provider = options.provider ?? "faux";
	const min = Math.max(1, Math.min(options.tokenSize?.min ?? 3, options.tokenSize?.max ?? 5));
	const sizes = { min, max: Math.max(min, options.tokenSize?.max ?? 5) };
	const tokensPerSecond = options.tokensPerSecond;
	const state = { callCount: 0, deferredFetchCount: 0, cancelledDeferred: [] };
	const promptCache = new Map();
	const deferredResponses = new Map();
	let queue = [];
	const models = (options.models?.length ? options.models : [DEFAULT_MODEL]).map((m) => ({
		id: m.id,
		name: m.name ?? m.id,
		api,
		provider,
		baseUrl: "http://localhost:0",
		reasoning: m.reasoning ?? false,
		input: m.input ?? ["text", "image"],
		cost: m.cost ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		contextWindow: m.contextWindow ?? 128000,
		maxTokens: m.maxTokens ?? 16384,
	}));

	const resolveStep = async (step, context, streamOptions, model) => {
		const message = structuredClone(typeof step === "function" ? await step(context, streamOptions, state, model) : step);
		const stamped = { ...message, api, provider, model: model.id, timestamp: message.timestamp ?? Date.now(), usage: message.usage ?? DEFAULT_USAGE };
		return withUsageEstimate(stamped, context, streamOptions, promptCache);
	};

	// Runs `body(outer)` after the caller got the stream; a throw ends it with an error message.
	const answer = (model, body) => {
		const outer = createAssistantMessageEventStream();
		queueMicrotask(async () => {
			try {
				await body(outer);
			} catch (error) {
				endWith(outer, failure(error, api, provider, model.id), "error");
			}
		});
		return outer;
	};

	const stream = (model, context, streamOptions) => {
		const step = queue.shift();
		state.callCount++;
		return answer(model, async (outer) => {
			await streamOptions?.onResponse?.({ status: 200, headers: {} }, model);
			if (!step) {
				const empty = withUsageEstimate(failure(new Error("No more faux responses queued"), api, provider, model.id), context, streamOptions, promptCache);
				return endWith(outer, empty, "error");
			}
			if (streamOptions?.deferred) {
				const handle = {
					provider: model.provider,
					modelId: model.id,
					api: model.api,
					id: randomId("deferred"),
					...(options.deferred?.pollAfterMs !== undefined ? { pollAfterMs: options.deferred.pollAfterMs } : {}),
				};
				const pendingFetches = Math.max(0, Math.floor(options.deferred?.pendingFetches ?? 0));
				deferredResponses.set(handle.id, { handle, step, context, options: streamOptions, model, pendingFetches, cancelled: false });
				return streamMessage(outer, deferredMessage(model, handle), sizes, tokensPerSecond, streamOptions.signal);
			}
			const message = await resolveStep(step, context, streamOptions, model);
			return streamMessage(outer, message, sizes, tokensPerSecond, streamOptions?.signal);
		});
	};

	const fetchDeferred = (model, handle, fetchOptions) => {
		state.deferredFetchCount++;
		return answer(model, async (outer) => {
			await fetchOptions?.onResponse?.({ status: 200, headers: {} }, model);
			const entry = deferredResponses.get(handle.id);
			const known =
				entry && entry.handle.provider === handle.provider && entry.handle.modelId === handle.modelId && entry.handle.api === handle.api;
			if (!known) throw new Error(`Unknown faux deferred response: ${handle.id}`);
			if (entry.cancelled) throw new Error(`Faux deferred response was cancelled: ${handle.id}`);
			if (entry.pendingFetches > 0) {
				entry.pendingFetches--;
				return streamMessage(outer, deferredMessage(model, entry.handle), sizes, tokensPerSecond, fetchOptions?.signal);
			}
			if (!entry.final) {
				const { deferred: _d, signal: _s, onResponse: _o, ...submitted } = entry.options ?? {};
				try {
					entry.final = await resolveStep(entry.step, entry.context, submitted, entry.model);
				} catch (error) {
					entry.final = failure(error, api, provider, entry.model.id);
				}
			}
			return streamMessage(outer, entry.final, sizes, tokensPerSecond, fetchOptions?.signal);
		});
	};

	const cancelDeferred = async (model, handle, cancelOptions) => {
		state.cancelledDeferred.push(structuredClone(handle));
		const entry = deferredResponses.get(handle.id);
		if (entry) entry.cancelled = true;
		await cancelOptions?.onResponse?.({ status: 200, headers: {} }, model);
	};

	return {
		api,
		provider,
		models,
		stream,
		streamSimple: (model, context, streamOptions) => stream(model, context, streamOptions),
		fetchDeferred,
		cancelDeferred,
		getModel: (id) => (id ? models.find((m) => m.id === id) : models[0]),
		state,
		setResponses(responses) {
			queue = [...responses];
		},
		appendResponses(responses) {
			queue.push(...responses);
		},
		getPendingResponseCount() {
			return queue.length;
		},
	};
}

function publicFaux(core) {
	return {
		api: core.api,
		models: core.models,
		getModel: core.getModel,
		state: core.state,
		setResponses: core.setResponses,
		appendResponses: core.appendResponses,
		getPendingResponseCount: core.getPendingResponseCount,
	};
}

/** A faux provider for a Models collection (createModels().setProvider(faux.provider)). */
export function fauxProvider(options = {}) {
	const core = createFauxCore(options);
	const provider = createProvider({
		id: core.provider,
		auth: { apiKey: { name: "Faux", resolve: async () => ({ auth: {} }) } },
		models: core.models,
		api: { stream: core.stream, streamSimple: core.streamSimple, fetchDeferred: core.fetchDeferred, cancelDeferred: core.cancelDeferred },
	});
	return { provider, ...publicFaux(core) };
}

/** A faux api in the api registry (stream()/complete() reach it); unregister() removes it. */
export function registerFauxProvider(options = {}) {
	const core = createFauxCore(options);
	const sourceId = `faux-provider-${Math.random().toString(36).slice(2, 10)}`;
	registerApiProvider({ api: core.api, stream: core.stream, streamSimple: core.streamSimple }, sourceId);
	const { api, models, getModel, state, setResponses, appendResponses, getPendingResponseCount } = publicFaux(core);
	return { api, models, getModel, state, setResponses, appendResponses, getPendingResponseCount, unregister: () => unregisterApiProviders(sourceId) };
}
