// pi-agent's extension host, the custom streams of extension providers (appended to host.mjs):
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
// To the agent:
//   {type:"provider_event", id, event}           one event of the stream
//   {type:"provider_done", id, message}          its final message

/** The `streamSimple` of each provider an extension registered with one, by provider name. */
const providerStreams = new Map();
/** The calls running, by the agent's id: their abort controllers. */
const runningProviderStreams = new Map();

/** Keeps (or, without one, forgets) the `streamSimple` that `pi.registerProvider` gave. */
function noteProviderStream(name, config) {
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

/** An event as the agent takes it: the message as it stands only on start. */
function forwardedEvent(event) {
	if (event.type === "start") return { type: "start", partial: event.partial };
	const { partial: _partial, ...rest } = event;
	return rest;
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
