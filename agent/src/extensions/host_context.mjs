// pi-agent's extension host, its context part (appended to host.mjs): the `ctx` every handler
// gets, and what it asks of the agent: `ctx.compact()` (the agent compacts as for the `compact`
// command), `ctx.getContextUsage()` (from the usage the agent last sent), `ctx.modelRegistry`
// (the models and credentials the agent last sent; the key of a model and its calls asked of
// the agent), and the provider calls of pi-ai's runtime module (`host.complete`, which
// `complete`, `stream` and the built-in apis use; see runtime/pi_runtime_host.mjs). pi runs
// those calls in the extension; pi-agent runs them through its own providers and streams the
// events back here, where the message they build is kept as pi-ai's `partial`. Also the
// `resources_discover` handlers, whose paths the agent adds to its resources.
//
// To the agent:
//   {type:"compact", id, customInstructions?}   ctx.compact; reply {result} or {error}
//   {type:"model_auth", id, model?, provider?}  the key (and headers) of a model or provider;
//                                               reply {ok, apiKey?, headers?, error?}
//   {type:"model_call", id, model, context, options, simple, registry}
//                                               one provider call; "model_stream"s, then a
//                                               reply {message}
//   {type:"model_call_abort", id}               its signal aborted
//   {type:"intercepted", id, result:{skillPaths, promptPaths, themePaths}}
//                                               resources_discover's handlers: each path with
//                                               the extension that named it
// From the agent:
//   {type:"intercept", id, event:{type:"resources_discover", cwd, reason}}
//   {type:"model_stream", id, start?, usage?, events?}   the call's progress: the message as it
//                                               began, its usage, its deltas (RPC's
//                                               assistantMessageEvent shapes, without partial)
//   {type:"context_usage", usage}               what ctx.getContextUsage() answers from now on
//                                               (after the session's entries changed; also
//                                               in "model_state")

/** The handlers' `ctx` (a command's adds its session actions: host_session.mjs). */
function context() {
	return {
		ui: mode === "rpc" ? ui : silentUi,
		mode,
		hasUI: mode === "rpc",
		cwd,
		signal: undefined,
		get model() {
			return modelState.model;
		},
		modelRegistry,
		sessionManager,
		isIdle() {
			return !streaming;
		},
		getContextUsage() {
			return contextUsage;
		},
		compact(options) {
			void compactSession(options);
		},
		shutdown: requestShutdown,
	};
}

/** How full the context window is, as the agent last said (`{tokens, contextWindow, percent}`). */
let contextUsage;

/** `ctx.compact(options)`: the agent compacts; `onComplete(result)` or `onError(error)` follows. */
async function compactSession(options) {
	const instructions = options?.customInstructions;
	const answer = await ask({
		type: "compact",
		customInstructions: typeof instructions === "string" ? instructions : undefined,
	});
	try {
		if (typeof answer?.error === "string") throw new Error(answer.error);
		options?.onComplete?.(answer?.result);
	} catch (error) {
		// As in pi: a throwing onComplete reaches onError too.
		try {
			options?.onError?.(error instanceof Error ? error : new Error(String(error)));
		} catch (failure) {
			process.stderr.write(`pi-agent extension host: ctx.compact onError threw: ${errorText(failure)}\n`);
		}
	}
}

