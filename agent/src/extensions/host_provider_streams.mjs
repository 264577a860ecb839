// pi-agent's extension host, the custom streams and OAuth logins of extension providers
// (appended to host.mjs):
// a provider registered with `streamSimple` answers the model calls of its models whose `api`
// is the one it registered, as in pi. The agent asks with "provider_stream"; the host calls the
// extension's `streamSimple(model, context, options)` with a signal of its own, and forwards
// the events of the stream it returns: "provider_event"s (start, then the blocks' deltas and
// ends, without their `partial` except on start), then one "provider_done" with the final
// message (of the done or error event, or the stream's result). "provider_stream_abort" aborts
// the signal; the stream decides how to end. A `streamSimple` that throws, or a stream that
// fails, ends with an error message, as pi's lazy stream does.
//
// From the agent:
//   {type:"provider_stream", id, provider, model, context:{systemPrompt, messages, tools},
//    options}                                    run the provider's streamSimple
//   {type:"provider_stream_abort", id}           abort that call's signal
//   {type:"provider_auth", id, provider, credential}   the key of a call, from the login
//                                                auth.json stores: `getApiKey(credential)`,
//                                                after `refreshToken` when it expires within
//                                                five minutes (as pi-ai resolves a login)
// To the agent:
//   {type:"provider_event", id, event}           one event of the stream
//   {type:"provider_done", id, message}          its final message
//   {type:"provider_key", id, apiKey?, refreshed?, error?}   the key; the login to store
//                                                instead, when refreshed; or why there is none

/** The `streamSimple` of each provider an extension registered with one, by provider name. */
const providerStreams = new Map();
/** The `oauth` of each provider an extension registered with one, by provider name. */
const providerLogins = new Map();
/** A login this close to expiry is refreshed first (pi-ai's minimum validity). */
const LOGIN_MIN_VALIDITY_MS = 5 * 60 * 1000;
/** How long a refresh may take. */
const LOGIN_REFRESH_TIMEOUT_MS = 15_000;
/** The calls running, by the agent's id: their abort controllers. */
const runningProviderStreams = new Map();

/**
 * Keeps (or, given without one, forgets) the `streamSimple` and `oauth` that
 * `pi.registerProvider` gave.
 */
function noteProviderStream(name, config) {
	if (typeof config.oauth?.getApiKey === "function") providerLogins.set(name, config.oauth);
	else if ("oauth" in config) providerLogins.delete(name);
	if (typeof config.streamSimple === "function") providerStreams.set(name, config.streamSimple);
	else if (!("streamSimple" in config)) return;
	else providerStreams.delete(name);
}

/** A failed call's message, as pi's lazy stream makes it. */
function streamErrorMessage(model, error) {
	return {
		role: "assistant",
		content: [],
		api: model.api,
		provider: model.provider,
		model: model.id,
		usage: {
			input: 0,
			output: 0,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: 0,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		},
		stopReason: "error",
		errorMessage: error instanceof Error ? error.message : String(error),
		timestamp: Date.now(),
	};
}

/**
 * An event as the agent takes it: the message as it stands only on start; a tool call's start
 * names the call and its tool, from that message (the release decides whether they are shown).
 */
function forwardedEvent(event) {
	if (event.type === "start") return { type: "start", partial: event.partial };
	const { partial, ...rest } = event;
	if (event.type !== "toolcall_start") return rest;
	const block = partial?.content?.[event.contentIndex];
	return { ...rest, id: rest.id ?? block?.id, toolName: rest.toolName ?? block?.name };
}

/** Runs the agent's "provider_stream" request. */
async function runProviderStream(message) {
	const { id, model } = message;
	const controller = new AbortController();
	runningProviderStreams.set(id, controller);
	let final;
	try {
		const streamSimple = providerStreams.get(message.provider);
		if (!streamSimple) throw new Error(`No API provider registered for api: ${model.api}`);
		const stream = await streamSimple(model, message.context, { ...message.options, signal: controller.signal });
		for await (const event of stream) {
			if (event?.type === "done") final = event.message;
			else if (event?.type === "error") final = event.error;
			else if (event && typeof event.type === "string") send({ type: "provider_event", id, event: forwardedEvent(event) });
			if (final) break;
		}
		if (!final && typeof stream?.result === "function") final = await stream.result();
		if (!final) throw new Error("The provider stream ended without a final message");
	} catch (error) {
		final = streamErrorMessage(model, error);
	} finally {
		runningProviderStreams.delete(id);
	}
	send({ type: "provider_done", id, message: final });
}

/** Aborts the signal of the call `id`. */
function abortProviderStream(id) {
	runningProviderStreams.get(id)?.abort();
}

/** The agent's "provider_auth" request: the key `getApiKey` makes of the stored login. */
async function providerKey(message) {
	const { id, provider } = message;
	const oauth = providerLogins.get(provider);
	let credential = message.credential;
	let refreshed;
	try {
		if (!oauth) throw new Error(`Provider is not configured: ${provider}`);
		if (Date.now() + LOGIN_MIN_VALIDITY_MS >= credential.expires) {
			try {
				const signal = AbortSignal.timeout(LOGIN_REFRESH_TIMEOUT_MS);
				credential = { ...(await oauth.refreshToken(credential, signal)), type: "oauth" };
			} catch (error) {
				throw new Error(`OAuth refresh failed for ${provider}`, { cause: error });
			}
			refreshed = credential;
		}
		let apiKey;
		try {
			apiKey = await oauth.getApiKey(credential);
		} catch (error) {
			throw new Error(`OAuth auth derivation failed for ${provider}`, { cause: error });
		}
		send({ type: "provider_key", id, apiKey: apiKey === undefined ? undefined : String(apiKey), refreshed });
	} catch (error) {
		send({ type: "provider_key", id, refreshed, error: errorText(error) });
	}
}
