// pi-agent's extension host, its providers part (appended to host.mjs): `pi.registerProvider`
// and `pi.unregisterProvider`. As in pi, the calls the factories make are queued and applied
// once the extensions are loaded, before the start-up model is chosen: the host hands the queue
// to the agent with "loaded", and the agent adds the providers to its model registry. Calls
// made later (from a handler, a command or a tool) go to the agent at once
// ("register_provider" / "unregister_provider"), which changes its registry and sends the
// model state again. pi throws a refused registration into its caller; the agent only learns
// of it after the call, and reports it as the caller's uncaught throw would be (the handler
// the call came from, known through `origin`).

import { AsyncLocalStorage } from "node:async_hooks";

/** The handler running (`{extensionPath, event}` as its throws are reported), across awaits. */
const origin = new AsyncLocalStorage();

/** Runs `call` (a handler or a command) as the origin of the provider calls it makes. */
function handlerCall(from, call) {
	return origin.run(from, call);
}

/**
 * `pi.registerProvider(name, config)` calls made while the factories run, in order (pi queues
 * them and applies them once loading is done: the agent does, from "loaded").
 */
let pendingProviders = [];
/** Whether the factories run now (start-up or a reload). */
let loadingFactories = false;

/**
 * A provider config as the agent takes it (JSON): pi's config-object form. A `streamSimple` and
 * an `oauth` are kept here (host_provider_streams.mjs) and stand as `streamSimple: true` and
 * `oauth: true`; a model refresh, which only runs in JavaScript, is left out, with a warning.
 */
function providerConfig(name, config) {
	const { oauth, streamSimple, refreshModels, ...rest } = config;
	const dropped = Object.entries({ refreshModels })
		.filter(([, value]) => value !== undefined)
		.map(([key]) => key);
	if (dropped.length > 0) {
		warnOnce(
			`registerProvider ${name}`,
			`pi.registerProvider("${name}"): ${dropped.join(", ")} not supported yet; the provider is registered without`,
		);
	}
	const json = JSON.parse(JSON.stringify(rest));
	if (streamSimple !== undefined) json.streamSimple = typeof streamSimple === "function";
	if (oauth !== undefined) json.oauth = typeof oauth?.getApiKey === "function";
	return json;
}

/** `pi.registerProvider(name, config)` of `extension`. */
function registerProvider(extension, nameOrProvider, config) {
	if (typeof nameOrProvider !== "string") {
		warnOnce("registerProvider(provider)", "pi.registerProvider() with a pi-ai Provider object is not supported yet; ignored");
		return;
	}
	if (!config) throw new Error("Provider config is required when registering by name");
	noteProviderStream(nameOrProvider, config);
	const registration = { name: nameOrProvider, config: providerConfig(nameOrProvider, config), extensionPath: extension.path };
	if (loadingFactories) {
		pendingProviders.push(registration);
		return;
	}
	const from = origin.getStore() ?? { extensionPath: extension.path, event: "register_provider" };
	send({ type: "register_provider", ...registration, origin: from });
}

/**
 * `pi.unregisterProvider(name)`: while the factories run, it drops the calls queued so far, as
 * in pi; later, the agent takes the provider's registrations back.
 */
function unregisterProvider(name) {
	providerStreams.delete(name);
	providerLogins.delete(name);
	if (!loadingFactories) {
		send({ type: "unregister_provider", name });
		return;
	}
	pendingProviders = pendingProviders.filter((registration) => registration.name !== name);
}