/** `ctx.modelRegistry`: the agent's models; their keys and calls are asked of the agent. */
const modelRegistry = {
	find(provider, modelId) {
		return modelState.models.find((model) => model.provider === provider && model.id === modelId);
	},
	getAll() {
		return [...modelState.models];
	},
	getAvailable() {
		return modelState.models.filter((model) => modelState.available.includes(`${model.provider}/${model.id}`));
	},
	getError() {
		return undefined;
	},
	hasConfiguredAuth(model) {
		return modelState.configured.includes(model?.provider);
	},
	async getApiKeyAndHeaders(model) {
		const answer = await ask({ type: "model_auth", model: plainModel(model) });
		if (answer?.ok !== true) return { ok: false, error: answer?.error ?? "unknown error" };
		const resolved = { ok: true };
		if (typeof answer.apiKey === "string") resolved.apiKey = answer.apiKey;
		if (answer.headers) resolved.headers = answer.headers;
		return resolved;
	},
	async getApiKeyForProvider(provider) {
		const answer = await ask({ type: "model_auth", provider });
		return answer?.ok === true && typeof answer.apiKey === "string" ? answer.apiKey : undefined;
	},
	async complete(model, context, options) {
		const request = { model, context, options, simple: false, registry: true };
		return hostComplete(request, options?.signal, () => {}).catch((error) => setupErrorMessage(model, error));
	},
};
// The rest of pi's ModelRegistry: there, throwing when called.
for (const name of [
	"refresh",
	"getProviderAuthStatus",
	"getProvider",
	"getProviderDisplayName",
	"getProviderAuth",
	"isUsingOAuth",
	"registerProvider",
	"unregisterProvider",
	"getRegisteredProviderConfig",
	"getRegisteredNativeProvider",
	"getRegisteredProviderIds",
]) {
	modelRegistry[name] = () => {
		throw new Error(`ctx.modelRegistry.${name} is not supported by pi-agent yet`);
	};
}

/** A model as JSON (what the extension built may carry functions). */
function plainModel(model) {
	return model && typeof model === "object" ? JSON.parse(JSON.stringify(model)) : model;
}

/** The message of a call that could not start, as pi-ai's lazy streams make it. */
function setupErrorMessage(model, error) {
	return {
		role: "assistant",
		content: [],
		api: model?.api,
		provider: model?.provider,
		model: model?.id,
		usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
		stopReason: "error",
		errorMessage: errorText(error),
		timestamp: Date.now(),
	};
}

/** The calls running in the agent: what to do with each "model_stream", by id. */
const modelCalls = new Map();

/**
 * `host.complete(request, signal, onEvent)`: the agent makes the call; `onEvent` gets pi-ai's
 * events as it streams (not the final done/error, which the caller makes of the message this
 * resolves to).
 */
function hostComplete(request, signal, onEvent) {
	const id = randomUUID();
	const { signal: _signal, onPayload, onResponse, ...options } = request.options ?? {};
	const message = {
		type: "model_call",
		id,
		model: plainModel(request.model),
		context: JSON.parse(JSON.stringify(request.context ?? {})),
		options: JSON.parse(JSON.stringify(options)),
		simple: request.simple === true,
		registry: request.registry === true,
	};
	return new Promise((resolve) => {
		const partial = new PartialMessage(onEvent);
		const abort = () => send({ type: "model_call_abort", id });
		signal?.addEventListener?.("abort", abort, { once: true });
		modelCalls.set(id, (update) => partial.apply(update));
		pendingReplies.set(id, (value) => {
			modelCalls.delete(id);
			signal?.removeEventListener?.("abort", abort);
			const message = value?.message ?? setupErrorMessage(request.model, new Error(value?.error ?? "no answer"));
			// After the events still being handed over.
			partial.applied.then(() => resolve(partial.finish(message)));
		});
		send(message);
		if (signal?.aborted) abort();
	});
}

/** Takes the agent's "model_stream" and "context_usage" messages. */
function modelCallProgress(message) {
	if (message.type === "context_usage") contextUsage = message.usage ?? undefined;
	else modelCalls.get(message.id)?.(message);
}

/**
 * The message a call builds as its events come, handed to each event as pi-ai's `partial` (one
 * object, changed as the call goes on, as pi-ai's providers do). The agent sends the deltas of
 * one read of the body together: they are handed over one at a time, each on a turn of its own,
 * so that a consumer sees the message as it was at each event, as with pi-ai's own streams.
 */
class PartialMessage {
	constructor(onEvent) {
		this.onEvent = onEvent;
		this.message = undefined;
		/** Settles once every update so far is handed over. */
		this.applied = Promise.resolve();
	}

	/**
	 * The call's final message: the partial one made the same as it (pi-ai's final message is
	 * the object its events carried), or `message` itself when the call never started.
	 */
	finish(message) {
		if (!this.message) return message;
		for (const key of Object.keys(this.message)) delete this.message[key];
		return Object.assign(this.message, message);
	}

	/** Hands over `update`'s events after those of the earlier updates. */
	apply(update) {
		this.applied = this.applied.then(() => this.handOver(update));
	}

	async handOver(update) {
		if (update.start) {
			// Blocks are built from the deltas; the start's own are only read for a call's name.
			this.started = update.start.content ?? [];
			this.message = { ...update.start, content: [] };
			this.onEvent({ type: "start", partial: this.message });
		}
		if (!this.message) return;
		if (update.usage) this.message.usage = update.usage;
		const { parseStreamingJson } = await runtimeJson();
		for (const event of update.events ?? []) {
			this.delta(event, parseStreamingJson);
			await new Promise((next) => setImmediate(next));
		}
	}

	delta(event, parseStreamingJson) {
		const content = this.message.content;
		const index = event.contentIndex;
		const partial = this.message;
		switch (event.type) {
			case "text_start":
				content[index] = { type: "text", text: "" };
				break;
			case "thinking_start":
				content[index] = { type: "thinking", thinking: "" };
				break;
			case "toolcall_start": {
				const known = this.started?.[index];
				const id = event.id ?? (known?.type === "toolCall" ? known.id : "");
				const name = event.toolName ?? (known?.type === "toolCall" ? known.name : "");
				content[index] = { type: "toolCall", id, name, arguments: {} };
				break;
			}
			case "text_delta":
				if (content[index]) content[index].text += event.delta;
				break;
			case "thinking_delta":
				if (content[index]) content[index].thinking += event.delta;
				break;
			case "toolcall_delta":
				if (content[index]) {
					content[index].partialJson = (content[index].partialJson ?? "") + event.delta;
					content[index].arguments = parseStreamingJson(content[index].partialJson);
				}
				break;
			case "text_end":
				content[index] = { ...content[index], type: "text", text: event.content };
				break;
			case "thinking_end":
				content[index] = { ...content[index], type: "thinking", thinking: event.content };
				break;
			case "toolcall_end":
				content[index] = event.toolCall;
				this.onEvent({ type: event.type, contentIndex: index, toolCall: event.toolCall, partial });
				return;
			default:
				return;
		}
		const { type, delta, content: text } = event;
		const forwarded = { type, contentIndex: index };
		if (delta !== undefined) forwarded.delta = delta;
		if (text !== undefined) forwarded.content = text;
		forwarded.partial = partial;
		this.onEvent(forwarded);
	}
}

/** pi-ai's reading of a tool call's partial JSON (the runtime module's), loaded on first use. */
let streamingJson;
function runtimeJson() {
	streamingJson ??= import("pi-agent:/runtime/pi_ai_json.mjs");
	return streamingJson;
}

/**
 * `resources_discover` (after each `session_start`): every handler may name skill, prompt
 * template and theme paths; each is answered with the extension that named it.
 */
async function interceptResourcesDiscover(event) {
	const found = { skillPaths: [], promptPaths: [], themePaths: [] };
	for (const extension of extensions) {
		// pi names an extension by what was given for it (a package's folder, not its entry).
		const extensionPath = extensionSourceInfo(extension.path).path ?? extension.path;
		for (const handler of extension.handlers.get("resources_discover") ?? []) {
			try {
				const answer = await handlerCall({ extensionPath: extension.path, event: event.type }, () =>
					handler({ type: "resources_discover", cwd: event.cwd, reason: event.reason }, context()),
				);
				for (const key of Object.keys(found)) {
					const paths = Array.isArray(answer?.[key]) ? answer[key] : [];
					for (const path of paths) {
						if (typeof path === "string") found[key].push({ path, extensionPath });
					}
				}
			} catch (error) {
				send({ type: "extension_error", extensionPath, event: event.type, error: errorText(error) });
			}
		}
	}
	return found;
}

interceptors.resources_discover = interceptResourcesDiscover;
